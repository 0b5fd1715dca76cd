//! Run a TOML scenario without Python: `cargo run --release --example run_scenario -- FILE.toml`.
//! Prints the result summary as JSON (bins and traces omitted; flows and links only with
//! CCLAB_FLOWS=1 / CCLAB_LINKS=1, finite flows' rows only with CCLAB_FCTS=1).
fn main() {
    let path = std::env::args().nth(1).expect("usage: run_scenario FILE.toml");
    let text = std::fs::read_to_string(&path).expect("readable scenario file");
    let scenario = match cclab_core::Scenario::from_toml_str(&text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let started = std::time::Instant::now();
    let mut result = match cclab_core::run(scenario) {
        Ok(result) => result,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let wall = started.elapsed().as_secs_f64();
    result.bins.delivered_bytes.clear();
    result.traces = None;
    if std::env::var("CCLAB_FLOWS").is_err() {
        result.flows.clear();
    }
    if std::env::var("CCLAB_LINKS").is_err() {
        result.links.clear();
    }
    if std::env::var("CCLAB_FCTS").is_err() {
        result.fcts = None;
    }
    println!("{}", serde_json::to_string_pretty(&result).unwrap());
    eprintln!("wall {wall:.3} s, {:.1} M events/s", result.events as f64 / wall / 1e6);
}
