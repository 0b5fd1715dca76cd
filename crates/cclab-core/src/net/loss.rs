//! Loss models attachable to any link direction.
use crate::scenario::{LossModelKind, LossSpec};
use crate::sim::rng::RngStream;
use rand::Rng;

pub enum LossModel {
    /// Independent loss with a fixed probability per packet (ns-2 ErrorModel, unit pkt).
    Bernoulli { rate: f64, rng: RngStream },
}

impl LossModel {
    pub fn new(spec: &LossSpec, rng: RngStream) -> LossModel {
        match spec.model {
            LossModelKind::Bernoulli => LossModel::Bernoulli { rate: spec.rate.0, rng },
        }
    }

    /// Decide the fate of one packet.
    #[inline]
    pub fn drops(&mut self) -> bool {
        match self {
            LossModel::Bernoulli { rate, rng } => *rate > 0.0 && rng.gen::<f64>() < *rate,
        }
    }
}
