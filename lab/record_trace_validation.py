"""Record the trace validation set (issue 18): four real programs, each recorded once with
`memtwin record` and measured with `memtwin measure` at three memcg limits on this host (root).
Writes python/memtwin/scenarios/validation/traces/NAME.mtt and measured.json; the comparison
with the twin is python/tests/test_trace_validation.py. Run: python3 lab/record_trace_validation.py
"""

import json
import os
import random
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "python", "memtwin", "scenarios", "validation", "traces")
DATA = "/var/tmp/mtval"
MT = [sys.executable, "-m", "memtwin.cli"]


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


PROGRAMS = {
    # name: (command, limits loose / around the working set / tight)
    "cat": (["cat", f"{DATA}/big.bin"], ["256M", "48M", "12M"]),
    "grep-r": (["grep", "-r", "-c", "zzqqxx", "/usr/lib/python3.11"], ["256M", "48M", "12M"]),
    # tar skips reading files when the archive is /dev/null: write a real archive
    "tar-cf": (["tar", "cf", f"{DATA}/doc.tar", "-C", "/usr/share", "doc"], ["512M", "128M", "32M"]),
    "sqlite3": (["sqlite3", f"{DATA}/db.sqlite", "select count(*) from t where v like '%zzq%'"], ["256M", "40M", "10M"]),
    # the same scan through a file mapping (sqlite's mmap I/O): page faults, recorded by the
    # BPF tracer, replayed through the engine's fault path; its major faults are compared
    "sqlite3-mmap": (["sqlite3", f"{DATA}/db.sqlite", "PRAGMA mmap_size=268435456; select count(*) from t where v like '%zzq%'"],
                     ["256M", "40M", "10M"]),
}
# Recorded with the BPF tracer (page faults); the others with strace, as they were first.
TRACER = {"sqlite3-mmap": "bpf"}


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
    """Record and measure every program, or those named on the command line (the others keep
    their recorded figures)."""
    only = sys.argv[1:]
    setup()
    env = dict(os.environ, PYTHONPATH=os.path.join(HERE, "..", "python"))
    measured = {}
    kernel = os.uname().release
    if only:
        with open(os.path.join(OUT, "measured.json")) as f:
            old = json.load(f)
        measured, kernel = old["programs"], old["kernel"]
    for name, (cmd, limits) in PROGRAMS.items():
        if only and name not in only:
            continue
        tr = os.path.join(OUT, name + ".mtt")
        # Recorded cold, as measure runs it: what a fault maps depends on what is cached.
        drop_cache(DATA)
        subprocess.run(MT + ["record", "--tracer", TRACER.get(name, "strace"), "--out", tr, "--"] + cmd, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        measured[name] = {"command": cmd, "limits": {}, "kernel": os.uname().release}
        for lim in limits:
            j = os.path.join(DATA, "m.json")
            subprocess.run(MT + ["measure", "--limit", lim, "--trace", tr, "--out", j, "--"] + cmd, env=env, check=True,
                           stdout=subprocess.DEVNULL)
            with open(j) as f:
                v = json.load(f)["variants"]["default"]   # the engine's layout (measure.engine_layout)
            m = dict(v["totals"], major_faults=v["real"]["rusage"]["major_faults"])
            measured[name]["limits"][lim] = {k: m[k] for k in ("read_bytes", "memcg.max_usage_bytes", "memcg.usage_bytes", "major_faults")}
            print(name, lim, measured[name]["limits"][lim], flush=True)
    with open(os.path.join(OUT, "measured.json"), "w") as f:
        json.dump({"kernel": kernel, "programs": measured}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
