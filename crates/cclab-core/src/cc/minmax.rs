//! A windowed maximum: the largest value seen over the last `window` units of time (or
//! rounds), kept in three samples as Kathleen Nichols' algorithm does (Linux
//! lib/win_minmax.c; read, not copied). BBR's bottleneck-bandwidth filter.

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Sample {
    at: u64,
    value: f64,
}

#[derive(Clone, Debug, Default)]
pub struct WindowedMax {
    /// The best, second best and third best samples of the window, by age.
    samples: [Sample; 3],
}

impl WindowedMax {
    /// The maximum over the window.
    pub fn get(&self) -> f64 {
        self.samples[0].value
    }

    /// Start afresh from `value` at `at`.
    pub fn reset(&mut self, at: u64, value: f64) -> f64 {
        self.samples = [Sample { at, value }; 3];
        value
    }

    /// Take `value` measured at `at` (non-decreasing); keep the maximum over (at − window, at].
    pub fn update(&mut self, window: u64, at: u64, value: f64) -> f64 {
        let sample = Sample { at, value };
        let s = &mut self.samples;
        if value >= s[0].value || at.saturating_sub(s[2].at) > window {
            return self.reset(at, value); // a new maximum, or nothing left in the window
        }
        if value >= s[1].value {
            s[1] = sample;
            s[2] = sample;
        } else if value >= s[2].value {
            s[2] = sample;
        }
        self.subwindow_update(window, sample)
    }

    /// As the best samples age out, the next ones move up; keeps them spread over the
    /// window (a quarter and a half of it).
    fn subwindow_update(&mut self, window: u64, sample: Sample) -> f64 {
        let s = &mut self.samples;
        let age = sample.at.saturating_sub(s[0].at);
        if age > window {
            s[0] = s[1];
            s[1] = s[2];
            s[2] = sample;
            if sample.at.saturating_sub(s[0].at) > window {
                s[0] = s[1];
                s[1] = s[2];
                s[2] = sample;
            }
        } else if s[1].at == s[0].at && age > window / 4 {
            s[1] = sample;
            s[2] = sample;
        } else if s[2].at == s[1].at && age > window / 2 {
            s[2] = sample;
        }
        s[0].value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over a window of 10 rounds: 5 at round 0, then 3s; the 5 holds until round 10 and
    /// then gives way to the best of what is left in the window.
    #[test]
    fn holds_the_max_for_the_window_then_forgets_it() {
        let mut max = WindowedMax::default();
        assert_eq!(max.update(10, 0, 5.0), 5.0);
        for round in 1..=10 {
            assert_eq!(max.update(10, round, 3.0 + round as f64 * 0.01), 5.0, "round {round}");
        }
        let after = max.update(10, 11, 3.0);
        assert!(after < 5.0 && after >= 3.0, "{after}");
        assert_eq!(max.update(10, 12, 7.0), 7.0, "a new maximum at once");
        // a brute-force check on a random-looking stream: the filter never reports more
        // than the true window maximum, and never less than the latest value
        let mut max = WindowedMax::default();
        let values: Vec<f64> = (0..200u64).map(|k| ((k * 7919) % 97) as f64).collect();
        for (k, &v) in values.iter().enumerate() {
            let got = max.update(10, k as u64, v);
            let lo = k.saturating_sub(10);
            let truth = values[lo..=k].iter().copied().fold(f64::MIN, f64::max);
            assert!(got <= truth && got >= v, "at {k}: {got} vs window max {truth}");
        }
    }
}
