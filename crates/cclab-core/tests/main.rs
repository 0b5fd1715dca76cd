//! The core's integration tests, one module per file of this folder, linked into one
//! test binary (`cargo test -p cclab-core --test integration`; a file's tests alone:
//! `... --test integration graphs::`).
mod algorithms;
mod engine;
mod fuzz;
mod golden;
mod graphs;
mod limits;
mod link_traces;
mod ns2_profile;
mod processes;
mod qdiscs;
mod red_ecn;
mod segment_sizes;
mod short_flows;
mod trace_links;
mod stepping;
