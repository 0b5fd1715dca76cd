//! The TCP throughput equation TFRC sets its rate by (RFC 5348 §3.1, from Padhye et al.,
//! SIGCOMM 1998):
//!
//!   X = s / (R·√(2bp/3) + t_RTO · 3·√(3bp/8) · p · (1 + 32p²))
//!
//! X in bytes/s, s the packet size in bytes, R the round-trip time and t_RTO the
//! retransmission timeout in seconds, p the loss event rate, b the packets acknowledged
//! per ACK (RFC 5348 recommends b = 1).

/// The equation's rate in bytes/s. p must be > 0.
pub fn throughput(s: f64, rtt: f64, p: f64, t_rto: f64, b: f64) -> f64 {
    debug_assert!(p > 0.0 && rtt > 0.0);
    let denominator = rtt * (2.0 * b * p / 3.0).sqrt() + t_rto * 3.0 * (3.0 * b * p / 8.0).sqrt() * p * (1.0 + 32.0 * p * p);
    s / denominator
}

/// ns-2.35's form (`p_to_b` in formula.h, b = 1): the timeout term's factor
/// 3·√(3p/8) is capped at 1, and the result at ns-2's MAXRATE of 25 000 000 bytes/s
/// (also its value for p = 0).
pub fn ns2_throughput(s: f64, rtt: f64, p: f64, t_rto: f64) -> f64 {
    const MAXRATE: f64 = 25_000_000.0;
    let denominator = rtt * (2.0 * p / 3.0).sqrt() + (3.0 * (3.0 * p / 8.0).sqrt()).min(1.0) * t_rto * p * (1.0 + 32.0 * p * p);
    if !(p > 0.0) || denominator < 1e-7 {
        return MAXRATE;
    }
    (s / denominator).min(MAXRATE)
}

/// ns-2.35's inverse (`b_to_p`): bisection from p = ½ in steps of ¼, halved each time,
/// for at most 31 steps, stopping at the first p whose rate is within ±5 % of `rate`;
/// so the result is a coarse dyadic value.
pub fn ns2_loss_rate_for(rate: f64, s: f64, rtt: f64, t_rto: f64) -> f64 {
    let (mut p, mut step) = (0.5, 0.25);
    for _ in 0..31 {
        let x = ns2_throughput(s, rtt, p, t_rto);
        if (x - rate).abs() <= 0.05 * rate {
            break;
        }
        if x > rate {
            p += step;
        } else {
            p -= step;
        }
        step /= 2.0;
    }
    p
}

/// The loss event rate at which the equation gives `rate` (its inverse, used to make up
/// the first loss interval from the receive rate, RFC 5348 §6.3.1). The equation falls
/// strictly with p, so bisection on log p finds it; the result is clamped to
/// [1e-9, 1] (a rate the equation cannot reach even at p = 1 gives 1).
pub fn loss_rate_for(rate: f64, s: f64, rtt: f64, t_rto: f64, b: f64) -> f64 {
    let (mut low, mut high) = (1e-9_f64.ln(), 0.0_f64);
    if throughput(s, rtt, 1e-9, t_rto, b) <= rate {
        return 1e-9;
    }
    if throughput(s, rtt, 1.0, t_rto, b) >= rate {
        return 1.0;
    }
    for _ in 0..100 {
        let mid = 0.5 * (low + high);
        if throughput(s, rtt, mid.exp(), t_rto, b) > rate {
            low = mid;
        } else {
            high = mid;
        }
    }
    (0.5 * (low + high)).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_hand_computed_values() {
        // s = 1000 B, R = 0.1 s, t_RTO = 0.4 s, p = 0.01, b = 1:
        // R·√(0.02/3) = 0.1·0.0816497 = 0.00816497
        // 0.4·3·√(0.00375)·0.01·1.0032 = 0.4·3·0.0612372·0.01·1.0032 = 0.000737199
        // X = 1000 / 0.00890217 = 112 332 B/s
        let x = throughput(1000.0, 0.1, 0.01, 0.4, 1.0);
        assert!((x - 112_332.0).abs() < 2.0, "{x}");
        // At small p the timeout term vanishes: X ≈ s / (R √(2p/3)) = 1.2247 s/(R√p).
        let x = throughput(1000.0, 0.1, 1e-6, 0.4, 1.0);
        assert!((x / (1000.0 * 1.224_744_87 / (0.1 * 1e-3)) - 1.0).abs() < 1e-3, "{x}");
    }

    #[test]
    fn ns2_form_caps_the_timeout_factor_and_the_rate() {
        // Below p ≈ 0.296 the factor 3√(3p/8) is under 1: both forms agree.
        let (x, y) = (throughput(1000.0, 0.1, 0.01, 0.4, 1.0), ns2_throughput(1000.0, 0.1, 0.01, 0.4));
        assert!((x - y).abs() < 1e-9);
        // At p = 0.5 the factor would be 1.837: ns-2 uses 1.
        // denominator = 0.1·√(1/3) + 1·0.4·0.5·9 = 0.0577350 + 1.8
        assert!((ns2_throughput(1000.0, 0.1, 0.5, 0.4) - 1000.0 / 1.857_735).abs() < 0.01);
        assert_eq!(ns2_throughput(1000.0, 0.1, 0.0, 0.4), 25e6);
        assert_eq!(ns2_throughput(1000.0, 1e-9, 1e-12, 1e-9), 25e6);
        // The inverse lands within ±5 % of the target rate, on a dyadic p.
        let target = ns2_throughput(1000.0, 0.05, 0.003, 0.3);
        let p = ns2_loss_rate_for(target, 1000.0, 0.05, 0.3);
        assert!((ns2_throughput(1000.0, 0.05, p, 0.3) / target - 1.0).abs() <= 0.05, "{p}");
        assert_eq!((p * 2f64.powi(31)).fract(), 0.0);
    }

    #[test]
    fn inverse_recovers_the_loss_rate() {
        for p in [1e-5, 1e-3, 0.02, 0.3] {
            let x = throughput(1000.0, 0.05, p, 0.2, 1.0);
            let back = loss_rate_for(x, 1000.0, 0.05, 0.2, 1.0);
            assert!((back / p - 1.0).abs() < 1e-9, "{p} -> {back}");
        }
        assert_eq!(loss_rate_for(1e12, 1000.0, 0.05, 0.2, 1.0), 1e-9);
        assert_eq!(loss_rate_for(1.0, 1000.0, 0.05, 0.2, 1.0), 1.0);
    }
}
