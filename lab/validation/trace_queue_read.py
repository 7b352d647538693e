#!/usr/bin/env python3
"""Trace a cold sequential read on the host runner's loop device (issue 23, blkdev.rs HwQueue),
and summarize where its time goes.

    flock /tmp/memtwin-host.lock python3 lab/validation/trace_queue_read.py record SCENARIO OUTDIR [--fifo]
    python3 lab/validation/trace_queue_read.py summary OUTDIR/trace.txt

`record` (root) mounts tracefs if needed, runs lab/validation/trace_queue_read.bt with bpftrace beside
`memtwin real SCENARIO --on host --variant all --json OUTDIR/run.json`, writes the events to
OUTDIR/trace.txt and /proc/loadavg before and after to OUTDIR/load.txt; bpftrace is stopped and
tracefs unmounted whatever happens. `--fifo` runs the runner (and the tasks it starts, which inherit
it) at SCHED_FIFO 50 (`chrt -f 50`) so that on a loaded host the reader's wake-ups do not wait for
the CPU (the loop device's worker and the disk below are not raised).

`summary` prints, per run of read() calls of one size: the read()s' total time, the readahead
calls (sync/async: index, size, async_size, order), the loop device's requests (size, how many
in flight at each issue, time from issue to completion), the requests below it on /dev/vda, and
the time the reader spent in read() waiting with no request of the loop device in flight.
"""
import collections
import os
import subprocess
import sys
import time

from tracefs_instance import stop_bpftrace

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TRACEFS = "/sys/kernel/tracing"


def record(scenario: str, outdir: str, fifo: bool = False) -> None:
    if os.geteuid() != 0:
        sys.exit("trace_queue_read: record runs as root (bpftrace, memtwin real --on host)")
    if not os.path.isfile(scenario):
        sys.exit(f"trace_queue_read: {scenario}: no such file\n  fix: give a scenario file (TOML)")
    os.makedirs(outdir, exist_ok=True)
    mounted = not os.path.exists(os.path.join(TRACEFS, "events"))
    if mounted:
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], check=True, timeout=30)
    bp = None
    try:
        with open(os.path.join(outdir, "trace.txt"), "w") as out, open(os.path.join(outdir, "bpftrace.err"), "w") as err:
            bp = subprocess.Popen(["bpftrace", "-q", os.path.join(ROOT, "lab", "validation", "trace_queue_read.bt")], stdout=out, stderr=err)
            time.sleep(8)  # the probes attach
            if bp.poll() is not None:
                sys.exit(f"trace_queue_read: bpftrace ended (exit {bp.returncode}), see {outdir}/bpftrace.err")
            with open(os.path.join(outdir, "load.txt"), "w") as f:
                f.write(open("/proc/loadavg").read())
            r = subprocess.run((["chrt", "-f", "50"] if fifo else []) + [sys.executable, "-m", "memtwin.cli", "real", scenario, "--on", "host", "--variant", "all",
                                "--json", os.path.join(outdir, "run.json")], env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")),
                               timeout=1800)
            with open(os.path.join(outdir, "load.txt"), "a") as f:
                f.write(open("/proc/loadavg").read())
            if r.returncode != 0:
                sys.exit(f"trace_queue_read: memtwin real failed (exit {r.returncode})")
    finally:
        stop_bpftrace(bp)
        if mounted:
            subprocess.run(["umount", TRACEFS], timeout=30)


def summary(path: str) -> None:
    try:
        with open(path) as f:
            ev = [w for w in (line.split() for line in f) if w and w[0] in ("RV", "SR", "AR", "RO", "FA", "BQ", "SP", "UP", "BI", "BC")]
    except (OSError, UnicodeDecodeError) as e:
        sys.exit(f"trace_queue_read: {path}: {e}\n  fix: give the trace.txt that `record` wrote")
    t_of = lambda w: int(w[2]) if w[0] in ("RV", "BI", "BC") else int(w[1])
    ev.sort(key=t_of)
    # the reader's readv() calls: (entry, exit, bytes), in runs of one size
    calls = [(int(w[2]), int(w[3]), int(w[4]), int(w[4])) for w in ev if w[0] == "RV"]
    if not calls:
        sys.exit(f"trace_queue_read: {path}: no readv() of 128 KiB or more (RV lines)\n  fix: record a scenario whose read ops use bufsize 128K or more")
    runs = []
    for c in calls:
        if runs and runs[-1][-1][2] == c[2] and c[0] - runs[-1][-1][1] < 50e6:
            runs[-1].append(c)
        else:
            runs.append([c])
    for run in runs:
        if len(run) < 16:
            continue
        a, b = run[0][0], run[-1][1]
        got = sum(c[3] for c in run if c[3] > 0)
        print(f"== read() of {run[0][2] >> 10} KiB: {len(run)} calls, {got / 2**20:.0f} MiB in {(b - a) / 1e9:.3f} s "
              f"({got / (b - a):.2f} GB/s); in read(): {sum(c[1] - c[0] for c in run) / 1e9:.3f} s")
        d = sorted(c[1] - c[0] for c in run)
        gaps = sorted(n[0] - c[1] for c, n in zip(run, run[1:]))
        print(f"   readv() us p10/p50/p90/max {d[len(d) // 10] / 1e3:.0f}/{d[len(d) // 2] / 1e3:.0f}/{d[9 * len(d) // 10] / 1e3:.0f}/{d[-1] / 1e3:.0f}; "
              f"between calls p50 {gaps[len(gaps) // 2] / 1e3:.1f} us")
        win = [w for w in ev if a <= t_of(w) <= b + 5e6]
        ra = [w for w in win if w[0] in ("SR", "AR")]
        print(f"   readahead calls: {collections.Counter(w[0] for w in ra)}; first 6: " +
              "; ".join(f"{w[0]} idx {w[2]} req {w[3]} ord {w[4]} size {w[5]} async {w[6]}" for w in ra[:6]))
        print(f"   ra_order: {collections.Counter((w[3], w[4], w[5]) for w in win if w[0] == 'RO').most_common(5)} (order,size,async)")
        print(f"   folio orders added: {sorted(collections.Counter(int(w[3]) for w in win if w[0] == 'FA').items())}")
        bq = [w for w in win if w[0] == "BQ" and "R" in w[4]]
        print(f"   bios to loop: {len(bq)}, sizes KiB {collections.Counter(int(w[3]) // 2 for w in bq).most_common(4)}; splits {sum(1 for w in win if w[0] == 'SP')}")
        print(f"   unplugs: {collections.Counter(int(w[2]) for w in win if w[0] == 'UP' and 'memtwin' not in w[3]).most_common(6)} (nr_rq: count)")
        for major in ("7", "254"):
            rq = [w for w in win if w[0] in ("BI", "BC") and w[1] == major and "R" in w[5]]
            issued, lat, inflight, sizes = {}, [], [], collections.Counter()
            for w in rq:
                t, sec, n = int(w[2]), int(w[3]), int(w[4])
                if w[0] == "BI":
                    inflight.append(len(issued))
                    issued[sec] = t
                    sizes[n // 2] += 1
                elif sec in issued:
                    lat.append(t - issued.pop(sec))
            if not lat:
                continue
            lat.sort()
            q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))] / 1e3
            print(f"   dev {major}: {len(lat)} requests, KiB {sizes.most_common(3)}; issue->complete us p10 {q(.1):.0f} p50 {q(.5):.0f} p90 {q(.9):.0f}; "
                  f"in flight at issue {sorted(collections.Counter(inflight).items())[:8]}")
        # time with no loop request in flight, while the reader is in read()
        busy = []
        issued = {}
        for w in win:
            if w[0] in ("BI", "BC") and w[1] == "7" and "R" in w[5]:
                if w[0] == "BI":
                    issued[w[3]] = int(w[2])
                elif w[3] in issued:
                    busy.append((issued.pop(w[3]), int(w[2])))
        busy.sort()
        merged = []
        for s, e in busy:
            if merged and s <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        dev_busy = sum(e - s for s, e in merged)
        print(f"   loop device busy (>=1 read in flight): {dev_busy / 1e9:.3f} s of {(b - a) / 1e9:.3f} s; {len(merged)} busy periods")
        # per-window timeline of the first few windows
        tl = [w for w in win if w[0] in ("SR", "AR", "BI", "BC") and (w[0] not in ("BI", "BC") or w[1] == "7")]
        print("   first events (ms since the first read):")
        for w in tl[:40]:
            print(f"     {(t_of(w) - a) / 1e6:8.3f} {' '.join(w[:2] if w[0] in ('BI', 'BC') else w[:1])} {' '.join(w[3:6] if w[0] in ('BI', 'BC') else w[2:7])}")


if __name__ == "__main__":
    if len(sys.argv) in (4, 5) and sys.argv[1] == "record" and sys.argv[4:] in ([], ["--fifo"]):
        record(sys.argv[2], sys.argv[3], fifo=sys.argv[4:] == ["--fifo"])
    elif len(sys.argv) == 3 and sys.argv[1] == "summary":
        summary(sys.argv[2])
    else:
        sys.exit(__doc__)
