"""`memtwin bench --scale`: how the engine's wall time and host memory grow with the size of
what it simulates, in the three directions of issue 17:

- RAM: one task reads a file of 3/4 of the machine's RAM sequentially (linux-6.6, no memcg
  limit), on machines of 64G .. 2T;
- containers: N memcgs (cgroup v2, linux-6.1, a 64G machine), each with one task reading its
  own 8M file under memory.max = 4M;
- files: N small (8K) files, 1000 per directory, read by one `grep` per directory (linux-6.6,
  a 64G machine);
- reread: N memcgs as in `containers`, each task reading its file twice, on a machine of
  N x 2 MiB: the limits add up to twice the RAM, so global reclaim evicts pages with shadows
  naming the root, and the second reads refault against the root's working set
  (`workingset_refault()` at an eviction lruvec with N memcgs below it).

Each size runs in a fresh subprocess (`python3 -m memtwin.scalebench KIND SIZE`), which builds
the scenario, runs it and reports its wall time (build + run), its CPU time split into user and
system (`getrusage(RUSAGE_SELF)` of the whole process, Python's start included), its minor page
faults and its peak RSS (`ru_maxrss`, so one size's memory cannot hide another's). The growth
exponent of each table is the least-squares slope of log(wall) (and of log(CPU), log(user CPU),
log(RSS)) over log(size). On a shared machine the CPU time is the fairer figure (wall time
includes waiting for a CPU); the system part is the host kernel's work for the process, mostly
its page faults, which a virtual machine's host can make dearer (see BENCHMARKS.md).
"""

from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import sys
import time

GIB = 1 << 30

# the sizes of each table; `quick` ones for a fast look (and the tests)
SIZES = {
    "ram": ["64G", "256G", "512G", "1T", "2T"],
    "containers": [1000, 2000, 4000, 10000, 20000],
    "files": [1000, 100_000, 1_000_000, 4_000_000, 10_000_000],
    "reread": [1000, 2000, 4000, 10000],
}
QUICK = {"ram": ["16G", "64G"], "containers": [100, 400], "files": [1000, 10_000], "reread": [512, 1024]}


def ram_scenario(ram: str) -> dict:
    gib = _gib(ram)
    return {
        "scenario": {"name": f"scale-ram-{ram}"},
        "machine": {"ram": ram, "cpus": 2},
        "kernel": {"profile": "linux-6.6", "cgroup": "v2"},
        "devices": {"sda": {"read_bw": "10G", "read_ahead_kb": 128}},
        "files": {"/f": {"size": f"{gib * 3 // 4 * 1024}M"}},
        "tasks": {"t": {"ops": [{"op": "read", "file": "/f", "bufsize": "1M", "fadvise": "sequential"}]}},
        "report": {"sample_interval": "10s"},
    }


def containers_scenario(n: int) -> dict:
    return {
        "scenario": {"name": f"scale-containers-{n}"},
        "machine": {"ram": "64G", "cpus": 2},
        "kernel": {"profile": "linux-6.1", "cgroup": "v2"},
        "devices": {"sda": {"read_bw": "10G", "read_ahead_kb": 128}},
        "files": {f"/c{i}/f": {"size": "8M"} for i in range(n)},
        "cgroups": {f"c{i}": {"memory.max": "4M"} for i in range(n)},
        "tasks": {f"t{i}": {"cgroup": f"c{i}", "ops": [{"op": "read", "file": f"/c{i}/f", "bufsize": "128K"}]} for i in range(n)},
        "report": {"sample_interval": "10s"},
    }


def reread_scenario(n: int) -> dict:
    scn = containers_scenario(n)
    scn["scenario"]["name"] = f"scale-reread-{n}"
    scn["machine"]["ram"] = f"{2 * n}M"
    for t in scn["tasks"].values():
        t["ops"] = t["ops"] * 2
    return scn


def files_scenario(n: int) -> dict:
    per_dir = min(n, 1000)
    ndirs = max(1, n // per_dir)
    return {
        "scenario": {"name": f"scale-files-{n}"},
        "machine": {"ram": "64G", "cpus": 2},
        "kernel": {"profile": "linux-6.6", "cgroup": "v2"},
        "devices": {"sda": {"read_bw": "10G", "read_ahead_kb": 128}},
        "dirs": {f"/d{i}": {"files": {"count": per_dir, "size": "8K"}} for i in range(ndirs)},
        "tasks": {"t": {"ops": [{"op": "grep", "path": f"/d{i}", "step": "grep"} for i in range(ndirs)]}},
        "report": {"sample_interval": "10s"},
    }


def _gib(s: str) -> int:
    n, u = int(s[:-1]), s[-1]
    return n * {"G": 1, "T": 1024}[u]


def _size_value(kind: str, size) -> float:
    return float(_gib(size)) if kind == "ram" else float(size)


def run_point(kind: str, size) -> dict:
    """Build and run one size in this process; wall seconds and peak RSS bytes."""
    from memtwin import _memtwin

    t0 = time.perf_counter()
    scn = {"ram": ram_scenario, "containers": containers_scenario, "files": files_scenario, "reread": reread_scenario}[kind](size)
    doc = _memtwin.load_dict(scn, f"scale-{kind}-{size}")
    del scn
    t1 = time.perf_counter()
    out = doc.run(None, [], None)
    t2 = time.perf_counter()
    e = out["engine"]
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "kind": kind,
        "size": size,
        "build_s": t1 - t0,
        "run_s": t2 - t1,
        "wall_s": t2 - t0,
        "user_s": ru.ru_utime,
        "sys_s": ru.ru_stime,
        "cpu_s": ru.ru_utime + ru.ru_stime,
        "minor_faults": ru.ru_minflt,
        "peak_rss_bytes": ru.ru_maxrss * 1024,
        "page_events": e["page_events"],
        "resident_pages": e["resident_pages"],
        "host_bytes": e["host_bytes"],
        "steps": len(out["steps"]),
        "entries": sum(len(s["resident_pages"]) for s in out["steps"]),
    }


def run_subprocess(kind: str, size, timeout: float) -> dict:
    env = dict(os.environ)
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = pkg + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    try:
        r = subprocess.run([sys.executable, "-m", "memtwin.scalebench", kind, str(size)], capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"kind": kind, "size": size, "error": f"stopped after {timeout:.0f} s"}
    if r.returncode != 0:
        return {"kind": kind, "size": size, "error": (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]}
    d = json.loads(r.stdout.strip().splitlines()[-1])
    d["process_s"] = time.perf_counter() - t0
    d["load_avg_1m"] = load
    return d


def fit_exponent(xs: list, ys: list) -> float | None:
    """Least-squares slope of log(y) over log(x)."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x > 0 and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx if sxx else None


def run_scale(kinds=None, quick: bool = False, sizes: dict | None = None, timeout: float = 900, progress=None) -> dict:
    table = sizes or (QUICK if quick else SIZES)
    out = {"date": time.strftime("%Y-%m-%d"), "tables": {}}
    for kind in kinds or list(table):
        rows = []
        for size in table[kind]:
            if progress:
                progress(f"{kind} {size} ...")
            rows.append(run_subprocess(kind, size, timeout))
        ok = [r for r in rows if "error" not in r]
        xs = [_size_value(kind, r["size"]) for r in ok]
        out["tables"][kind] = {
            "rows": rows,
            "time_exponent": fit_exponent(xs, [r["wall_s"] for r in ok]),
            "cpu_exponent": fit_exponent(xs, [r["cpu_s"] for r in ok]),
            "user_exponent": fit_exponent(xs, [r["user_s"] for r in ok]),
            "rss_exponent": fit_exponent(xs, [r["peak_rss_bytes"] for r in ok]),
        }
    return out


def format_scale(r: dict) -> str:
    what = {
        "ram": "machine RAM, one sequential read of 3/4 of it",
        "containers": "containers (a memcg each, its task reading its own 8M file under 4M)",
        "files": "small (8K) files read by grep, 1000 per directory",
        "reread": "containers reading their 8M file twice under 4M, on N x 2 MiB of RAM (global reclaim, refaults)",
    }
    lines = [f"memtwin bench --scale, {r['date']} (load: the 1-minute load average when each size started)"]
    for kind, t in r["tables"].items():
        lines.append("")
        lines.append(f"{what[kind]}:")
        lines.append(f"  {'size':>10} {'wall s':>9} {'build s':>8} {'user s':>8} {'sys s':>7} {'minor faults':>12} {'peak RSS':>10} {'page events':>13} {'load':>5}")
        for row in t["rows"]:
            if "error" in row:
                lines.append(f"  {row['size']!s:>10} {row['error']}")
                continue
            lines.append(
                f"  {row['size']!s:>10} {row['wall_s']:9.2f} {row['build_s']:8.2f} {row['user_s']:8.2f} {row['sys_s']:7.2f} {row['minor_faults']:12d} {row['peak_rss_bytes'] / GIB:8.2f} G {row['page_events']:13d} {row.get('load_avg_1m', 0):5.1f}"
            )
        te, ce, ue, re_ = t["time_exponent"], t["cpu_exponent"], t["user_exponent"], t["rss_exponent"]
        if None in (te, ce, ue, re_):
            lines.append("  growth exponent: too few points")
        else:
            lines.append(f"  growth exponent (least squares on log-log): wall {te:.2f}, CPU {ce:.2f} (user {ue:.2f}), peak RSS {re_:.2f}")
    return "\n".join(lines)


def main(argv: list) -> int:
    kind, size = argv[0], argv[1]
    size = size if kind == "ram" else int(size)
    print(json.dumps(run_point(kind, size)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
