#!/usr/bin/env python3
"""Record a host run of a one-step writer scenario with the kernel's dirty throttling traced, and
add what the `writeback:balance_dirty_pages` tracepoint reported to the step's metrics.

    flock /tmp/memtwin-host.lock python3 lab/validation/trace_bdp.py SCENARIO --json OUT

Runs `memtwin real SCENARIO --on host --variant all --json OUT` (root, this host's kernel) while a
tracefs instance of its own records writeback:balance_dirty_pages of the loop devices' bdis
(`bdi 7:N`; run it under the host lock, so no other run's loop device is busy), then writes into
OUT, for the scenario's one step, what the engine reports as the same tracepoint's sums
(page_writeback.rs `BdpTrace`): `bdp.pauses` (events with pause > 0: the writer slept),
`bdp.pause_ms` and `bdp.period_ms` (their sums; the tracepoint prints milliseconds),
`bdp.task_ratelimit_kBps` and `bdp.dirty_ratelimit_kBps` (their means, KB/s), and a note saying
where they come from. The instance and its tracefs mount are removed whatever happens (SIGINT,
SIGTERM, a failing run). A run whose events were throttled against other limits than the
runner's vm.dirty_bytes / vm.dirty_background_bytes (the sysctls changed under it) is refused,
nothing written (limits_problem).

    python3 lab/validation/trace_bdp.py --calls KERNEL_RAW ENGINE_TXT ...

puts per-call series side by side (no run, no root): each file is the tracepoint's text, as
--raw keeps it (the loop devices' events) or as the engine prints it
(`cargo run --release --example bdp_trace -- SCENARIO`); for each, the calls, the sleeping
ones and their sums, and the commonest values of pause, period, think and dirtied, with the
range of the rates and dirty counts (where on the control line the writer sits).
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))

import tracefs_instance  # noqa: E402

LOOP_MAJOR = 7
EVENT = re.compile(rb"balance_dirty_pages: bdi (\d+):\d+: .*?dirty_ratelimit=(\d+) task_ratelimit=(\d+) .*? pause=(-?\d+) period=(\d+) ")
SOURCE = ("bdp.*: tracefs event writeback/balance_dirty_pages of the loop device's bdi over the run "
          "(lab/validation/trace_bdp.py): events with pause > 0, their pause and period sums (ms), "
          "their mean task_ratelimit and dirty_ratelimit (KB/s)")


def record(scenario: str, out: str, work: str) -> tuple:
    """(the events [(dirty_ratelimit, task_ratelimit, pause, period)] of the loop devices, the
    events lost) of one host run whose results go to `out`."""
    raw = os.path.join(work, "trace.txt")
    with tracefs_instance.recording(work, "memtwin-bdp", {"writeback/balance_dirty_pages": None}, raw, 16384,
                                    poll=0.01, tool="trace_bdp") as inst:
        r = subprocess.run([sys.executable, "-m", "memtwin.cli", "real", scenario, "--on", "host", "--variant", "all", "--json", out],
                           env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
        if r.returncode != 0:
            sys.exit(f"trace_bdp: memtwin real failed (exit {r.returncode})")
        lost = tracefs_instance.events_lost(inst)
    events = []
    with open(raw, "rb") as f:
        for line in f:
            m = EVENT.search(line)
            if m and int(m.group(1)) == LOOP_MAJOR:
                events.append(tuple(int(m.group(i)) for i in (2, 3, 4, 5)))
    return events, lost


def summary(events: list) -> dict:
    """The bdp.* metrics of `events` (the engine's `BdpTrace` over a step)."""
    slept = [e for e in events if e[2] > 0]
    n = len(slept)
    return {
        "bdp.pauses": n,
        "bdp.pause_ms": float(sum(e[2] for e in slept)),
        "bdp.period_ms": float(sum(e[3] for e in slept)),
        "bdp.task_ratelimit_kBps": sum(e[1] for e in slept) // n if n else 0,
        "bdp.dirty_ratelimit_kBps": sum(e[0] for e in slept) // n if n else 0,
    }


CALL = re.compile(r" (\d+\.\d+): balance_dirty_pages: bdi (\S+): (.*)")
FIELD = re.compile(r"(\w+)=(-?\d+)")


def calls(path: str) -> list:
    """The balance_dirty_pages events of a tracepoint text: the loop devices' (`bdi 7:N`) of
    the kernel's, every one of the engine's (`bdi engine`), each a dict of its fields and `t`."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            m = CALL.search(line)
            if m and (m.group(2) == "engine" or m.group(2).split(":")[0] == str(LOOP_MAJOR)):
                d = {k: int(v) for k, v in FIELD.findall(m.group(3))}
                d["t"] = float(m.group(1))
                out.append(d)
    return out


def calls_table(paths: list) -> str:
    """The per-call comparison of `paths` (see the module's doc), one column per file."""
    import collections
    cols = []
    for p in paths:
        ev = calls(p)
        if not ev:
            raise SystemExit(f"trace_bdp: {p}: no balance_dirty_pages events of a loop device or the engine")
        slept = [e for e in ev if e["pause"] > 0]
        col = {
            "calls": len(ev),
            "span_s": f"{ev[-1]['t'] - ev[0]['t']:.2f}",
            "pauses (pause > 0)": len(slept),
            "pause_ms sum": sum(e["pause"] for e in slept),
            "period_ms sum (pauses)": sum(e["period"] for e in slept),
            "period_ms sum (no pause)": sum(e["period"] for e in ev if e["pause"] <= 0),
        }
        for k in ("pause", "period", "think", "dirtied"):
            top = collections.Counter(e[k] for e in ev).most_common(4)
            col[f"{k}: commonest (count)"] = " ".join(f"{v}({n})" for v, n in top)
        for k in ("task_ratelimit", "dirty_ratelimit", "dirty", "wb_dirty", "wb_setpoint", "setpoint"):
            v = [e[k] for e in ev]
            col[f"{k}: first/mean/last"] = f"{v[0]}/{sum(v) // len(v)}/{v[-1]}"
        cols.append(col)
    rows = list(cols[0])
    w0 = max(len(r) for r in rows)
    ws = [max(len(os.path.basename(p)), *(len(str(c[r])) for r in rows)) for p, c in zip(paths, cols)]
    lines = ["  ".join([" " * w0] + [os.path.basename(p).rjust(w) for p, w in zip(paths, ws)])]
    for r in rows:
        lines.append("  ".join([r.ljust(w0)] + [str(c[r]).rjust(w) for c, w in zip(cols, ws)]))
    return "\n".join(lines)


DIRTY_NOTE = re.compile(r"vm\.dirty_bytes = (\d+), vm\.dirty_background_bytes = (\d+)")


def limits_problem(ev: list, notes: list) -> str:
    """Why the run's events are not the scenario's throttling, or "": with the runner's
    vm.dirty_bytes and vm.dirty_background_bytes (its note), every event of the global domain
    has `2 * setpoint - limit` = the free-run ceiling `(thresh + bg_thresh) / 2` of those bytes
    in pages (the tracepoint's `setpoint = (limit + freerun) / 2`), and the first one `limit` =
    `thresh` (writing vm.dirty_bytes sets the domain's dirty_limit, `writeback_set_ratelimit()`).
    Another figure means the sysctls changed under the run (someone else wrote vm.dirty_*)."""
    m = next((DIRTY_NOTE.search(n) for n in notes if DIRTY_NOTE.search(n)), None)
    if not m or not ev:
        return ""
    page = 4096
    thresh = -(-int(m.group(1)) // page)
    bg = -(-int(m.group(2)) // page)
    if bg >= thresh:
        bg = thresh // 2
    freerun = (thresh + bg) // 2
    bad = [e for e in ev if abs(2 * e["setpoint"] - e["limit"] - freerun) > 1]
    if bad:
        e = bad[0]
        return (f"{len(bad)} of {len(ev)} events throttled against another free-run ceiling than vm.dirty_bytes "
                f"{m.group(1)} / vm.dirty_background_bytes {m.group(2)} give ({freerun} pages): the first at {e['t']:.6f} has "
                f"limit={e['limit']} setpoint={e['setpoint']} (freerun {2 * e['setpoint'] - e['limit']}); the kernel's vm.dirty_* "
                "were not the runner's while it wrote (another run or tool wrote them): record again")
    if ev[0]["limit"] != thresh:
        return (f"the first event's limit is {ev[0]['limit']} pages, not the {thresh} of vm.dirty_bytes {m.group(1)}: "
                "the global domain's dirty_limit did not start at the run's threshold: record again")
    return ""


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--calls":
        if len(sys.argv) < 3:
            sys.exit("usage: trace_bdp.py --calls TRACE_TEXT [TRACE_TEXT ...]")
        for p in sys.argv[2:]:
            if not os.path.isfile(p):
                sys.exit(f"trace_bdp: {p}: no such file (give --raw's text or the bdp_trace example's output)")
        print(calls_table(sys.argv[2:]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario")
    ap.add_argument("--json", required=True, help="where the recorded results go (as memtwin real --json)")
    ap.add_argument("--raw", help="also keep the tracepoint's raw text here (every event, for a per-call comparison)")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("trace_bdp: run it as root (it runs memtwin real --on host and makes a trace instance)")
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, lambda signum, _f: sys.exit(f"trace_bdp: {signal.Signals(signum).name}; cleaned up"))
    out = os.path.abspath(a.json)
    with tempfile.TemporaryDirectory(prefix="memtwin-bdp-") as work:
        events, lost = record(os.path.abspath(a.scenario), out + ".tmp", work)
        ev = calls(os.path.join(work, "trace.txt"))
        if a.raw:
            shutil.copyfile(os.path.join(work, "trace.txt"), a.raw)

    def refuse(why: str) -> None:
        os.unlink(out + ".tmp")
        sys.exit(f"trace_bdp: {why}; nothing written")

    if lost:
        refuse(f"{lost} events lost (the ring buffer overran)")
    with open(out + ".tmp") as f:
        res = json.load(f)
    if len(res["variants"]) != 1:
        refuse("the scenario must have one variant (the events are the run's)")
    for v in res["variants"].values():
        if len(v["steps"]) != 1:
            refuse("the scenario must have one step (the events are the run's)")
        why = limits_problem(ev, v.get("real", {}).get("notes", []))
        if why:
            refuse(why)
        v["steps"][0]["metrics"].update(summary(events))
        v.setdefault("real", {}).setdefault("notes", []).append(SOURCE)
    with open(out + ".tmp", "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    os.replace(out + ".tmp", out)
    print(f"trace_bdp: {len(events)} events, {summary(events)} -> {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
