#!/usr/bin/env python3
"""Where a major fault's time goes on the host runner's loop device (issue 20: host-ext4-mmap-db's
lookup step takes 4.5 ms a major fault on the host, 0.2 ms in the engine).

    flock /tmp/memtwin-host.lock python3 lab/validation/trace_mmap_fault.py record SCENARIO OUTDIR [--fifo]
    python3 lab/validation/trace_mmap_fault.py summary OUTDIR/trace.txt

`record` (root) runs lab/validation/trace_mmap_fault.bt with bpftrace beside
`memtwin real SCENARIO --on host --variant all --json OUTDIR/run.json`, writes the events to
OUTDIR/trace.txt and /proc/loadavg before and after to OUTDIR/load.txt (tracefs mounted if it was
not, and unmounted again; bpftrace stopped whatever happens). A run longer than RUN_TIMEOUT is
stopped with SIGTERM (memtwin real then removes what it set up), killed 120 s later if still
there, with a non-zero exit saying so (then run `memtwin lab clean`). `--fifo` runs the runner (and the
tasks it starts, which inherit it) at SCHED_FIFO 50 (`chrt -f 50`): its task then does not wait
for a CPU behind the host's other processes (the loop device's worker still does).

`summary` splits the traced task's time into: on the CPU, asleep (D or S) until woken, woken but
waiting for a CPU, and preempted (runnable, not running); and the I/O below it: the loop device's
requests (issue to completion), the bios the loop worker sends to /dev/vda (the loop request's
issue to the vda bio's submission: the worker's wait for a CPU), vda's requests (issue to
completion), and whether the loop bios passed blk-throttle at once (submitted by the task) or
were dispatched later (by a kworker).
"""
import bisect
import collections
import os
import shutil
import signal
import subprocess
import sys
import time

from tracefs_instance import stop_bpftrace

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TRACEFS = "/sys/kernel/tracing"
RUN_TIMEOUT = 1800  # s: memtwin real's run of the scenario under tracing (the traced 52 s lookup: loop-device.md)


def record(scenario: str, outdir: str, fifo: bool = False) -> None:
    if os.geteuid() != 0:
        sys.exit("trace_mmap_fault: record runs as root (bpftrace, memtwin real --on host)")
    if not os.path.isfile(scenario):
        sys.exit(f"trace_mmap_fault: {scenario}: no such file\n  fix: give a scenario file (TOML)")
    for tool in ["bpftrace", "mount", "umount"] + (["chrt"] if fifo else []):
        if shutil.which(tool) is None:
            sys.exit(f"trace_mmap_fault: {tool}: not found on PATH\n  fix: install it (apt-get install "
                     f"{'bpftrace' if tool == 'bpftrace' else 'util-linux'}) or put it on PATH")
    try:
        os.makedirs(outdir, exist_ok=True)
    except OSError as e:
        sys.exit(f"trace_mmap_fault: {outdir}: {e}\n  fix: give a directory this user can create and write")
    mounted = not os.path.exists(os.path.join(TRACEFS, "events"))
    if mounted:
        m = subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], timeout=30)
        if m.returncode != 0:
            sys.exit(f"trace_mmap_fault: mount -t tracefs nodev {TRACEFS} failed (exit {m.returncode})\n"
                     "  fix: mount tracefs there by hand, or use a kernel built with CONFIG_TRACING")
    bp = None
    try:
        with open(os.path.join(outdir, "trace.txt"), "w") as out, open(os.path.join(outdir, "bpftrace.err"), "w") as err:
            bp = subprocess.Popen(["bpftrace", "-q", os.path.join(ROOT, "lab", "validation", "trace_mmap_fault.bt")],
                                  stdout=out, stderr=err)
            time.sleep(8)  # the probes attach
            if bp.poll() is not None:
                sys.exit(f"trace_mmap_fault: bpftrace ended (exit {bp.returncode}), see {outdir}/bpftrace.err")
            with open(os.path.join(outdir, "load.txt"), "w") as f:
                f.write(open("/proc/loadavg").read())
            run = subprocess.Popen((["chrt", "-f", "50"] if fifo else []) + [sys.executable, "-m", "memtwin.cli", "real", scenario, "--on", "host", "--variant", "all",
                                    "--json", os.path.join(outdir, "run.json")],
                                   env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
            try:
                rc = run.wait(timeout=RUN_TIMEOUT)
            except subprocess.TimeoutExpired:
                # SIGTERM: memtwin real stops as on Ctrl-C and removes its cgroups, mounts and loop device
                run.send_signal(signal.SIGTERM)
                try:
                    run.wait(timeout=120)
                    left = ""
                except subprocess.TimeoutExpired:
                    run.kill()
                    run.wait(timeout=30)
                    left = ("; it did not stop within 120 s of SIGTERM and was killed, so its cgroups, mounts or "
                            "loop device may be left behind: run `memtwin lab clean` (as root)")
                sys.exit(f"trace_mmap_fault: memtwin real ran longer than {RUN_TIMEOUT} s and was stopped{left}\n"
                         "  fix: trace a shorter scenario, or record on a quieter host (`--fifo`)")
            with open(os.path.join(outdir, "load.txt"), "a") as f:
                f.write(open("/proc/loadavg").read())
            if rc != 0:
                sys.exit(f"trace_mmap_fault: memtwin real failed (exit {rc})")
    finally:
        stop_bpftrace(bp)
        if mounted:
            subprocess.run(["umount", TRACEFS], timeout=30)


def pct(xs, p):
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def line(name, xs, unit=1e3):
    """count, mean, p10/p50/p90 of `xs` (ns) in us."""
    if not xs:
        return f"{name}: none"
    return (f"{name}: n {len(xs)}, mean {sum(xs) / len(xs) / unit:.0f} us, p10/p50/p90 "
            f"{pct(xs, 10) / unit:.0f}/{pct(xs, 50) / unit:.0f}/{pct(xs, 90) / unit:.0f} us, total {sum(xs) / 1e9:.2f} s")


# trace_mmap_fault.bt's lines by kind: (fields at least, the indices of the integer ones summary reads)
FIELDS = {"T": (3, (1,)), "FA": (2, (1,)), "PF": (5, (1, 2, 4)), "BQ": (7, (1, 2, 3, 4)), "BI": (6, (1, 2, 3, 4)),
          "BC": (6, (1, 2, 3, 4)), "SW": (6, (1, 2, 3, 4, 5))}


def summary(path: str, t0=None, t1=None) -> None:
    try:
        with open(path) as f:
            ev = [w for w in (ln.split() for ln in f) if w and w[0] in ("T", "PF", "FA", "BQ", "BI", "BC", "SW")]
    except (OSError, UnicodeDecodeError) as e:
        sys.exit(f"trace_mmap_fault: {path}: {e}\n  fix: give the trace.txt that `record` wrote")
    for w in ev:  # each kind's fields as trace_mmap_fault.bt prints them: (how many, which are integers)
        n, ints = FIELDS[w[0]]
        if len(w) < n or not all(w[i].lstrip("-").isdigit() for i in ints):
            sys.exit(f"trace_mmap_fault: {path}: a malformed {w[0]} line: {' '.join(w)}\n"
                     "  fix: give the trace.txt that `record` wrote with lab/validation/trace_mmap_fault.bt")
    tids = {int(w[1]): w[2] for w in ev if w[0] == "T"}
    if not tids:
        sys.exit(f"trace_mmap_fault: {path}: no task added a folio of a loop-device file (T lines)\n"
                 "  fix: record a scenario that maps or reads a file on the runner's disk")
    # the task: the one with the most faults; its steps: runs of faults without a gap of 1 s (the
    # runner reads its memcg's folios between steps)
    nf = collections.Counter(int(w[1]) for w in ev if w[0] == "PF")
    if not nf:
        sys.exit(f"trace_mmap_fault: {path}: no user page fault of a traced task (PF lines)\n"
                 "  fix: record a scenario whose task faults on a mapping (e.g. host-ext4-mmap-db)")
    task = nf.most_common(1)[0][0]
    pts = [int(w[2]) for w in ev if w[0] == "PF" and int(w[1]) == task]
    if t0 is None:
        cut = [0] + [i + 1 for i in range(len(pts) - 1) if pts[i + 1] - pts[i] > 1e9] + [len(pts)]
        segs = [(pts[a], pts[b - 1]) for a, b in zip(cut, cut[1:]) if b - a > 100]
    else:
        segs = [(t0, t1)]
    print(f"tasks {tids}; the faulting task {task}")
    for lo, hi in segs:
        print(f"\n== {(hi - lo) / 1e9:.2f} s from {lo}")
        window(ev, task, lo, hi)


def window(ev, task, lo, hi):
    pf = [(int(w[2]), int(w[4])) for w in ev if w[0] == "PF" and int(w[1]) == task]
    fa = sorted(int(w[1]) for w in ev if w[0] == "FA")
    inwin = lambda t: lo <= t <= hi
    print(f"{sum(1 for t in fa if inwin(t))} folios added")
    faults = [t for t, _ in pf if inwin(t)]
    # a fault is major when a folio was added between it and the next fault
    major = []
    for i, t in enumerate(faults):
        nxt = faults[i + 1] if i + 1 < len(faults) else hi
        j = bisect.bisect_left(fa, t)
        if j < len(fa) and fa[j] < nxt:
            major.append((t, nxt))
    print(f"user faults {len(faults)}, with folios added (major) {len(major)}; time from a major fault to the "
          f"next fault: " + line("", [b - a for a, b in major]))
    # the task off the CPU
    sw = [(int(w[1]), int(w[2]), int(w[3]), int(w[4]), int(w[5])) for w in ev if w[0] == "SW"]
    sw = [s for s in sw if inwin(s[1]) and s[0] == task]
    sleep = [s for s in sw if s[4] != 0]
    pre = [s for s in sw if s[4] == 0]
    asleep = [(wk if wk else on) - off for _, off, wk, on, _ in sleep]
    runq = [on - wk for _, off, wk, on, _ in sleep if wk]
    prew = [on - off for _, off, _, on, _ in pre]
    off_total = sum(on - off for _, off, _, on, _ in sw)
    print(line("asleep (D/S) until woken", asleep))
    print(line("woken, waiting for a CPU", runq))
    print(line("preempted, waiting for a CPU", prew))
    print(f"on the CPU (window less time off it): {((hi - lo) - off_total) / 1e9:.2f} s")
    # the I/O
    for major_no, name in ((7, "loop"), (254, "vda")):
        iss = {}
        lat = []
        for w in ev:
            if w[0] in ("BI", "BC") and int(w[1]) == major_no and "R" in w[5]:
                t, key = int(w[2]), (int(w[3]), int(w[4]))
                if w[0] == "BI":
                    iss[key] = t
                elif key in iss:
                    if inwin(t):
                        lat.append(t - iss[key])
                    del iss[key]
        sizes = collections.Counter(int(w[4]) // 8 for w in ev if w[0] == "BI" and int(w[1]) == major_no and "R" in w[5] and inwin(int(w[2])))
        print(line(f"{name} read requests, issue to completion", lat) + f"; sizes (pages) {sizes.most_common(5)}")
    by = collections.Counter(w[6].split("/")[0] for w in ev if w[0] == "BQ" and int(w[1]) == 7 and "R" in w[5] and inwin(int(w[2])))
    print(f"loop read bios by submitter: {dict(by)}")
    by = collections.Counter(w[6].split("/")[0] for w in ev if w[0] == "BQ" and int(w[1]) == 254 and inwin(int(w[2])))
    print(f"vda bios by submitter: {dict(by.most_common(8))}")
    # the loop worker: each loop read request's issue to the next vda read bio submitted by a kworker
    lbi = sorted(int(w[2]) for w in ev if w[0] == "BI" and int(w[1]) == 7 and "R" in w[5] and inwin(int(w[2])))
    vbq = sorted(int(w[2]) for w in ev if w[0] == "BQ" and int(w[1]) == 254 and "R" in w[5] and not w[6].startswith("python")
                 and inwin(int(w[2])))
    gap = []
    for t in lbi:
        j = bisect.bisect_left(vbq, t)
        if j < len(vbq):
            gap.append(vbq[j] - t)
    print(line("loop request issue to the next vda read bio of a worker", gap))
    # the loop request's completion to the task's switch-in
    lbc = sorted(int(w[2]) for w in ev if w[0] == "BC" and int(w[1]) == 7 and "R" in w[5] and inwin(int(w[2])))
    wake = []
    for _, off, wk, on, st in sleep:
        j = bisect.bisect_right(lbc, wk or on) - 1
        if j >= 0 and lbc[j] >= off:
            wake.append((lbc[j] - off, (wk or on) - lbc[j], on - (wk or on)))
    print(line("sleeps ended by a loop completion: sleep start to the completion", [a for a, _, _ in wake]))
    print(line("  the completion to the wake-up", [b for _, b, _ in wake]))
    print(line("  the wake-up to the CPU", [c for _, _, c in wake]))


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) in (3, 4) and a[0] == "record" and a[3:] in ([], ["--fifo"]):
        record(a[1], a[2], fifo=a[3:] == ["--fifo"])
    elif len(a) in (2, 4) and a[0] == "summary":
        try:
            ts = [int(x) for x in a[2:]]
        except ValueError:
            sys.exit(f"trace_mmap_fault: summary: t0 and t1 must be integers (ns, the trace's clock), not {a[2:]}\n"
                     "  fix: give two whole numbers of nanoseconds from trace.txt's PF lines, t0 < t1, or none")
        if ts and ts[0] >= ts[1]:
            sys.exit(f"trace_mmap_fault: summary: t0 {ts[0]} is not before t1 {ts[1]}\n  fix: give t0 < t1")
        summary(a[1], *ts)
    else:
        sys.exit(__doc__)
