"""memtwin measure: run a real command in a fresh memcg on this host and report what the twin
reports (read/write bytes, major faults, usage, memory.stat, PSI where there is one, wall time),
named as the engine names its metrics. The memcg is `memtwin-<run id>` (memtwin.leftovers'
convention, so `memtwin lab clean` removes it if this process is killed) and is removed on every
other exit path.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
import time

from . import hostcache, jsonio, leftovers, real, trace

UNITS = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


class MeasureError(Exception):
    pass


def add_parser(sub) -> None:
    m = sub.add_parser("measure", help="run a command in a fresh memcg on this host and report the twin's metrics",
                       description="Run CMD in a new memory cgroup with --limit (root), its files' page cache dropped "
                                   "first (--cold PATH, or the files a --trace names), and report read/write bytes, "
                                   "major faults, memcg usage and peak, memory.stat, PSI (cgroup v2) and wall time.")
    m.add_argument("--limit", metavar="SIZE", help="memcg hard limit, e.g. 64M (default: none)")
    m.add_argument("--cgroup-version", choices=["v1", "v2"], help="which hierarchy (default: the one mounted)")
    m.add_argument("--cold", action="append", default=[], metavar="PATH", help="drop this tree's page cache first (repeatable)")
    m.add_argument("--trace", metavar="FILE", help="drop the page cache of every file this trace names first")
    m.add_argument("--warm", action="store_true", help="keep the page cache as it is")
    m.add_argument("--out", metavar="FILE", help="also write the result as JSON")
    m.add_argument("command", nargs="+", metavar="CMD")


def parse_size(s: str) -> int:
    t = s.strip().lower().rstrip("ib").rstrip("b") if s else s
    try:
        if t and t[-1] in UNITS:
            return int(float(t[:-1]) * UNITS[t[-1]])
        return int(t)
    except (ValueError, IndexError):
        raise MeasureError(f"--limit {s}: error: not a size\n  fix: give bytes or a size like 64M, 1G") from None


def _controller(version):
    try:
        v, mnt = real.find_memory_controller()
    except real.RealError as e:
        raise MeasureError("memtwin measure: error: " + str(e)) from None
    if version and version != v:
        raise MeasureError(f"memtwin measure: error: this host's writable memory controller is cgroup {v}, not {version}\n"
                           f"  fix: use --cgroup-version {v}, or mount a {version} hierarchy")
    return v, mnt


def _cold(paths: list) -> None:
    for p in paths:
        if os.path.exists(p):
            hostcache.evict(p, sync=True)  # dirty pages would stay: write them back first


# At most this many files are looked at for the cache the command starts with.
START_CACHE_MAX_FILES = 100_000


def start_cache(paths: list) -> dict:
    """The page cache the command starts with, of the regular files at or below `paths` (the
    trace's files, or --cold's trees), by mincore(2): {path as named: [[first page, pages],
    ...]}, files with nothing cached left out. After the drop it is what POSIX_FADV_DONTNEED
    could not evict: invalidate_mapping_pages() (mm/truncate.c) skips a folio that is mapped,
    so the pages other processes map (libc, ld.so, locales) stay. The replay of a measurement
    starts from it (a trace task's `initial_cache = "MEASURED.json"`)."""
    out: dict = {}
    seen = 0
    for root in paths:
        if not os.path.exists(root) or seen >= START_CACHE_MAX_FILES:
            continue
        t = hostcache.TreeTotals(root)
        for path, _st in hostcache.walk(root, t, False):
            seen += 1
            if seen > START_CACHE_MAX_FILES:
                break
            try:
                r = hostcache.resident_ranges(path)
            except OSError:
                continue
            if r:
                out[path] = r
    return out


def _remove_cgroup(d: str) -> None:
    for _ in range(50):
        try:
            with open(os.path.join(d, "cgroup.procs")) as f:
                pids = [int(x) for x in f.read().split()]
        except OSError:
            return
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.rmdir(d)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.05)


def measure(cmd: list, limit: int | None, version: str | None, cold: list, warm: bool) -> dict:
    if os.geteuid() != 0:
        raise MeasureError("memtwin measure: error: needs root (it creates a memory cgroup)\n  fix: run it as root (sudo)")
    if not shutil.which(cmd[0]):
        raise MeasureError(f"{cmd[0]}: error: command not found\n  fix: check the name and PATH, or give its full path")
    v, mnt = _controller(version)
    if not warm:
        _cold(cold)
    cache = start_cache(cold) if cold else None   # no paths named: not known
    d = os.path.join(mnt, "memtwin-" + leftovers.run_id())
    os.mkdir(d)
    try:
        if limit is not None:
            real._write(os.path.join(d, "memory.limit_in_bytes" if v == "v1" else "memory.max"), str(limit))
        cg = real.Cg(v, mnt, d)
        before = cg.snapshot(d)
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        vm0 = real._kv(real._read("/proc/vmstat"))
        t = time.monotonic()
        procs = os.path.join(d, "cgroup.procs")

        def enter():
            with open(procs, "w") as f:
                f.write("0")

        p = subprocess.Popen(cmd, preexec_fn=enter, stdout=subprocess.DEVNULL)
        rc = p.wait()
        wall = time.monotonic() - t
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        vm1 = real._kv(real._read("/proc/vmstat"))
        after = cg.snapshot(d)
        stat = real._kv(real._read(os.path.join(d, "memory.stat")))
        psi = None
        if v == "v2" and os.path.exists(os.path.join(d, "memory.pressure")):
            psi = real._read(os.path.join(d, "memory.pressure")).strip()
    finally:
        _remove_cgroup(d)
    m = {
        "elapsed_s": round(wall, 4),
        "read_bytes": (ru1.ru_inblock - ru0.ru_inblock) * 512,
        "write_bytes": (ru1.ru_oublock - ru0.ru_oublock) * 512,
        "major_faults": ru1.ru_majflt - ru0.ru_majflt,
        "memcg.usage_bytes": after["usage"],
        "memcg.max_usage_bytes": after["max_usage"],
        "memcg.file_bytes": after["file"],
        "vmstat.pgmajfault": vm1.get("pgmajfault", 0) - vm0.get("pgmajfault", 0),
    }
    if before["failcnt"] is not None and after["failcnt"] is not None:
        m["memcg.failcnt"] = after["failcnt"] - before["failcnt"]
    # memory.stat's event counters of the fresh memcg, as the engine names them.
    for k in MEMCG_STAT:
        if k in stat:
            m["memcg." + k] = stat[k]
    # cold: the files named (--trace, --cold) were dropped first; nothing named, nothing dropped
    return {"command": cmd, "limit_bytes": limit, "cgroup_version": v, "cold": not warm and bool(cold), "exit_status": rc,
            "kernel": os.uname().release, "metrics": m, "memory.stat": stat, "psi": psi, "cgroup": d,
            "resident_at_start": cache,
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


# memory.stat counters that are engine metrics (memcg.NAME): v1 has the first four, v2 all.
MEMCG_STAT = ("pgpgin", "pgpgout", "pgfault", "pgmajfault", "pgscan", "pgsteal", "pgactivate", "pgdeactivate", "pgrefill",
              "workingset_refault_file", "workingset_activate_file", "workingset_restore_file")
# What measure reports that is not one of the engine's metrics (kept in `real`).
_NOT_METRICS = ("major_faults", "vmstat.pgmajfault")


def engine_layout(res: dict) -> dict:
    """A measurement in the layout of `memtwin run --json` (schema/result.schema.json): variant
    "default" with one step, `measure`, whose metrics are the measurement's engine metrics, and
    `real` saying where it ran; so `memtwin compare`, `validate --recorded` and the report read it
    as they read a `memtwin real` run."""
    m = {k: v for k, v in res["metrics"].items() if k not in _NOT_METRICS}
    cg = res.get("cgroup") or ""
    step = {"name": "measure", "task": "cmd", "memcg": "/" + os.path.basename(cg), "metrics": m}
    realinfo = {"on": "host", "kernel": res["kernel"], "date": res["date"], "timing_comparable": True,
                "read_bytes_source": "getrusage(RUSAGE_CHILDREN) ru_inblock x 512 of the command's process tree",
                "machine": {"cgroup": res["cgroup_version"]}, "command": res["command"], "limit_bytes": res["limit_bytes"],
                "cold": res["cold"], "exit_status": res["exit_status"],
                "rusage": {"major_faults": res["metrics"]["major_faults"]},
                "vmstat": {"pgmajfault": res["metrics"]["vmstat.pgmajfault"]},
                "memory.stat": res["memory.stat"], "psi": res["psi"]}
    if res.get("resident_at_start") is not None:
        realinfo["resident_at_start"] = res["resident_at_start"]
    return {"scenario": "measure " + os.path.basename(res["command"][0]),
            "variants": {"default": {"steps": [step], "totals": dict(m), "real": realinfo}}}


def run_cli(a) -> int:
    try:
        if a.out:
            jsonio.check_writable(a.out)
        cold = list(a.cold)
        if a.trace:
            with trace.Reader(a.trace) as r:
                cold += [f["path"] for f in r.header.get("files", []) if f.get("path")]
        res = measure(list(a.command), parse_size(a.limit) if a.limit else None, a.cgroup_version, cold, a.warm)
    except (MeasureError, trace.TraceError, jsonio.OutputError) as e:
        print(str(e), file=sys.stderr)
        return 1
    m = res["metrics"]
    print(f"{' '.join(res['command'])}: exit {res['exit_status']}, cgroup {res['cgroup_version']}, "
          f"limit {res['limit_bytes'] or 'none'}, "
          + ("cold cache" if res["cold"] else "warm cache" if a.warm else "the cache as it was (no --trace or --cold named files to drop)"))
    rc = res["resident_at_start"]
    if rc is None:
        pass   # no files named: the header line says so
    elif rc:
        pages = sum(n for rs in rc.values() for _f, n in rs)
        top = sorted(rc.items(), key=lambda kv: -sum(n for _f, n in kv[1]))[:3]
        print(f"  cached at the start: {pages} pages of {len(rc)} file(s) ("
              + ("the drop keeps pages other processes map: " if res["cold"] else "")
              + ", ".join(f"{os.path.basename(p)} {sum(n for _f, n in rs)}" for p, rs in top)
              + (", ..." if len(rc) > 3 else "") + ")")
    else:
        print("  cached at the start: nothing of the files named")
    for k in ("elapsed_s", "read_bytes", "write_bytes", "major_faults", "memcg.pgmajfault", "memcg.usage_bytes",
              "memcg.max_usage_bytes", "memcg.file_bytes", "memcg.failcnt"):
        if k in m:
            print(f"  {k:24} {m[k]}")
    if a.out:
        jsonio.write_json(a.out, engine_layout(res))
    return 0
