//! The engine's `writeback:balance_dirty_pages` events of a scenario, one line each in the
//! tracepoint's format (page_writeback.rs `BdpEvent`), to put beside the kernel's
//! (`lab/validation/trace_bdp.py SCENARIO --json OUT --raw RAW`):
//! `cargo run --release --example bdp_trace -- SCENARIO.toml [VARIANT] > engine.txt`.
//! The timestamp is the engine's clock in seconds.
use memtwin_engine::{Document, Simulation};
use std::io::Write;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: bdp_trace SCENARIO.toml [VARIANT]");
        std::process::exit(2);
    };
    let variant = args.next();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("bdp_trace: cannot read {path}: {e}");
        std::process::exit(1);
    });
    let doc = Document::from_toml(&path, &text).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1);
    });
    let scn = doc.resolve(variant.as_deref(), &[]).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1);
    });
    let mut sim = Simulation::new(&scn);
    sim.kernel.bdp_log = Some(Vec::new());
    while sim.step() {}
    let out = std::io::stdout();
    let mut out = out.lock();
    for e in sim.kernel.bdp_log.as_deref().unwrap_or_default() {
        writeln!(
            out,
            "engine {:.6}: balance_dirty_pages: bdi engine: limit={} setpoint={} dirty={} wb_setpoint={} wb_dirty={} dirty_ratelimit={} task_ratelimit={} dirtied={} dirtied_pause={} paused={} pause={} period={} think={}",
            e.time as f64 / 1e9,
            e.limit,
            e.setpoint,
            e.dirty,
            e.wb_setpoint,
            e.wb_dirty,
            e.dirty_ratelimit,
            e.task_ratelimit,
            e.dirtied,
            e.dirtied_pause,
            e.paused,
            e.pause,
            e.period,
            e.think
        )
        .unwrap();
    }
}
