"""Record the trace validation set (issue 18): real programs, each recorded once with
`memtwin record` and measured with `memtwin measure` at three memcg limits on this host (root;
run it under the host lock: flock /tmp/memtwin-host.lock python3 lab/record_trace_validation.py).
Writes scenarios/validation/traces/NAME.mtt and the measurements as the recorded results of
scenarios/validation/trace-NAME.toml (real/trace-NAME.json: a variant per limit, in the layout
`memtwin real --json` writes), which lab/validation/make_trace_scenarios.py generates and
`memtwin validate --recorded` compares with the twin.

    python3 lab/record_trace_validation.py [--measure-only | --record-only] [--tracer bpf|strace] [--sample-hz N] [--refs-ms MS] [--runs N] [--out DIR] [NAME ...]

NAME: the programs to do (default all); --measure-only keeps their traces and measures again;
--record-only records the traces and keeps the measures; --sample-hz N: the BPF recordings also
sample the program's instruction pointers N times a second (`memtwin record --sample-hz`; a
program's own rate in make_trace_scenarios.SAMPLE_HZ by default, else none); --refs-ms MS: they
also write the pages found young every MS milliseconds (`memtwin record --refs-ms`; REFS_MS's by default);
--tracer: record with this tracer instead of the program's; --out DIR: write DIR/traces/NAME.mtt
and DIR/real/trace-NAME.json instead (to compare before replacing; with --measure-only the
traces are read from DIR); --runs N: measure each program N times in turn (all its limits per
round), writing real/trace-NAME.json and real/trace-NAME-run2..N.json, a recording set whose
median `memtwin validate` compares (README, "Validation against real kernels").
"""

import json
import os
import random
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "validation"))
from make_trace_scenarios import DATA, PROGRAMS, REFS_MS, SAMPLE_HZ  # noqa: E402

VAL = os.path.join(HERE, "..", "python", "memtwin", "scenarios", "validation")
OUT = os.path.join(VAL, "traces")
MT = [sys.executable, "-m", "memtwin.cli"]
TIMEOUT = 1800  # seconds a recording or a measurement may take


def setup():
    os.makedirs(DATA, exist_ok=True)
    big = os.path.join(DATA, "big.bin")
    if not os.path.exists(big):
        rnd = random.Random(1)
        with open(big, "wb") as f:
            for _ in range(48):
                f.write(rnd.randbytes(1 << 20))
    db = os.path.join(DATA, "db.sqlite")
    if not os.path.exists(db):
        rnd = random.Random(2)
        c = sqlite3.connect(db)
        c.execute("create table t(id integer primary key, v blob)")
        c.executemany("insert into t(v) values (?)", ((rnd.randbytes(900),) for _ in range(40000)))
        c.commit()
        c.close()


def drop_cache(root: str) -> None:
    """POSIX_FADV_DONTNEED on every file below `root` (written back first)."""
    os.sync()
    for d, _, names in os.walk(root):
        for n in names:
            fd = os.open(os.path.join(d, n), os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def main():
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--measure-only", action="store_true")
    ap.add_argument("--tracer", choices=("bpf", "strace"))
    ap.add_argument("--out", metavar="DIR")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--record-only", action="store_true")
    ap.add_argument("--sample-hz", type=int, metavar="N")
    ap.add_argument("--refs-ms", type=int, metavar="MS")
    ap.add_argument("only", nargs="*", metavar="NAME")
    a = ap.parse_args()
    measure_only, only = a.measure_only, a.only
    traces, real = (os.path.join(a.out, "traces"), os.path.join(a.out, "real")) if a.out else (OUT, os.path.join(VAL, "real"))
    os.makedirs(traces, exist_ok=True)
    os.makedirs(real, exist_ok=True)
    for n in only:
        if n not in PROGRAMS:
            sys.exit(f"{n}: error: no such program\n  fix: name one of {', '.join(PROGRAMS)}")
    setup()
    env = dict(os.environ, PYTHONPATH=os.path.join(HERE, "..", "python"))
    for name, (task, cmd, limits, tracer, _what) in PROGRAMS.items():
        if only and name not in only:
            continue
        tr = os.path.join(traces, name + ".mtt")
        if not measure_only:
            # Recorded cold, as measure runs it: what a fault maps depends on what is cached.
            drop_cache(DATA)
            hz = a.sample_hz if a.sample_hz is not None else SAMPLE_HZ.get(name, 0)
            sample = ["--sample-hz", str(hz)] if hz and (a.tracer or tracer) == "bpf" else []
            ms = a.refs_ms if a.refs_ms is not None else REFS_MS.get(name, 0)
            sample += ["--refs-ms", str(ms)] if ms and (a.tracer or tracer) == "bpf" else []
            print(name, "recorded at load", os.getloadavg()[0], flush=True)
            subprocess.run(MT + ["record", "--tracer", a.tracer or tracer] + sample + ["--out", tr, "--"] + cmd, env=env, check=True,
                           timeout=TIMEOUT)
        if a.record_only:
            continue
        for run in range(1, a.runs + 1):
            measure_all(name, task, cmd, limits, tr, real, env, run)


def measure_all(name, task, cmd, limits, tr, real, env, run):
    """One round of measures of a program at each of its limits: real/trace-NAME.json (the first
    round) or real/trace-NAME-runN.json."""
    variants = {}
    for lim in limits:
        j = os.path.join(DATA, "m.json")
        subprocess.run(MT + ["measure", "--limit", lim, "--trace", tr, "--out", j, "--"] + cmd, env=env, check=True,
                       stdout=subprocess.DEVNULL, timeout=TIMEOUT)
        with open(j) as f:
            v = json.load(f)["variants"]["default"]   # the engine's layout (measure.engine_layout)
        # the step as the scenario's task names it
        for s in v["steps"]:
            s.update(name="run", task=task, memcg="/ct")
        variants[lim] = v
        m = v["totals"]
        print(name, f"run {run}", lim, os.getloadavg()[0], {k: m.get(k) for k in ("read_bytes", "memcg.max_usage_bytes", "memcg.pgmajfault")}, flush=True)
    path = os.path.join(real, f"trace-{name}.json" if run == 1 else f"trace-{name}-run{run}.json")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"scenario": f"trace-{name}", "variants": variants}, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
