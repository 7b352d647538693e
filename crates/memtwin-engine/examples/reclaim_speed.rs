//! Engine-only speed of `memtwin bench`'s (b), constant memcg-limit reclaim: a file read
//! sequentially (128K reads, FADV_SEQUENTIAL) three times by a task in a 20M cgroup-v2 memcg
//! under linux-6.6, so every page is a miss that charges, reclaims and evicts.
//! `cargo run --release --example reclaim_speed -- [SIZE [LIMIT [READS [lru_gen]]]]` (defaults
//! "1G", "20M", 3; the callgrind measurements in BENCHMARKS.md use "256M" and "512M", and
//! "256M max 1" / "256M max 3" for (a)'s hit path: the rereads of a file that stays cached).
//! A fourth argument `lru_gen` turns on `kernel.lru_gen`, as bench.py's (a-lru_gen)/(b-lru_gen).
//! Prints the page events and their rate, without and with Simulation::new (examples/common).
mod common;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let size = args.get(1).cloned().unwrap_or_else(|| "1G".into());
    let limit = args.get(2).cloned().unwrap_or_else(|| "20M".into());
    let reads: usize = args.get(3).map(|s| s.parse().expect("READS is a number of reads, e.g. 3")).unwrap_or(3);
    let lru_gen = match args.get(4).map(String::as_str) {
        None => "",
        Some("lru_gen") => "lru_gen = true\n",
        Some(other) => panic!("the fourth argument is `lru_gen` or nothing, not {other:?}"),
    };
    let ops: Vec<String> = (1..=reads).map(|i| format!(r#"  {{ op = "read", file = "/f", bufsize = "128K", fadvise = "sequential", step = "read {i}" }},"#)).collect();
    common::run_ops(
        "reclaim-speed.toml",
        &format!(
            r#"
[scenario]
name = "bench-reclaim"
[machine]
ram = "16G"
cpus = 2
[kernel]
profile = "linux-6.6"
cgroup = "v2"
{lru_gen}[devices.sda]
read_bw = "10G"
read_ahead_kb = 128
[files."/f"]
size = "{size}"
[cgroups.ct]
"memory.max" = "{limit}"
[tasks.t]
cgroup = "ct"
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
