#!/usr/bin/env python3
"""What sets the length of P's deactivation window in the guest (gap22, issue 22): the periodic flush's timer, its worker, and the stream's pace.

6.12's `flush_memcg_stats_dwork()` is a deferrable delayed work (mm/memcontrol.c `DECLARE_DEFERRABLE_WORK(stats_flush_dwork,
...)`), requeued `FLUSH_TIME` (500 jiffies) on at the end of each run by `queue_delayed_work(system_unbound_wq, ...)`: its timer
goes on the CPU the worker ran on (`__queue_delayed_work()` -> `add_timer_global()` -> `__mod_timer()`, a deferrable timer on
that CPU's `BASE_DEF`, kernel/time/timer.c), in the wheel's level 1 (`calc_index()`: the expiry rounded up to a multiple of
8 jiffies). A deferrable timer does not wake an idle CPU (`__get_next_timer_interrupt()`, 6.9+,
leaves `BASE_DEF` out); it runs at the first tick after its CPU wakes for something else (`run_timer_softirq()` ->
`run_timer_base(BASE_DEF)`). So a period is 504 jiffies (2.016 s at HZ 250) plus: the timer's lateness when its CPU was
idle at the expiry, and the requeue's jiffy past the bucket (the worker's wake-up and the flush's own time) where that
crosses the wheel's 8-jiffy granularity.

From traces taken with `memtwin real ... --reclaim-trace DIR` since gap22 (workqueue_queue_work and timer_start /
timer_expire_entry of delayed_work_timer_fn):
  1. each flush: when its work was queued, its timer's lateness (jiffies after the bucket it was due in), the worker's
     wait (queue_work -> execute_start), the jiffy of its requeue after the expiry, the next bucket, the period;
  2. every deferrable delayed-work timer's lateness (the flush's, vmstat_update's per-CPU ones, ...), during the stream
     (one task busy, the other vCPU mostly idle) and outside it;
  3. the guest's stream in 32 MiB chunks of issued reads (block_rq_issue; readahead runs ahead of the reader by its
     window), and with --engine the engine's at the boot's machine (validate.set_run_sets() from the JSON beside the
     trace, boot.json or --json), the stream split into 20 reads of 32 MiB (offset/length), no gaps between them.

usage: PYTHONPATH=python flush_timer.py TRACE... [--engine [--json BOOT.json] [--scenario FILE]]
(traces-gap22/boot-{1..6}.trace.gz: gap22's six traced boots of the -gap scenario, two-list, with boot-N.json)"""
import argparse
import gzip
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
GAP = os.path.join(ROOT, "scenarios", "validation-pending", "qemu612-lrugen-parent-stream-gap.toml")
EV = re.compile(r"^\s*(\S.*?)\s+\[(\d+)\]\s+\S+\s+(\d+\.\d+): (\w+): (.*)$")
STEP = re.compile(r"^# step '([^']+)' task \S+ \S+ (\S+) \.\. (\S+):")
CHUNK_MIB = 32


def read_trace(path: str) -> tuple:
    """(steps {name: (start, end)}, events [(comm, cpu, t, name, rest)]) of a --reclaim-trace file."""
    steps, evs = {}, []
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as fh:
        for line in fh:
            m = STEP.match(line)
            if m:
                steps[m.group(1)] = (float(m.group(2)), float(m.group(3)))
                continue
            m = EV.match(line)
            if m and not line.startswith("#"):
                evs.append((m.group(1), int(m.group(2)), float(m.group(3)), m.group(4), m.group(5)))
    return steps, evs


def flushes(evs: list) -> list:
    """Each periodic flush: dict(q, cpu, late, wait_ms, flush_ms, requeue_j, bucket, period_j)."""
    last_expire, recs, cur, timer = {}, [], None, None
    for comm, cpu, t, name, rest in evs:
        if name == "timer_expire_entry":
            m = re.search(r"timer=(\w+).*now=(\d+)", rest)
            last_expire[cpu] = (m.group(1), int(m.group(2)))
        elif name == "workqueue_queue_work" and "flush_memcg_stats_dwork" in rest:
            le = last_expire.get(cpu)
            timer = le[0] if le else timer
            cur = {"q": t, "cpu": cpu, "now": le[1] if le else None}
        elif name == "workqueue_execute_start" and "flush_memcg_stats_dwork" in rest and cur is not None:
            cur["x"] = t
        elif name == "timer_start" and timer and f"timer={timer} " in rest and cur is not None and "x" in cur:
            m = re.search(r"expires=(\d+) \[timeout=(\d+)\] bucket_expiry=(\d+) cpu=(\d+) idx=\d+ flags=(\S+)", rest)
            cur.update(r=t, rj=int(m.group(1)) - int(m.group(2)), bucket=int(m.group(3)), tcpu=int(m.group(4)), flags=m.group(5))
            recs.append(cur)
            cur = None
    for prev, c in zip([None] + recs, recs):
        c["late"] = c["now"] - prev["bucket"] if prev and c["now"] is not None else None
        c["period_j"] = c["now"] - prev["now"] if prev and c["now"] is not None and prev["now"] is not None else None
    return recs


def deferrable_lateness(evs: list, window: tuple) -> dict:
    """{"stream": [...], "other": [...]}: (t, cpu, jiffies late) of every deferrable delayed-work timer's expiry."""
    pend, res = {}, {"stream": [], "other": []}
    for comm, cpu, t, name, rest in evs:
        if name == "timer_start":
            m = re.search(r"timer=(\w+).*bucket_expiry=(\d+) cpu=(\d+) idx=\d+ flags=(\S+)", rest)
            if m and "D" in m.group(4).split("|"):
                pend[m.group(1)] = (int(m.group(2)), int(m.group(3)))
            elif m:
                pend.pop(m.group(1), None)
        elif name == "timer_expire_entry":
            m = re.search(r"timer=(\w+).*now=(\d+)", rest)
            p = pend.pop(m.group(1), None)
            if p:
                res["stream" if window[0] <= t <= window[1] else "other"].append((t, p[1], int(m.group(2)) - p[0]))
    return res


def stream_chunks(evs: list, window: tuple) -> list:
    """Seconds per CHUNK_MIB of the stream's issued reads (block_rq_issue sectors), from the stream's start."""
    s, k, prev, out = 0, 1, window[0], []
    for comm, cpu, t, name, rest in evs:
        if name != "block_rq_issue" or not window[0] <= t <= window[1]:
            continue
        m = re.search(r" \+ (\d+) ", rest)
        s += int(m.group(1)) if m else 0
        while s >= k * CHUNK_MIB * 2048:
            out.append(t - prev)
            prev = t
            k += 1
    return out


def engine_chunks(scn: str, boot_json: str) -> tuple:
    """(wset 1 s, [s per CHUNK_MIB of the stream], [vmstat.pgdeactivate per chunk]) of the engine at the boot's machine."""
    from memtwin import api, validate
    with open(boot_json) as fh:
        real = json.load(fh)["variants"]["two-list"]
    sets = validate.set_run_sets(0, real)
    with open(scn) as fh:
        txt = fh.read()
    old = '  { op = "read", file = "/data/stream", bufsize = "128K", step = "stream" },'
    if old not in txt:
        raise SystemExit(f"flush_timer.py: --scenario {scn}: error: no stream read op `{old.strip()}`\n"
                         "  fix: give a parent-stream scenario (default: the -gap one)")
    n = 640 // CHUNK_MIB
    txt = txt.replace(old, ",\n".join(f'  {{ op = "read", file = "/data/stream", bufsize = "128K", offset = "{CHUNK_MIB * i}M", '
                                      f'length = "{CHUNK_MIB}M", step = "s{i:02d}" }}' for i in range(n)) + ",")
    out = []
    for s in sets:
        if s.startswith("tasks.t.step_gaps="):
            g = json.loads(s.split("=", 1)[1])
            s = "tasks.t.step_gaps=" + json.dumps(g[:4] + ["0us"] * (n - 1) + g[4:])
        out.append(s)
    fd, tmp = tempfile.mkstemp(suffix=".toml", dir=os.path.dirname(scn))
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(txt)
        r = api.run(tmp, variant="two-list", sets=out).to_json()
    finally:
        os.unlink(tmp)
    st = {s["name"]: s["metrics"] for s in r["steps"]}
    ch = [st[f"s{i:02d}"] for i in range(n)]
    return st["wset 1"]["elapsed_s"], [m["elapsed_s"] for m in ch], [m["vmstat.pgdeactivate"] for m in ch]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("traces", nargs="+", metavar="TRACE")
    ap.add_argument("--engine", action="store_true", help="also the engine's stream at each boot's machine")
    ap.add_argument("--json", help="the boot's recording (default: boot.json beside the trace)")
    ap.add_argument("--scenario", default=GAP)
    a = ap.parse_args(argv)
    for p in a.traces:
        if not os.path.isfile(p):
            ap.exit(2, f"flush_timer.py: {p}: error: no such file\n  fix: give a trace written by memtwin real --reclaim-trace DIR\n")
    for p in a.traces:
        try:
            steps, evs = read_trace(p)
        except (OSError, UnicodeDecodeError, EOFError) as e:
            ap.exit(2, f"flush_timer.py: {p}: error: cannot read it as a trace ({e})\n"
                       "  fix: give a trace written by memtwin real --reclaim-trace DIR (or its .gz)\n")
        if "stream" not in steps or not any(e[3] == "timer_start" for e in evs):
            ap.exit(2, f"flush_timer.py: {p}: error: no 'stream' step or no timer_start events\n"
                       "  fix: give a parent-stream trace taken by memtwin real --reclaim-trace since gap22\n")
        w = steps["stream"]
        print(f"{p}: stream {w[0]:.3f} .. {w[1]:.3f} s ({w[1] - w[0]:.3f} s)")
        for c in flushes(evs):
            where = "stream" if w[0] <= c["q"] <= w[1] else "      "
            late = "-" if c["late"] is None else f"{c['late']:+d} j"
            per = "" if c["period_j"] is None else f", period {c['period_j']} j"
            print(f"  flush {c['q']:.3f} {where} cpu{c['cpu']}: timer late {late}, worker wait {1e3 * (c['x'] - c['q']):.1f} ms, "
                  f"flush {1e3 * (c['r'] - c['x']):.1f} ms, requeued {c['rj'] - c['now'] if c['now'] else 0:+d} j -> due in "
                  f"{c['bucket'] - c['rj']} j on cpu{c['tcpu']} ({c['flags']}){per}")
        for k, v in deferrable_lateness(evs, w).items():
            ls = sorted(x[2] for x in v)
            print(f"  deferrable timers {k}: {len(ls)}, jiffies late " + (f"median {ls[len(ls) // 2]}, max {ls[-1]}, > 4: "
                  f"{sum(x > 4 for x in ls)}" if ls else "none"))
        g = stream_chunks(evs, w)
        print(f"  guest stream, s per {CHUNK_MIB} MiB issued: " + " ".join(f"{x:.3f}" for x in g))
        if a.engine:
            # the recording beside the trace: traces-gap22/boot-N.json for boot-N.trace.gz, else DIR/boot.json
            m = re.match(r"(boot-\d+)\.trace(\.gz)?$", os.path.basename(p))
            bj = a.json or os.path.join(os.path.dirname(p), (m.group(1) if m else "boot") + ".json")
            if not os.path.isfile(bj):
                ap.exit(2, f"flush_timer.py: {bj}: error: no such file\n  fix: give the boot's recording with --json\n")
            w1, e, d = engine_chunks(a.scenario, bj)
            print(f"  engine stream at the boot's machine, s per {CHUNK_MIB} MiB: " + " ".join(f"{x:.3f}" for x in e)
                  + f" (total {sum(e):.3f} s; deactivated per chunk {d})")


if __name__ == "__main__":
    main(sys.argv[1:])
