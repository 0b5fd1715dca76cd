//! DropTail: the link's FIFO with its packet limit (`buffer`, counting the packet being
//! sent, as ns-2's DropTail) and optional byte limit (`buffer_bytes`, ns-2's
//! `queue-in-bytes`), enforced by the link itself (`net::link`): nothing to decide.
use super::DisciplineSpec;
use serde::{Deserialize, Serialize};

/// `queue = "droptail"`: no parameters (the limits are the link's `buffer` and `buffer_bytes`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DroptailSpec {}

impl DisciplineSpec for DroptailSpec {
    fn parse(params: serde_json::Value) -> Result<Self, String> {
        crate::schema::no_params(params, "droptail").map(|()| DroptailSpec {})
    }
}
