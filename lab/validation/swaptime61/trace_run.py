"""swaptime61: trace one `memtwin real --on host` run of host-thpswap-retouch with tracefs (block layer
on every device, vmscan, folio_wait_writeback), THP enabled=always for the run (put back after).
Run from the worktree's top inside both locks:
    flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock python3 lab/validation/swaptime61/trace_run.py OUTDIR TAG
Writes OUTDIR/TAG.trace (raw trace_pipe text, trace_clock mono), OUTDIR/TAG.json (the run's result) and
OUTDIR/TAG.log (loadavg at start/end, events lost)."""
import os, subprocess, sys, tempfile, time
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from tracefs_instance import recording, events_lost  # noqa: E402

out, tag = sys.argv[1], sys.argv[2]
scen = sys.argv[3] if len(sys.argv) > 3 else "scenarios/validation-pending/host-thpswap-retouch.toml"
os.makedirs(out, exist_ok=True)
EV = {e: None for e in (
    "block/block_bio_queue", "block/block_rq_insert", "block/block_rq_issue", "block/block_rq_complete",
    "block/block_plug", "block/block_unplug", "block/block_bio_complete",
    "vmscan/mm_vmscan_memcg_reclaim_begin", "vmscan/mm_vmscan_memcg_reclaim_end",
    "vmscan/mm_vmscan_lru_isolate", "vmscan/mm_vmscan_lru_shrink_inactive", "vmscan/mm_vmscan_lru_shrink_active",
    "vmscan/mm_vmscan_write_folio", "vmscan/mm_vmscan_throttled", "writeback/folio_wait_writeback")}
T = "/sys/kernel/mm/transparent_hugepage/enabled"
old = open(T).read().split("[")[1].split("]")[0]
log = open(os.path.join(out, tag + ".log"), "w")
def say(s):
    print(s); log.write(s + "\n"); log.flush()
work = tempfile.mkdtemp(prefix="swaptime61-")
try:
    with open(T, "w") as f:
        f.write("always")
    say(f"start {time.strftime('%H:%M:%S', time.gmtime())} UTC thp {open(T).read().strip()} loadavg {open('/proc/loadavg').read().strip()}")
    with recording(work, "swaptime61", EV, os.path.join(out, tag + ".trace"), 65536, tool="swaptime61") as inst:
        with open(os.path.join(inst, "trace_clock"), "w") as f:
            f.write("mono")
        say(f"mono at start {time.monotonic():.6f}")
        env = dict(os.environ, PYTHONPATH=os.path.join(os.getcwd(), "python"))
        r = subprocess.run([sys.executable, "-m", "memtwin.cli", "real", scen, "--on", "host", "--json", os.path.join(out, tag + ".json")], env=env)
        say(f"mono at end {time.monotonic():.6f} rc {r.returncode} events lost {events_lost(inst)}")
    say(f"end {time.strftime('%H:%M:%S', time.gmtime())} UTC loadavg {open('/proc/loadavg').read().strip()}")
finally:
    with open(T, "w") as f:
        f.write(old)
    say(f"thp restored to {open(T).read().strip()}")
    if os.path.isdir(os.path.join(work, "tracefs")) and not os.path.ismount(os.path.join(work, "tracefs")):
        os.rmdir(os.path.join(work, "tracefs"))
    os.rmdir(work) if os.path.isdir(work) and not os.listdir(work) else say(f"left {work}: {os.listdir(work)}")
