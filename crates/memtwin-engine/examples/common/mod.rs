//! What the engine-only speed examples share (not an example itself: cargo builds only
//! `examples/*.rs` and `examples/*/main.rs`).
use memtwin_engine::{Document, Simulation};

/// Run the scenario `text` (named `name` in errors) with one task whose `ops` are `ops`
/// (the scenario's `ops = [...]` list is `{ops}`), the simulation's set-up excluded from the
/// time, and print its page events and their rate.
pub fn run_ops(name: &str, text: &str, ops: &[String]) {
    let text = text.replace("{ops}", &ops.join("\n"));
    let doc = Document::from_toml(name, &text).unwrap();
    let scn = doc.resolve(None, &[]).unwrap();
    let sim = Simulation::new(&scn);
    let t0 = std::time::Instant::now();
    let r = sim.run(&mut |_, _| true).unwrap();
    let s = t0.elapsed().as_secs_f64();
    println!("{} page events in {:.3} s: {:.2} M page events/s", r.engine.page_events, s, r.engine.page_events as f64 / s / 1e6);
}
