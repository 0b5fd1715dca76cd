//! The TFRC receiver's loss-interval history and its weighted average (RFC 5348 §5.4),
//! with optional history discounting (§5.5).
//!
//! A loss interval is the number of packets from the first packet lost in one loss event
//! to the first lost in the next. `I_0` is the open interval (from the most recent loss
//! event to the newest packet), `I_1 … I_n` the closed ones, newest first. With weights
//! w_i = 1 for i < n/2 and 2(n − i)/(n + 2) after (n = 8: 1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2;
//! TFRC(b) uses n = b), the mean is the larger of the averages with and without the open
//! interval, so a long loss-free stretch raises it at once and a short one never lowers
//! it:
//!
//!   I_mean = max(Σ_{i=0}^{n−1} w_i I_i / Σ w_i, Σ_{i=1}^{n} w_{i−1} I_i / Σ w_{i−1})
//!
//! and p = 1 / I_mean. Until n intervals exist the sums run over those there are.
//!
//! History discounting (§5.5): while the open interval is more than twice the mean of the
//! closed ones, the closed intervals' weights are scaled by DF = max(2·I_mean/I_0,
//! `min_discount`); when the next loss event closes I_0 that factor stays on them
//! (each interval carries its accumulated factor DF_i), so an old high-loss history
//! stops holding the rate down after conditions improve. The RFC recomputes DF whenever
//! p is; ns-2 only when it builds a report (`LossIntervals::at_reports`), and closes an
//! interval with the DF of the last report.
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct LossIntervals {
    /// w_0 … w_{n−1}.
    weights: Vec<f64>,
    /// Closed intervals I_1 … I_n (newest first) with their discount factors DF_i.
    closed: VecDeque<(f64, f64)>,
    discounting: bool,
    /// The lowest general discount factor (RFC 5348 §5.5 suggests 0.5; ns-2's
    /// `minDiscountRatio_` is the same).
    min_discount: f64,
    /// ns-2: the general discount factor as of the last report (None: recomputed on use).
    reported_discount: Option<f64>,
}

/// w_i for n intervals (RFC 5348 §5.4).
pub fn weight(i: usize, n: usize) -> f64 {
    if 2 * i < n {
        1.0
    } else {
        2.0 * (n - i) as f64 / (n + 2) as f64
    }
}

impl LossIntervals {
    pub fn new(n: usize, discounting: bool, min_discount: f64) -> LossIntervals {
        assert!(n >= 1);
        LossIntervals {
            weights: (0..n).map(|i| weight(i, n)).collect(),
            closed: VecDeque::with_capacity(n + 1),
            discounting,
            min_discount,
            reported_discount: None,
        }
    }

    /// ns-2's variant: the general discount factor changes only at [`Self::report`].
    pub fn at_reports(mut self) -> LossIntervals {
        self.reported_discount = Some(1.0);
        self
    }

    /// A report is being built with the open interval at `open` (ns-2: DF is refreshed).
    pub fn report(&mut self, open: f64) {
        if self.reported_discount.is_some() {
            self.reported_discount = Some(self.current_discount(open));
        }
    }

    pub fn n(&self) -> usize {
        self.weights.len()
    }

    /// The weighted mean of the closed intervals alone (their own discounts applied).
    fn closed_mean(&self) -> f64 {
        let (mut total, mut weights) = (0.0, 0.0);
        for (i, &(interval, discount)) in self.closed.iter().enumerate() {
            total += interval * self.weights[i] * discount;
            weights += self.weights[i] * discount;
        }
        total / weights
    }

    /// The general discount factor DF in force with an open interval of `open` packets.
    pub fn discount(&self, open: f64) -> f64 {
        self.reported_discount.unwrap_or_else(|| self.current_discount(open))
    }

    fn current_discount(&self, open: f64) -> f64 {
        if !self.discounting || self.closed.is_empty() {
            return 1.0;
        }
        let mean = self.closed_mean();
        if open > 2.0 * mean {
            (2.0 * mean / open).max(self.min_discount)
        } else {
            1.0
        }
    }

    /// I_mean given the open interval `open` (packets since the current loss event began).
    /// None before the first loss event.
    pub fn mean(&self, open: f64) -> Option<f64> {
        if self.closed.is_empty() {
            return None;
        }
        let n = self.n();
        let general = self.discount(open);
        // With I_0: I_0, I_1 … I_{n−1} weighted w_0 … w_{n−1}; the closed ones discounted.
        let (mut with_open, mut with_open_weights) = (open * self.weights[0], self.weights[0]);
        for (i, &(interval, discount)) in self.closed.iter().take(n - 1).enumerate() {
            let w = self.weights[i + 1] * discount * general;
            with_open += interval * w;
            with_open_weights += w;
        }
        let without_open = self.closed_mean();
        Some((with_open / with_open_weights).max(without_open))
    }

    /// p = 1 / I_mean (0 before the first loss event).
    pub fn loss_event_rate(&self, open: f64) -> f64 {
        self.mean(open).map_or(0.0, |mean| 1.0 / mean)
    }

    /// A new loss event closes the open interval of `length` packets. The discount in
    /// force on the older intervals stays with them (§5.5).
    pub fn close(&mut self, length: f64) {
        let general = self.discount(length);
        if general < 1.0 {
            for entry in self.closed.iter_mut() {
                entry.1 *= general;
            }
        }
        self.closed.push_front((length, 1.0));
        self.closed.truncate(self.n());
        if self.reported_discount.is_some() {
            self.reported_discount = Some(1.0);
        }
    }

    /// The closed intervals, newest first (for tests and traces).
    pub fn intervals(&self) -> impl Iterator<Item = f64> + '_ {
        self.closed.iter().map(|&(interval, _)| interval)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_follow_rfc_5348() {
        let w = |n: usize| (0..n).map(|i| weight(i, n)).collect::<Vec<_>>();
        assert_eq!(w(8), vec![1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2]);
        // TFRC(6): the and the paper's 1, 1, 1, 0.75, 0.5, 0.25
        assert_eq!(w(6), vec![1.0, 1.0, 1.0, 0.75, 0.5, 0.25]);
        assert_eq!(w(2), vec![1.0, 0.5]);
        assert_eq!(w(1), vec![1.0]);
    }

    fn history(intervals: &[f64], n: usize, discounting: bool) -> LossIntervals {
        let mut h = LossIntervals::new(n, discounting, 0.5);
        for &i in intervals.iter().rev() {
            h.close(i);
        }
        h
    }

    #[test]
    fn mean_weights_the_newest_intervals_most() {
        // Closed I_1..I_8 = 10, 20, …, 80 (newest first), open interval short (5).
        let h = history(&[10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0], 8, false);
        // Without I_0: (10+20+30+40 + 0.8·50 + 0.6·60 + 0.4·70 + 0.2·80) / 6
        //            = (100 + 40 + 36 + 28 + 16) / 6 = 220/6
        let expected = 220.0 / 6.0;
        assert!((h.mean(5.0).unwrap() - expected).abs() < 1e-12);
        // The open interval counts only when it raises the mean:
        // with I_0 = 300: (300+10+20+30 + 0.8·40 + 0.6·50 + 0.4·60 + 0.2·70) / 6 = 460/6
        assert!((h.mean(300.0).unwrap() - 460.0 / 6.0).abs() < 1e-12);
        assert!((h.loss_event_rate(300.0) - 6.0 / 460.0).abs() < 1e-15);
    }

    #[test]
    fn history_keeps_n_intervals() {
        let mut h = history(&[1.0; 8], 8, false);
        h.close(100.0);
        assert_eq!(h.intervals().collect::<Vec<_>>(), vec![100.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
        // Fewer intervals than n: the sums run over those there are.
        let h = history(&[30.0, 60.0], 8, false);
        assert!((h.mean(0.0).unwrap() - 45.0).abs() < 1e-12);
        assert_eq!(LossIntervals::new(8, false, 0.5).mean(10.0), None);
    }

    #[test]
    fn discounting_lets_a_long_open_interval_count_more() {
        // Closed intervals all 10; open interval 100 > 2·10: DF = max(20/100, 0.5) = 0.5.
        let plain = history(&[10.0; 8], 8, false);
        let discounted = history(&[10.0; 8], 8, true);
        assert_eq!(discounted.discount(100.0), 0.5);
        assert_eq!(discounted.discount(15.0), 1.0);
        // Plain: (100 + 10·(1+1+1+0.8+0.6+0.4+0.2)) / 6 = 150/6 = 25.
        assert!((plain.mean(100.0).unwrap() - 25.0).abs() < 1e-12);
        // Discounted: (100 + 0.5·50) / (1 + 0.5·5) = 125/3.5.
        assert!((discounted.mean(100.0).unwrap() - 125.0 / 3.5).abs() < 1e-12);
        // Below twice the mean nothing changes.
        assert_eq!(discounted.mean(15.0), plain.mean(15.0));
    }

    #[test]
    fn ns2_discounts_only_from_the_last_report() {
        let mut h = history(&[10.0; 8], 8, true).at_reports();
        assert_eq!(h.discount(100.0), 1.0); // no report since the intervals were closed
        h.report(100.0);
        assert_eq!(h.discount(100.0), 0.5);
        assert_eq!(h.discount(15.0), 0.5); // held until the next report or loss event
        h.close(120.0);
        assert_eq!(h.discount(500.0), 1.0);
        assert_eq!(h.intervals().take(2).collect::<Vec<_>>(), vec![120.0, 10.0]);
    }

    #[test]
    fn discount_stays_on_old_intervals_after_the_next_loss() {
        let mut h = history(&[10.0; 8], 8, true);
        h.close(100.0); // DF = 0.5 at closing: I_2..I_8 keep 0.5, I_1 = 100 has 1
        // closed mean: (100·1 + 10·0.5·(1+1+1+0.8+0.6+0.4+0.2)) / (1 + 0.5·5) = 125/3.5
        assert!((h.mean(0.0).unwrap() - 125.0 / 3.5).abs() < 1e-12);
        let mut plain = history(&[10.0; 8], 8, false);
        plain.close(100.0);
        assert!((plain.mean(0.0).unwrap() - 150.0 / 6.0).abs() < 1e-12);
    }
}
