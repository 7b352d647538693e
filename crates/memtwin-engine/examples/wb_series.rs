//! The engine's dirty and writeback pages over a scenario's run, one line every 50 ms of engine
//! time, with the first device's blk-wbt state (`scale_step`, `wb_background`) and when the
//! held flusher goes on (0: not held), to put beside a guest trace's `global_dirty_state`
//! series (lab/validation/trace-wbt-reader-1130/README.md):
//! `cargo run --release --example wb_series -- SCENARIO.toml [VARIANT [KEY=VALUE ...]]` (the
//! settings as `memtwin run --set` takes them, e.g. `machine.copy_slowdown=24`).
use memtwin_engine::{Document, Simulation};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: wb_series SCENARIO.toml [VARIANT [KEY=VALUE ...]]");
        std::process::exit(2);
    };
    let variant = args.next().filter(|v| v != "default");
    let sets: Vec<String> = args.collect();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("wb_series: cannot read {path}: {e}");
        std::process::exit(1);
    });
    let doc = Document::from_toml(&path, &text).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1);
    });
    let scn = doc.resolve(variant.as_deref(), &sets).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1);
    });
    let mut sim = Simulation::new(&scn);
    let mut next = 0;
    while sim.step() {
        let k = &sim.kernel;
        if k.now < next {
            continue;
        }
        next = k.now + 50_000_000;
        let (step, bg) = k.devices.first().map_or((0, 0), |d| (d.wbt.scale_step, d.wbt.wb_background));
        println!(
            "{:.3} dirty_kB={} writeback_kB={} wbt_step={} wb_background={} flusher_held_until={:.3}",
            k.now as f64 / 1e9,
            k.vmstat.nr_dirty * 4,
            k.vmstat.nr_writeback * 4,
            step,
            bg,
            k.flusher.until as f64 / 1e9
        );
    }
}
