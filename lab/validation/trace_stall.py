#!/usr/bin/env python3
"""Trace where a latency probe's long rounds go on this host (issue 23), and summarize.

    flock /tmp/memtwin-host.lock python3 lab/validation/trace_stall.py record SCENARIO OUTDIR
    python3 lab/validation/trace_stall.py summary OUTDIR/trace.txt

`record` (root) mounts tracefs on /sys/kernel/tracing (bpftrace 0.17 reads the tracepoints' formats
there), runs lab/validation/trace_stall.bt with bpftrace beside `memtwin real SCENARIO --on host
--variant all --json OUTDIR/run.json` (the runner at nice -19), and writes the events to
OUTDIR/trace.txt and /proc/loadavg before and after to OUTDIR/load.txt; bpftrace is stopped and
tracefs unmounted whatever happens. This host's kernel has no kprobes (no kprobe_events, no
kfunc), so everything comes from tracepoints.

`summary` prints, from such a trace: the probe's long rounds (> 50 ms); the bursts in which the
loop device's write requests were issued (blk-throttle's dispatch: requests issued within 20 ms
of each other form one burst: its size, the gap since the one before, how long it took to
complete); what the probe faulted and the copy wrote between one burst and the next; and for every folio_wait_writeback() in reclaim, how long it lasted and where the
folio stood in the device's write stream when the wait began (MiB between the end of the last
completed write and the folio's block, from ext4's block mapping): 0 means the folio was the
next to reach the disk.

`summary` also lists the memcg statistics flushes (FS lines) when the trace has them.

Findings (2026-11-28, host-stall-cp4x-p16m): scenarios/validation/host-stall-cp4x-p16m.toml's
[[validation.known_out]] (make_stall_scenarios.py TAIL).
"""
import bisect
import collections
import os
import signal
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TRACEFS = "/sys/kernel/tracing"


def probe_size(scenario: str) -> int:
    """The byte size of the scenario's mmap_probe op (the probe's mmap length, which the trace
    recognizes its rounds by)."""
    import tomllib

    from memtwin.measure import MeasureError, parse_size

    try:
        with open(scenario, "rb") as f:
            doc = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        sys.exit(f"trace_stall: {scenario}: {e}\n  fix: give a scenario file (TOML) with an mmap_probe op")
    sizes = [op.get("size") for t in doc.get("tasks", {}).values() if isinstance(t, dict)
             for op in t.get("ops", []) if isinstance(op, dict) and op.get("op") == "mmap_probe"]
    if len(sizes) != 1 or not isinstance(sizes[0], (str, int)):
        sys.exit(f"trace_stall: {scenario}: {len(sizes)} mmap_probe ops with a size\n  fix: trace a scenario with one latency probe")
    try:
        return sizes[0] if isinstance(sizes[0], int) else parse_size(sizes[0])
    except MeasureError:
        sys.exit(f"trace_stall: {scenario}: the probe's size {sizes[0]!r} is not a size\n  fix: write it as 16M")


def record(scenario: str, outdir: str) -> None:
    if os.geteuid() != 0:
        sys.exit("trace_stall: record runs as root (bpftrace, memtwin real --on host)")
    size = probe_size(scenario)
    os.makedirs(outdir, exist_ok=True)
    mounted = not os.path.exists(os.path.join(TRACEFS, "events"))
    if mounted:
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], check=True)
    bp = None
    try:
        with open(os.path.join(outdir, "trace.txt"), "w") as out, open(os.path.join(outdir, "bpftrace.err"), "w") as err:
            bp = subprocess.Popen(["bpftrace", "-q", os.path.join(ROOT, "lab", "validation", "trace_stall.bt"), str(size)], stdout=out, stderr=err,
                                  env=dict(os.environ, BPFTRACE_MAP_KEYS_MAX="65536"))
            time.sleep(8)  # the probes attach
            if bp.poll() is not None:
                sys.exit(f"trace_stall: bpftrace ended (exit {bp.returncode}), see {outdir}/bpftrace.err")
            with open(os.path.join(outdir, "load.txt"), "w") as f:
                f.write(open("/proc/loadavg").read())
            r = subprocess.run(["nice", "-n", "-19", sys.executable, "-m", "memtwin.cli", "real", scenario, "--on", "host", "--variant", "all",
                                "--json", os.path.join(outdir, "run.json")], env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
            with open(os.path.join(outdir, "load.txt"), "a") as f:
                f.write(open("/proc/loadavg").read())
            if r.returncode != 0:
                sys.exit(f"trace_stall: memtwin real failed (exit {r.returncode})")
    finally:
        if bp is not None and bp.poll() is None:
            bp.send_signal(signal.SIGINT)
            bp.wait()
        if mounted:
            subprocess.run(["umount", TRACEFS])


def summary(path: str) -> None:
    try:
        with open(path) as f:
            ev = [w for w in (line.split() for line in f) if w and not w[0].startswith("@") and w[0] != "Lost"]
    except (OSError, UnicodeDecodeError) as e:
        sys.exit(f"trace_stall: {path}: {e}\n  fix: give the trace.txt that `record` wrote")
    rounds0 = collections.Counter(int(w[1]) for w in ev if w[0] == "R0" and len(w) >= 3)
    if not rounds0:
        sys.exit(f"trace_stall: {path}: no probe round (R0 lines) in it\n  fix: give the trace.txt of a `record` run of a scenario with a latency probe")
    probe = rounds0.most_common(1)[0][0]
    rounds, t0 = [], None
    for w in ev:
        if w[0] == "R0" and int(w[1]) == probe:
            t0 = int(w[2])
        elif w[0] == "R1" and int(w[1]) == probe and t0:
            rounds.append((t0, int(w[2])))
            t0 = None
    if not rounds:
        sys.exit(f"trace_stall: {path}: the probe's rounds never ended (no R1 line)\n  fix: record the run again")
    T0 = rounds[0][0]
    print(f"probe {probe}: {len(rounds)} rounds; over 50 ms (start s, ms):",
          [(round((a - T0) / 1e9, 2), round((b - a) / 1e6)) for a, b in rounds if b - a > 50e6])
    writes = sorted((int(w[1]), w[0], int(w[2]), int(w[3])) for w in ev if w[0] in ("BI", "BC") and "W" in w[4])
    bursts, cur, issued = [], None, {}
    for t, kind, sector, n in writes:
        if kind == "BI":
            if cur is None or t - cur["last"] > 20e6:
                cur = {"t0": t, "last": t, "bytes": 0, "done": t}
                bursts.append(cur)
            cur["last"] = t
            cur["bytes"] += n * 512
            issued[sector] = cur
        elif sector in issued:
            issued[sector]["done"] = max(issued[sector]["done"], t)
    print("write bursts (start s, MiB, gap ms, completed within ms):")
    prev = None
    for b in bursts:
        print(f"  {(b['t0'] - T0) / 1e9:7.3f} {b['bytes'] / 2**20:7.2f} {(b['t0'] - prev) / 1e6 if prev else 0:7.1f} {(b['done'] - b['t0']) / 1e6:6.1f}")
        prev = b["t0"]
    # What each task took between one burst and the next (PF lines, every 5 ms): the probe's
    # faults (4 KiB each) and the copy's pwrite64() bytes, over the bursts 80-150 ms apart.
    pf = [(int(w[1]), int(w[2]), int(w[3])) for w in ev if w[0] == "PF" and len(w) >= 4]
    starts = [b["t0"] for b in bursts]
    if pf and len(starts) > 1:
        per = collections.defaultdict(lambda: [0, 0])
        for t, p, c in pf:
            k = bisect.bisect_right(starts, t) - 1
            if 0 <= k < len(starts) - 1 and 80e6 <= starts[k + 1] - starts[k] <= 150e6:
                per[k][0] += p * 4096
                per[k][1] += c
        if per:
            tp, tc = sum(v[0] for v in per.values()), sum(v[1] for v in per.values())
            print(f"between bursts ({len(per)} slices): the probe faulted {tp / 2**20:.1f} MiB, the copy wrote {tc / 2**20:.1f} MiB"
                  f" (the probe's share {tp / max(tp + tc, 1):.2f}); per slice (start s, probe MiB, copy MiB):")
            for k in sorted(per):
                print(f"  {(starts[k] - T0) / 1e9:7.3f} {per[k][0] / 2**20:6.2f} {per[k][1] / 2**20:6.2f}")
    # memcg statistics flushes (FS lines, memcg:memcg_flush_stats): when the rstat copy that
    # 6.12+'s reclaim reads was refreshed, and by whom (the periodic kworker's are force=1).
    fs = [(int(w[2]), int(w[3]), int(w[4]), w[5], w[6], w[7] if len(w) > 7 else "?") for w in ev if w[0] == "FS" and len(w) >= 7]
    if fs:
        print("memcg stats flushes (s from the first round, memcg id, stats_updates, force, needs_flush, by):")
        for t, mid, upd, force, need, comm in fs:
            print(f"  {(t - T0) / 1e9:7.3f} {mid:>8} {upd:>6} {force} {need} {comm}")
    # The file whose pages the flusher writes: the inode of most ext4_writepages() calls.
    xw = collections.Counter(w[3] for w in ev if w[0] == "XW")
    if not xw:
        print("no ext4_writepages() on the loop devices: nothing was written back")
        return
    dst = xw.most_common(1)[0][0]
    ext = sorted((int(w[3]), int(w[4]), int(w[5])) for w in ev if w[0] == "MB" and w[2] == dst and int(w[5]) > 0)
    done = [(t, s + n) for t, k, s, n in writes if k == "BC"]
    done_t = [t for t, _ in done]
    print("folio_wait_writeback in reclaim (task, start s, ms, MiB ahead of the disk):")
    for w in ev:
        if w[0] != "FW":
            continue
        tid, t, d, idx = int(w[1]), int(w[2]), int(w[3]), int(w[4])
        pblk = next((p + idx - lb for lb, p, n in ext if lb <= idx < lb + n), None)
        k = bisect.bisect_left(done_t, t) - 1
        ahead = "?" if pblk is None or k < 0 else f"{(pblk * 8 - done[k][1]) / 2048:.1f}"
        print(f"  {'probe' if tid == probe else tid:>6} {(t - T0) / 1e9:7.3f} {d / 1e6:6.1f} {ahead}")


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(ROOT, "python"))
    for s in (signal.SIGINT, signal.SIGTERM):  # sys.exit runs record()'s finally: bpftrace stopped, tracefs unmounted
        signal.signal(s, lambda signum, _f: sys.exit(f"trace_stall: {signal.Signals(signum).name}; cleaned up"))
    if len(sys.argv) == 4 and sys.argv[1] == "record":
        record(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "summary":
        summary(sys.argv[2])
    else:
        sys.exit(__doc__)
