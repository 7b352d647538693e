//! Engine-only speed of `memtwin bench`'s (b), constant memcg-limit reclaim: a file read
//! sequentially (128K reads, FADV_SEQUENTIAL) three times by a task in a 20M cgroup-v2 memcg
//! under linux-6.6, so every page is a miss that charges, reclaims and evicts.
//! `cargo run --release --example reclaim_speed -- SIZE` (default "1G"; the callgrind
//! measurements in BENCHMARKS.md use "256M"). Prints the page events, the pages reclaimed
//! and the rate of the run (Simulation::new excluded from the time).
use memtwin_engine::{Document, Simulation};

fn main() {
    let size = std::env::args().nth(1).unwrap_or_else(|| "1G".into());
    let text = format!(
        r#"
[scenario]
name = "bench-reclaim"
[machine]
ram = "16G"
cpus = 2
[kernel]
profile = "linux-6.6"
cgroup = "v2"
[devices.sda]
read_bw = "10G"
read_ahead_kb = 128
[files."/f"]
size = "{size}"
[cgroups.ct]
"memory.max" = "20M"
[tasks.t]
cgroup = "ct"
ops = [
  {{ op = "read", file = "/f", bufsize = "128K", fadvise = "sequential", step = "read 1" }},
  {{ op = "read", file = "/f", bufsize = "128K", fadvise = "sequential", step = "read 2" }},
  {{ op = "read", file = "/f", bufsize = "128K", fadvise = "sequential", step = "read 3" }},
]
[report]
sample_interval = "10s"
"#
    );
    let doc = Document::from_toml("reclaim-speed.toml", &text).unwrap();
    let scn = doc.resolve(None, &[]).unwrap();
    let sim = Simulation::new(&scn);
    let t0 = std::time::Instant::now();
    let r = sim.run(&mut |_, _| true).unwrap();
    let s = t0.elapsed().as_secs_f64();
    println!("{} page events in {:.3} s: {:.2} M page events/s", r.engine.page_events, s, r.engine.page_events as f64 / s / 1e6);
}
