#!/usr/bin/env python3
"""Record, in order, every folio the page cache of a host run adds and deletes, and write the
runs of one step: where large folios come and go (lab/validation/large-folios.md).

    flock /tmp/memtwin-host.lock python3 lab/validation/trace_folio_events.py SCENARIO \\
        [--step N] [--runs N] [--out FILE]

Runs `memtwin real SCENARIO --on host` (root, this host's kernel, whose filemap tracepoints must
carry the folio order: 6.x) while a tracefs instance of its own records
mm_filemap_add_to_page_cache and mm_filemap_delete_from_page_cache of every loop device
(`s_dev` major 7; run it under the host lock, so no other run's loop device is busy). The
events are split into the run's steps by the step's own `folio_events` counts (the runner's
instances see the same events), counted from the moment the runner's instances appear (its
files are written and dropped by then, and its tasks not started); the file with the most
events is the one written out. Output:
one line per run of consecutive events of one kind and order over contiguous page indices,
`add|del [first index, end index) order K xN`. The instance and its tracefs mount are removed
whatever happens (SIGINT, SIGTERM, a failing run).
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))

from memtwin import leftovers  # noqa: E402
import tracefs_instance  # noqa: E402
from memtwin.real import FOLIO_EVENTS, folio_events_supported  # noqa: E402

LOOP_MAJOR = 7
EVENT = re.compile(rb": (mm_filemap_\w+): dev \S+ ino (\w+) pfn=0x\w+ ofs=(\d+) order=(\d+)")


def record(scenario: str, work: str) -> tuple:
    """(events [(kind, ino, index, order)], the index of the first event of the run's tasks,
    the run's result JSON) of one host run."""
    tracefs = os.path.join(work, "tracefs")
    os.mkdir(tracefs)
    subprocess.run(["mount", "-t", "tracefs", "nodev", tracefs], check=True)
    inst = os.path.join(tracefs, "instances", f"memtwin-trace-{os.getpid()}")
    raw = os.path.join(work, "trace.txt")
    stop = threading.Event()
    reader = None
    start = []  # the events before the runner made its trace instances (its files' writing)
    try:
        why = folio_events_supported(tracefs)
        if why:
            sys.exit(f"trace_folio_events: {why}")
        os.mkdir(inst)
        with open(os.path.join(inst, "buffer_size_kb"), "w") as f:
            f.write("65536")
        for ev in FOLIO_EVENTS.values():
            d = os.path.join(inst, "events", "filemap", ev)
            with open(os.path.join(d, "filter"), "w") as f:
                f.write(f"s_dev >= {LOOP_MAJOR << 20} && s_dev < {(LOOP_MAJOR + 1) << 20}")
            with open(os.path.join(d, "enable"), "w") as f:
                f.write("1")

        def drain() -> None:
            fd = os.open(os.path.join(inst, "trace_pipe"), os.O_RDONLY | os.O_NONBLOCK)
            lines = 0
            with open(raw, "wb") as out:
                while True:
                    try:
                        b = os.read(fd, 1 << 20)
                    except BlockingIOError:
                        if not start and runner_traces():
                            # what was read and what waits in the buffer: nothing happens on the
                            # disk between the runner's setup and its first task's first read
                            start.append(lines + buffered())
                        if stop.is_set():
                            break
                        stop.wait(0.005)
                        continue
                    out.write(b)
                    lines += b.count(b"\n")
            os.close(fd)

        def runner_traces() -> bool:
            return any(n.endswith("-added") and n != os.path.basename(inst) for n in os.listdir(os.path.join(tracefs, "instances")))

        def buffered() -> int:
            return tracefs_instance.ring_stats(inst, ("entries",))

        reader = threading.Thread(target=drain)
        reader.start()
        res = os.path.join(work, "result.json")
        r = subprocess.run([sys.executable, "-m", "memtwin.cli", "real", scenario, "--on", "host", "--json", res],
                           env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
        if r.returncode != 0:
            sys.exit(f"trace_folio_events: memtwin real failed (exit {r.returncode})")
        lost = tracefs_instance.events_lost(inst)
    finally:
        stop.set()
        if reader is not None:
            reader.join()
        if os.path.isdir(inst):
            why = leftovers.remove_trace_instance(inst)
            if why:
                print(f"trace_folio_events: {why}", file=sys.stderr)
        subprocess.run(["umount", tracefs])
    if lost:
        sys.exit(f"trace_folio_events: {lost} events lost (the ring buffers overran); nothing written")
    events = []
    with open(raw, "rb") as f:
        for line in f:
            m = EVENT.search(line)
            if m:
                events.append(("add" if b"add" in m.group(1) else "del", m.group(2).decode(), int(m.group(3)) >> 12, int(m.group(4))))
    if not start:
        sys.exit("trace_folio_events: the run never made its trace instances (memtwin real --no-folios?)")
    with open(res) as f:
        return events, start[0], json.load(f)


def runs_of(events: list) -> list:
    runs = []
    for kind, _, idx, order in events:
        r = runs[-1] if runs else None
        if r and r[0] == kind and r[3] == order and r[2] == idx:
            r[2] += 1 << order
            r[4] += 1
        else:
            runs.append([kind, idx, idx + (1 << order), order, 1])
    return runs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario")
    ap.add_argument("--step", type=int, default=1, help="which step (1: the first) to write out")
    ap.add_argument("--runs", type=int, default=800, help="how many runs of that step to write (0: all)")
    ap.add_argument("--out", help="output file (default: stdout)")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("trace_folio_events: run it as root (it runs memtwin real --on host and makes a trace instance)")
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, lambda signum, _f: sys.exit(f"trace_folio_events: {signal.Signals(signum).name}; cleaned up"))
    with tempfile.TemporaryDirectory(prefix="memtwin-trace-") as work:
        events, first_task_event, res = record(os.path.abspath(a.scenario), work)
    steps = list(res["variants"].values())[0]["steps"]
    counts = [sum(s["folio_events"][k][o] for k in ("added", "deleted") for o in s["folio_events"][k]) for s in steps]
    if not 1 <= a.step <= len(steps):
        sys.exit(f"trace_folio_events: --step {a.step}: the scenario has steps 1..{len(steps)}")
    first = first_task_event + sum(counts[:a.step - 1])
    mine = events[first:first + counts[a.step - 1]]
    # the step's events must be the ones the runner counted for it, order by order
    for kind, key in (("add", "added"), ("del", "deleted")):
        got = {}
        for e in mine:
            if e[0] == kind:
                got[str(e[3])] = got.get(str(e[3]), 0) + 1
        if got != steps[a.step - 1]["folio_events"][key]:
            sys.exit(f"trace_folio_events: the {key} folios of step {a.step} in the trace, {got}, are not the runner's "
                     f"{steps[a.step - 1]['folio_events'][key]}: the trace did not split at the steps (another run on a loop device?)")
    inos = {}
    for e in mine:
        inos[e[1]] = inos.get(e[1], 0) + 1
    ino = max(inos, key=inos.get)
    runs = runs_of([e for e in mine if e[1] == ino])
    step = steps[a.step - 1]
    out = open(a.out, "w") if a.out else sys.stdout
    out.write(f"# {res['scenario']}, step {a.step} ({step['name']!r}): read {step['metrics']['read_bytes']} bytes; "
              f"{len(runs)} runs of additions and deletions of inode {int(ino, 16)}"
              + (f", the first {a.runs}" if a.runs and a.runs < len(runs) else "") + " (lab/validation/trace_folio_events.py)\n")
    for r in runs[:a.runs or None]:
        out.write(f"{r[0]} [{r[1]},{r[2]}) order {r[3]} x{r[4]}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
