//! Engine-only speed of a trace task: N synthetic 4 KiB reads from chunks in memory, in a 256M
//! memcg: 90% read a hot 64 MiB file front to back over and over (hits once read), 10% read a
//! random page of a cold 1 GiB file (mostly misses, and reclaim) — memtwin.replaybench's trace. `cargo run --release --example
//! replay_speed -- N`. `memtwin bench --replay` measures the whole path (file, zstd, binding).
use memtwin_engine::scenario::model::TraceHeader;
use memtwin_engine::trace::{VecChunks, EVENT_SIZE};
use memtwin_engine::{Document, Simulation};

fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1_000_000);
    let text = r#"
[scenario]
name = "replay-speed"
[machine]
ram = "4G"
cpus = 2
[kernel]
profile = "linux-6.1"
cgroup = "v1"
[devices.sda]
read_bw = 500000000
seek = "100us"
[cgroups.ct]
"memory.limit_in_bytes" = "256M"
[tasks.t]
cgroup = "ct"
trace = "synthetic"
time_scale = 0
"#;
    let doc = Document::from_toml("speed.toml", text).unwrap();
    let h = TraceHeader { files: vec![("/bench/hot".into(), 64 << 20), ("/bench/cold".into(), 1 << 30)], events: n, resident: vec![], start_caches: vec![] };
    let scn = doc.resolve_with_traces(None, &[], &[("synthetic".into(), h)]).unwrap();
    let mut x: u64 = 1;
    let mut chunks = vec![];
    let mut buf = Vec::with_capacity(65536 * EVENT_SIZE);
    let mut hot = 0u64;
    let hot_pct: u64 = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(90);
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let (file, page) = if x % 100 < hot_pct {
            hot += 1;
            (0u16, (hot - 1) % 16384)
        } else {
            (1u16, (x >> 8) % 262144)
        };
        buf.extend_from_slice(&(i * 1000).to_le_bytes());
        buf.extend_from_slice(&(page * 4096).to_le_bytes());
        buf.extend_from_slice(&4096u64.to_le_bytes());
        buf.extend_from_slice(&1u32.to_le_bytes());
        buf.extend_from_slice(&file.to_le_bytes());
        buf.push(3);
        buf.push(0);
        if buf.len() == 65536 * EVENT_SIZE {
            chunks.push(std::mem::take(&mut buf));
        }
    }
    if !buf.is_empty() {
        chunks.push(buf);
    }
    let mut sim = Simulation::new(&scn);
    sim.attach_trace(0, Box::new(VecChunks::new(chunks)));
    let t0 = std::time::Instant::now();
    let r = sim.run_traced(&mut |_, _| true).unwrap();
    let s = t0.elapsed().as_secs_f64();
    println!("{} events in {:.3} s: {:.2} M events/s ({} page events)", r.traces[0].events, s, r.traces[0].events as f64 / s / 1e6, r.engine.page_events);
}
