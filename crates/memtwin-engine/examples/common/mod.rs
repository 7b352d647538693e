//! What the engine-only speed examples share (not an example itself: cargo builds only
//! `examples/*.rs` and `examples/*/main.rs`).
use memtwin_engine::{Document, Simulation};

/// Run the scenario `text` (named `name` in errors) with one task whose `ops` are `ops`
/// (the scenario's `ops = [...]` list is `{ops}`), and print its page events with two rates:
/// over the run alone (`Simulation::new` excluded) and over what `memtwin bench` times
/// (python/memtwin/bench.py's `_time()` around `Doc::run`: the document resolved, the
/// machine booted by `Simulation::new`, the run; not the result's conversion into Python
/// objects: callgrind puts it and the resolve together at about 0.8 M instructions of (b)'s
/// 1,151 M, the boot at 5.7 M), so that an engine-only figure and the bench's are taken over
/// the same window.
pub fn run_ops(name: &str, text: &str, ops: &[String]) {
    let text = text.replace("{ops}", &ops.join("\n"));
    let doc = Document::from_toml(name, &text).unwrap();
    let t_bench = std::time::Instant::now();
    let scn = doc.resolve(None, &[]).unwrap();
    let sim = Simulation::new(&scn);
    let t0 = std::time::Instant::now();
    let r = sim.run(&mut |_, _| true).unwrap();
    let s = t0.elapsed().as_secs_f64();
    let s_bench = t_bench.elapsed().as_secs_f64();
    let n = r.engine.page_events as f64;
    println!(
        "{} page events in {:.3} s: {:.2} M page events/s ({:.3} s, {:.2} M/s with resolve and boot, as `memtwin bench` times it)",
        r.engine.page_events,
        s,
        n / s / 1e6,
        s_bench,
        n / s_bench / 1e6
    );
}
