//! DCTCP's marking switch (RFC 8257 §3.1): an ECN-capable packet arriving when more than
//! `threshold` packets are queued (the one being sent included) is marked; nothing is
//! dropped but by the buffer's limit.
use super::{AdmissionDiscipline, AdmissionSpec, Arrival, DisciplineSpec, LinkContext, Verdict};
use crate::sim::rng::RngStream;
use serde::{Deserialize, Serialize};

/// DCTCP's marking switch (RFC 8257 §3.1): `threshold` (K) in packets, required.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepMarkSpec {
    /// K: an ECN-capable arrival finding more than K packets queued (the one being sent
    /// included) is marked.
    pub threshold: u32,
}

impl DisciplineSpec for StepMarkSpec {}

impl AdmissionSpec for StepMarkSpec {
    type Discipline = StepMark;
    fn build(&self, _link: &LinkContext, _rng: RngStream) -> StepMark {
        StepMark { threshold: self.threshold, marks: 0 }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepMark {
    pub threshold: u32,
    marks: u64,
}

impl AdmissionDiscipline for StepMark {
    fn judge(&mut self, arrival: &Arrival) -> Verdict {
        if arrival.ect && arrival.waiting + arrival.busy as u32 > self.threshold {
            self.marks += 1;
            Verdict::Mark
        } else {
            Verdict::Admit
        }
    }
    fn marks(&self) -> u64 {
        self.marks
    }
    fn drops(&self) -> u64 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_mark_marks_ect_above_the_threshold_only() {
        let mut step = StepMark { threshold: 20, marks: 0 };
        let arrival = |waiting, busy, ect| Arrival { waiting, busy, ect, ..Arrival::default() };
        assert_eq!(step.judge(&arrival(19, true, true)), Verdict::Admit, "20 with the one being sent");
        assert_eq!(step.judge(&arrival(20, true, true)), Verdict::Mark);
        assert_eq!(step.judge(&arrival(21, false, true)), Verdict::Mark);
        assert_eq!(step.judge(&arrival(100, true, false)), Verdict::Admit, "not ECN-capable");
        assert_eq!(step.marks(), 2);
    }
}
