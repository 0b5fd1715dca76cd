//! Percentiles of a stream of non-negative values in memory that stops growing: the
//! values themselves while there are few (exact percentiles, numpy's linear
//! interpolation), then an HdrHistogram (Tene's log-linear buckets) with 3 significant
//! digits, so a percentile is off by at most 0.1 % of its value however long the run.
//! Used for flow completion times, where an arrivals group sees millions of flows.
use hdrhistogram::Histogram;

/// Values kept exactly before switching to the histogram: exact for every run a test
/// or a figure makes, and 80 KB at most per stream.
pub const EXACT_LIMIT: usize = 10_000;
/// The histogram's resolution: 3 significant decimal digits (relative error ≤ 0.1 %).
const SIGNIFICANT_DIGITS: u8 = 3;

#[derive(Clone, Debug)]
pub struct Quantiles {
    /// Values are recorded as integers: `value × scale`, rounded.
    scale: f64,
    /// Of every value, in the order recorded (the mean once the values are gone).
    sum: f64,
    exact: Vec<f64>,
    histogram: Option<Histogram<u64>>,
}

impl Quantiles {
    /// `scale` turns a value into the integer the histogram counts: 1 µs of FCT in ns
    /// is 1000, so `scale = 1e6` for milliseconds keeps 3 digits of any FCT above 1 µs.
    pub fn new(scale: f64) -> Quantiles {
        Quantiles { scale, sum: 0.0, exact: Vec::new(), histogram: None }
    }

    pub fn record(&mut self, value: f64) {
        self.sum += value;
        let integer = self.integer(value);
        match &mut self.histogram {
            Some(histogram) => record(histogram, integer),
            None => {
                self.exact.push(value);
                if self.exact.len() > EXACT_LIMIT {
                    let mut histogram = Histogram::<u64>::new(SIGNIFICANT_DIGITS).expect("3 digits is a valid precision");
                    histogram.auto(true);
                    for &v in &self.exact {
                        record(&mut histogram, (v * self.scale).round().max(1.0) as u64);
                    }
                    self.exact = Vec::new();
                    self.histogram = Some(histogram);
                }
            }
        }
    }

    /// Add another stream's values (of the same scale): kept exactly while both were and
    /// the two stay under the limit, else counted into one histogram.
    pub fn merge(&mut self, other: &Quantiles) {
        self.sum += other.sum;
        if self.histogram.is_none() && other.histogram.is_none() && self.exact.len() + other.exact.len() <= EXACT_LIMIT {
            self.exact.extend_from_slice(&other.exact);
            return;
        }
        let mut histogram = match self.histogram.take() {
            Some(histogram) => histogram,
            None => {
                let mut histogram = Histogram::<u64>::new(SIGNIFICANT_DIGITS).expect("3 digits is a valid precision");
                histogram.auto(true);
                for &v in &self.exact {
                    record(&mut histogram, self.integer(v));
                }
                histogram
            }
        };
        match &other.histogram {
            Some(theirs) => {
                for bucket in theirs.iter_recorded() {
                    let value = bucket.value_iterated_to();
                    if histogram.record_n(value, bucket.count_at_value()).is_err() {
                        histogram.saturating_record(value);
                    }
                }
            }
            None => {
                for &v in &other.exact {
                    record(&mut histogram, self.integer(v));
                }
            }
        }
        self.exact = Vec::new();
        self.histogram = Some(histogram);
    }

    /// The `rank`-th smallest value (from 0) the histogram holds, as its bucket's middle.
    fn order_statistic(&self, h: &Histogram<u64>, rank: u64) -> f64 {
        let mut seen = 0;
        for bucket in h.iter_recorded() {
            seen += bucket.count_at_value();
            if seen > rank {
                return h.median_equivalent(bucket.value_iterated_to()) as f64 / self.scale;
            }
        }
        h.median_equivalent(h.max()) as f64 / self.scale
    }

    fn integer(&self, value: f64) -> u64 {
        (value * self.scale).round().max(1.0) as u64
    }

    pub fn len(&self) -> u64 {
        self.histogram.as_ref().map_or(self.exact.len() as u64, |h| h.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether percentiles are exact (every value still kept).
    pub fn is_exact(&self) -> bool {
        self.histogram.is_none()
    }

    /// The mean: summed in ascending order while the values are kept (as a sort-then-sum
    /// would), in the order recorded after.
    pub fn mean(&self) -> Option<f64> {
        match &self.histogram {
            None if self.exact.is_empty() => None,
            None => {
                let mut sorted = self.exact.clone();
                sorted.sort_by(f64::total_cmp);
                Some(sorted.iter().sum::<f64>() / sorted.len() as f64)
            }
            Some(h) => Some(self.sum / h.len() as f64),
        }
    }

    /// The `q`-quantiles (each in 0..=1) of the values recorded; None if there are none.
    pub fn quantiles(&self, qs: &[f64]) -> Vec<Option<f64>> {
        match &self.histogram {
            None => {
                let mut sorted = self.exact.clone();
                sorted.sort_by(f64::total_cmp);
                qs.iter().map(|&q| quantile(&sorted, q)).collect()
            }
            // As numpy reads sorted values (linear between the order statistics at
            // q × (n − 1)), each order statistic read as the middle of its bucket: within
            // half a bucket, 0.05 %, of the exact percentile.
            Some(h) => qs
                .iter()
                .map(|&q| {
                    let position = q * (h.len() - 1) as f64;
                    let below = position.floor() as u64;
                    let (low, high) = (self.order_statistic(h, below), self.order_statistic(h, (below + 1).min(h.len() - 1)));
                    Some(low + (high - low) * position.fract())
                })
                .collect(),
        }
    }
}

/// Into a histogram that widens its range as values come (only as far as they reach).
fn record(histogram: &mut Histogram<u64>, value: u64) {
    if histogram.record(value).is_err() {
        histogram.saturating_record(value); // beyond what any range holds: the top
    }
}

/// The `q`-quantile (0..=1) of sorted values, linear between order statistics.
pub fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let position = q * last as f64;
    let (below, frac) = (position.floor() as usize, position.fract());
    let above = (below + 1).min(last);
    Some(sorted[below] + (sorted[above] - sorted[below]) * frac)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn merged_streams_have_the_quantiles_of_all_their_values() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let values: Vec<f64> = (0..30_000).map(|_| rng.gen_range(1.0..100.0)).collect();
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let exact = quantile(&sorted, 0.95).unwrap();
        for split in [100, 15_000, 29_900] {
            let (mut a, mut b) = (Quantiles::new(1e3), Quantiles::new(1e3));
            values[..split].iter().for_each(|&v| a.record(v));
            values[split..].iter().for_each(|&v| b.record(v));
            a.merge(&b);
            assert_eq!(a.len(), 30_000);
            let merged = a.quantiles(&[0.95])[0].unwrap();
            assert!((merged - exact).abs() / exact < 2e-3, "split {split}: {merged} vs {exact}");
        }
        let (mut a, mut b) = (Quantiles::new(1e3), Quantiles::new(1e3));
        [1.0, 2.0].iter().for_each(|&v| a.record(v));
        [3.0, 4.0].iter().for_each(|&v| b.record(v));
        a.merge(&b);
        assert!(a.is_exact() && a.quantiles(&[0.5])[0] == Some(2.5));
    }

    #[test]
    fn exact_below_the_limit_as_numpy() {
        let mut q = Quantiles::new(1e6);
        for v in [4.0, 1.0, 3.0, 2.0] {
            q.record(v);
        }
        // numpy.percentile([1, 2, 3, 4], [50, 99]) = 2.5, 3.97
        let got = q.quantiles(&[0.5, 0.99]);
        assert_eq!(got[0], Some(2.5));
        assert!((got[1].unwrap() - 3.97).abs() < 1e-12);
        assert!(q.is_exact());
        assert_eq!(q.mean(), Some(2.5));
        assert_eq!(Quantiles::new(1.0).quantiles(&[0.5]), vec![None]);
    }

    #[test]
    fn past_the_limit_within_a_thousandth_and_memory_bounded() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut q = Quantiles::new(1e6);
        let mut all = Vec::new();
        for _ in 0..200_000 {
            // heavy-tailed: 0.1 ms .. 10 s, like completion times
            let v = 0.1 * (1.0 - rng.gen::<f64>()).powf(-1.0 / 0.8).min(1e5);
            q.record(v);
            all.push(v);
        }
        assert!(!q.is_exact() && q.len() == 200_000);
        let mean = all.iter().sum::<f64>() / all.len() as f64;
        assert!((q.mean().unwrap() / mean - 1.0).abs() < 1e-12);
        all.sort_by(f64::total_cmp);
        for (got, p) in q.quantiles(&[0.01, 0.5, 0.9, 0.99, 0.999]).into_iter().zip([0.01, 0.5, 0.9, 0.99, 0.999]) {
            let want = quantile(&all, p).unwrap();
            assert!((got.unwrap() / want - 1.0).abs() < 5e-4, "p{p}: {got:?} vs {want}");
        }
        // the histogram does not grow with the values recorded
        let before = q.histogram.as_ref().unwrap().distinct_values();
        for _ in 0..200_000 {
            q.record(0.1 * (1.0 - rng.gen::<f64>()).powf(-1.0 / 0.8).min(1e5));
        }
        assert_eq!(q.histogram.as_ref().unwrap().distinct_values(), before);
    }
}
