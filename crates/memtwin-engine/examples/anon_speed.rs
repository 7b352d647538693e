//! Engine-only speed of `memtwin bench`'s (d), the page allocator: first-touch anonymous faults
//! and munmap on a 2-node 8G machine with a 1G DMA32 zone under linux-4.3 (mmap SIZE, touch every
//! page, munmap, ROUNDS times), THP "never" (base pages: every page a fault through the zonelist
//! and the pageblock buddy) or "always". `cargo run --release --example anon_speed -- [SIZE
//! [ROUNDS [THP]]]` (defaults "1G", 8, "never": the bench's scenario; the callgrind measurements in
//! BENCHMARKS.md use "256M" with 4 rounds minus 2). Prints the page events and their rate, without and with Simulation::new (examples/common).
mod common;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let size = args.get(1).cloned().unwrap_or_else(|| "1G".into());
    let rounds: usize = args.get(2).map(|s| s.parse().expect("ROUNDS is a number of rounds, e.g. 8")).unwrap_or(8);
    let thp = args.get(3).cloned().unwrap_or_else(|| "never".into());
    let ops: Vec<String> = (0..rounds)
        .map(|_| {
            format!(
                r#"  {{ op = "mmap", name = "m", size = "{size}", step = "fault" }},
  {{ op = "touch", name = "m", step = "fault" }},
  {{ op = "munmap", name = "m", step = "fault" }},"#
            )
        })
        .collect();
    common::run_ops(
        "anon-speed.toml",
        &format!(
            r#"
[scenario]
name = "bench-anon"
[machine]
ram = "8G"
cpus = 2
nodes = 2
dma32 = "1G"
[kernel]
profile = "linux-4.3"
thp = "{thp}"
[tasks.t]
ops = [
{{ops}}
]
[report]
sample_interval = "10s"
"#
        ),
        &ops,
    );
}
