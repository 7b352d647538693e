"""`memtwin sweep`: run a scenario over a grid of settings, on local processes or a Ray cluster.

A grid is a list of axes. `--grid KEY=VALUES` is an axis of its own (the points are the
cartesian product of the axes); every `--zip KEY=VALUES` belongs to one axis whose keys advance
together. VALUES are comma-separated items, each a value as `--set` takes it (`8M`, `max`, `v2`)
or a range with its step:

    LO..HI:xF      geometric: LO, LO*F, LO*F^2, ... up to HI (F > 1)
    LO..HI:+STEP   linear: LO, LO+STEP, ... up to HI (STEP > 0)

LO, HI and STEP are numbers or sizes with the kernel's binary units (`64M..1G:x2`,
`64M..1G:+64M`); if one of them carries a unit, all of them must. Sizes in a range are rounded to
whole 4 KiB pages. HI is included when the steps land on it.

Each (point, variant) runs once (the engine is deterministic) and its result is written
atomically to DIR/points/HASH.json as soon as it is known, HASH being a digest of the scenario
file, the --set overrides, the point, the variant and where it ran. A second run with the same
--out skips the points already there, so a sweep stopped by Ctrl-C, SIGTERM, SIGKILL or a lost
worker finishes where it stopped. DIR/manifest.json records the scenario and the grid; another
grid or scenario in the same DIR is refused unless --force.

Results: DIR/sweep.parquet and DIR/sweep.csv, a tidy table with a row per (point, variant,
source, step) in grid order (source `engine`, and `real` for `--on host`), the swept keys and
every metric as columns, plus the derived `miss_ratio` = pagecache_miss_pages / (hit + miss): the
page-cache misses of the workload per page it accessed, by read(), write() or through a file
mapping (a touch, MAP_POPULATE, mlock's population; a private copy's accesses are not page-cache
ones). A miss is an access whose page was not in the page cache (a read() miss, a write() that
adds the page, a major fault) or was read ahead for the stream and not accessed since (read()'s
readahead, a fault's read-around, mapped or not by fault-around): what had to come from the
disk for it. A mapped-file workload's miss_ratio is that of its faults, not 0;
DIR/sweep.json (every point's record, for `memtwin size --recorded`); PNG plots and a
self-contained DIR/sweep.html (see sweepplots.py for the knee).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import re
import signal
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from memtwin._memtwin import ScenarioError

PAGE = 4096
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50}
_SIZE_RE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([KMGTPkmgtp]?)(?:i?[Bb])?\s*$")
DEFAULT_OUT = os.path.join("build", "sweep")
FORMAT = 1  # of the point records and the manifest


def _err(where: str, what: str, fix: str) -> ScenarioError:
    return ScenarioError(f"{where}: error: {what}\n  fix: {fix}", [(where, what, fix)])


class SweepError(Exception):
    """Points failed or could not run; the message reads `PLACE: error: WHAT` / `  fix: HOW`.
    `finished` and `failed` list the (point, variant) pairs."""

    def __init__(self, message: str, finished: int = 0, failed: Optional[list] = None):
        super().__init__(message)
        self.finished = finished
        self.failed = failed or []


# --- values and ranges --------------------------------------------------------------------------

def parse_size(text: str) -> Optional[tuple]:
    """(number, unit letter) of `128`, `64M`, `1.5G`; None if it is not a number or size."""
    m = _SIZE_RE.match(text)
    if not m:
        return None
    return float(m.group(1)), m.group(2).upper()


def numeric(text: str) -> Optional[float]:
    """The value of a swept setting as a number: sizes in bytes, `max` as infinity; else None."""
    t = str(text).strip().strip('"').strip("'")
    if t == "max":
        return math.inf
    p = parse_size(t)
    return None if p is None else p[0] * UNITS[p[1]]


def fmt_size(n: int) -> str:
    """Bytes with the largest binary unit that divides them (8M, 1536M, 1G), as --set takes it."""
    for u in ("P", "T", "G", "M", "K"):
        if n and n % UNITS[u] == 0:
            return f"{n // UNITS[u]}{u}"
    return str(n)


def _fmt_num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(round(x, 12))


def expand_range(where: str, item: str) -> tuple:
    """(values, scale) of `LO..HI:xF` or `LO..HI:+STEP`; scale is "log" or "linear"."""
    body, _, step = item.partition(":")
    lo_s, _, hi_s = body.partition("..")
    example = "e.g. 64M..1G:x2 (geometric) or 64M..1G:+64M (linear)"
    if not lo_s.strip() or not hi_s.strip():
        raise _err(where, f"the range {item!r} has no {'start' if not lo_s.strip() else 'end'}", f"write LO..HI:xF or LO..HI:+STEP, {example}")
    if not step:
        raise _err(where, f"the range {item!r} has no step", f"add :xF (geometric) or :+STEP (linear), {example}")
    lo, hi = parse_size(lo_s), parse_size(hi_s)
    for s, p in ((lo_s, lo), (hi_s, hi)):
        if p is None:
            raise _err(where, f"{s.strip()!r} in the range {item!r} is not a number or a size", f"write sizes as the kernel does (4096, 128K, 64M, 1G), {example}")
    sized = bool(lo[1] or hi[1])
    if sized and not (lo[1] and hi[1]):
        bare = lo_s if not lo[1] else hi_s
        raise _err(where, f"{bare.strip()!r} in the range {item!r} has no unit while the other end has one",
                   f"give both ends a unit, e.g. {_fmt_num(lo[0])}{lo[1] or hi[1]}..{_fmt_num(hi[0])}{hi[1] or lo[1]}:{step}")
    a, b = lo[0] * UNITS[lo[1]], hi[0] * UNITS[hi[1]]
    if a > b:
        raise _err(where, f"the range {item!r} is reversed (its start is above its end)", f"write it from the smaller to the larger value: {hi_s.strip()}..{lo_s.strip()}:{step}")
    vals: list = []
    if step[:1] in ("x", "X", "*"):
        try:
            f = float(step[1:])
        except ValueError:
            f = float("nan")
        if not f > 1:
            raise _err(where, f"the factor {step!r} of the range {item!r} must be a number above 1", f"e.g. {body}:x2")
        if a <= 0:
            raise _err(where, f"the geometric range {item!r} starts at 0", f"start it above 0, or use a linear step, e.g. {body}:+{hi_s.strip()}")
        i = 0
        while True:
            v = a * f ** i
            if v > b * (1 + 1e-9):
                break
            vals.append(v)
            i += 1
        scale = "log"
    elif step[:1] == "+":
        st = parse_size(step[1:])
        if st is None:
            raise _err(where, f"the step {step!r} of the range {item!r} is not a number or a size", f"e.g. {body}:+64M")
        if sized and not st[1]:
            raise _err(where, f"the step {step!r} of the range {item!r} has no unit while its ends have one", f"give the step a unit, e.g. :+{_fmt_num(st[0])}{lo[1]}")
        d = st[0] * UNITS[st[1]]
        if d <= 0:
            raise _err(where, f"the step {step!r} of the range {item!r} is not above 0", f"e.g. {body}:+{hi_s.strip()}")
        n = int(math.floor((b - a) / d + 1e-9))
        vals = [a + i * d for i in range(n + 1)]
        scale = "linear"
    else:
        raise _err(where, f"the step {step!r} of the range {item!r} is neither :xF nor :+STEP", example)
    if sized:
        out, seen = [], set()
        for v in vals:
            n = max(PAGE, int(round(v / PAGE)) * PAGE)
            if n not in seen:
                seen.add(n)
                out.append(fmt_size(n))
        return out, scale
    return [_fmt_num(v) for v in vals], scale


def parse_axis_arg(flag: str, arg: str) -> tuple:
    """(key, values, scale) of one `--grid/--zip KEY=V1,V2,...` argument."""
    key, eq, rhs = arg.partition("=")
    where = f"{flag} {arg}"
    if not eq or not key.strip():
        raise _err(where, "expected KEY=V1,V2,... or KEY=LO..HI:STEP", "e.g. --grid 'cgroups.ct.\"memory.max\"=64M..1G:x2'")
    key = key.strip()
    if not rhs.strip():
        raise _err(where, f"no values for {key}", "list values (8M,16M) or a range (8M..2G:x2)")
    values, scale = [], "linear"
    for item in _split_items(rhs):
        item = item.strip()
        if not item:
            raise _err(where, "an empty value in the list", "remove the doubled or trailing comma")
        if ".." in item and not item.startswith(("\"", "'", "[")):
            vs, scale = expand_range(where, item)
            values.extend(vs)
        else:
            values.append(item)
    dup = sorted({v for v in values if values.count(v) > 1})
    if dup:
        raise _err(where, f"the value(s) {', '.join(dup)} appear twice", "list each value once")
    if scale == "linear":
        nums = [numeric(v) for v in values]
        fin = [x for x in nums if x is not None and math.isfinite(x) and x > 0]
        if len(fin) >= 3 and None not in nums and max(fin) / min(fin) >= 16:
            scale = "log"
    return key, values, scale


def _split_items(s: str) -> list:
    """Split on commas outside quotes and brackets (a TOML array value stays whole)."""
    out, cur, depth, q = [], [], 0, None
    for ch in s:
        if q:
            cur.append(ch)
            if ch == q:
                q = None
        elif ch in "\"'":
            q = ch
            cur.append(ch)
        elif ch in "[{":
            depth += 1
            cur.append(ch)
        elif ch in "]}":
            depth -= 1
            cur.append(ch)
        elif ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


@dataclass
class Grid:
    """Axes of keys that advance together; `points()` is their product, the last axis fastest."""

    axes: list = field(default_factory=list)  # [[(key, values, scale), ...], ...]

    @classmethod
    def parse(cls, grid: Sequence[str] = (), zips: Sequence[str] = ()) -> "Grid":
        g = cls()
        keys = []
        for a in grid:
            k, vs, sc = parse_axis_arg("--grid", a)
            g.axes.append([(k, vs, sc)])
            keys.append(k)
        z = [parse_axis_arg("--zip", a) for a in zips]
        if z:
            n = {len(vs) for _, vs, _ in z}
            if len(n) > 1:
                lens = ", ".join(f"{k} has {len(vs)}" for k, vs, _ in z)
                raise _err("--zip", f"the --zip lists differ in length ({lens})", "give every --zip key as many values: they advance together")
            g.axes.append(z)
            keys.extend(k for k, _, _ in z)
        if not g.axes:
            raise _err("sweep", "nothing to sweep", "add --grid KEY=V1,V2,... (or --zip), e.g. --grid 'cgroups.ct.\"memory.max\"=64M..1G:x2'")
        twice = sorted({k for k in keys if keys.count(k) > 1})
        if twice:
            raise _err("--grid", f"{', '.join(twice)} swept twice", "sweep each key once (--zip keys advance together)")
        return g

    @classmethod
    def from_dict(cls, grid: Optional[dict] = None, zips: Optional[dict] = None) -> "Grid":
        def arg(k, v):
            return f"{k}={v if isinstance(v, str) else ','.join(str(x) for x in v)}"

        return cls.parse([arg(k, v) for k, v in (grid or {}).items()], [arg(k, v) for k, v in (zips or {}).items()])

    @property
    def keys(self) -> list:
        return [k for ax in self.axes for k, _, _ in ax]

    def scale(self, key: str) -> str:
        return next(sc for ax in self.axes for k, _, sc in ax if k == key)

    def values(self, key: str) -> list:
        return next(vs for ax in self.axes for k, vs, _ in ax if k == key)

    def points(self) -> list:
        """Every point as a list of (key, value), in grid order."""
        per_axis = [[[(k, vs[i]) for k, vs, _ in ax] for i in range(len(ax[0][1]))] for ax in self.axes]
        return [[kv for part in combo for kv in part] for combo in itertools.product(*per_axis)]

    def to_json(self) -> list:
        return [[{"key": k, "values": vs, "scale": sc} for k, vs, sc in ax] for ax in self.axes]


def point_sets(point: list) -> list:
    return [f"{k}={v}" for k, v in point]


def point_hash(scn_digest: str, sets: Sequence[str], point: list, variant: str, on: str) -> str:
    ident = {"scenario": scn_digest, "sets": list(sets), "point": [[k, v] for k, v in point], "variant": variant, "on": on}
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:20]


# --- the worker -----------------------------------------------------------------------------------

_DOCS: dict = {}


def _doc(text: str, source: str, digest: str):
    from memtwin import _memtwin

    d = _DOCS.get(digest)
    if d is None:
        d = _DOCS[digest] = _memtwin.load_toml(text, source)
    return d


def _steps_of(raw_steps: list) -> list:
    return [{"name": s["name"], "task": s["task"], "memcg": s["memcg"], "metrics": s["metrics"]} for s in raw_steps]


def run_point(task: dict) -> dict:
    """Run one (point, variant): the engine, and with on = host the real kernel too. Runs in a
    worker process (local pool or Ray); returns the point's record."""
    t0 = time.perf_counter()
    crash = os.environ.get("MEMTWIN_SWEEP_TEST_CRASH")  # tests: a worker dying mid-point
    if crash and any(v == crash for _, v in task["point"]):
        os.kill(os.getpid(), signal.SIGKILL)
    doc = _doc(task["text"], task["source"], task["digest"])
    variant = task["variant"]
    sets = task["sets"] + point_sets(task["point"])
    t1 = time.perf_counter()
    raw = doc.run(None if variant == "default" else variant, sets, None)
    sim = time.perf_counter() - t1
    rec = {"format": FORMAT, "hash": task["hash"], "scenario": raw["scenario"], "point": [[k, v] for k, v in task["point"]],
           "variant": variant, "steps": _steps_of(raw["steps"]), "nr_errors": raw.get("nr_errors", 0),
           "sim_s": sim, "engine": {"page_events": raw["engine"].get("page_events"), "virtual_time_s": raw["engine"].get("virtual_time_s")}}
    if task["on"] == "host":
        from memtwin import real as realmod

        plan = doc.plan(None if variant == "default" else variant, sets)
        res = realmod.run_host(plan, task.get("scratch") or "/var/tmp")
        rec["real"] = {"steps": _steps_of(res["steps"]), "info": res.get("real", {})}
    rec["worker_s"] = time.perf_counter() - t0
    return rec


def _init_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver stops the pool on Ctrl-C


# --- the driver ---------------------------------------------------------------------------------

@dataclass
class Plan:
    path: str
    name: str
    digest: str
    text: str
    sets: list
    grid: Grid
    variants: list
    on: str
    tasks: list  # dicts for run_point, grid order


def plan_sweep(path: str, grid: Grid, variants: Optional[Sequence[str]] = None, sets: Sequence[str] = (), on: str = "engine",
               scratch: Optional[str] = None) -> Plan:
    """Load the scenario, check every (point, variant) with the engine's own checks before
    anything runs, and list the runs."""
    from memtwin.api import load

    scn = load(path)
    with open(path, "rb") as f:
        text = f.read().decode("utf-8")
    digest = hashlib.sha256(text.encode()).hexdigest()
    declared = [v for v, _ in scn.variants()]
    if variants:
        unknown = [v for v in variants if v not in declared]
        if unknown:
            raise _err(f"--variants {','.join(variants)}", f"{path} has no variant {', '.join(unknown)}",
                       f"use some of: {', '.join(declared) or '(none: leave --variants out)'}")
        wanted = list(variants)
    else:
        wanted = declared or ["default"]
    problems = []
    points = grid.points()
    for point in points:
        for v in wanted:
            try:
                scn.check(None if v == "default" else v, list(sets) + point_sets(point))
            except ScenarioError as e:
                msg = str(e.args[0] if e.args else e)
                if msg not in problems:
                    problems.append(msg)
    if problems:
        raise ScenarioError("\n".join(problems[:10]) + (f"\n... and {len(problems) - 10} more" if len(problems) > 10 else ""), [])
    if on == "host":
        from memtwin import real as realmod

        for v in wanted:
            why = realmod.unsupported(scn.doc.plan(None if v == "default" else v, list(sets)))
            if why:
                raise _err(f"--variants {v}", f"variant {v} needs a policy no real kernel has: {why}", "sweep --on host over other variants (--variants)")
    tasks = []
    for point in points:
        for v in wanted:
            tasks.append({"source": path, "text": text, "digest": digest, "sets": list(sets), "point": point, "variant": v, "on": on,
                          "scratch": scratch, "hash": point_hash(digest, sets, point, v, on)})
    return Plan(path, scn.name, digest, text, list(sets), grid, wanted, on, tasks)


def manifest_of(plan: Plan) -> dict:
    return {"format": FORMAT, "scenario": plan.name, "source": plan.path, "scenario_sha256": plan.digest,
            "sets": plan.sets, "grid": plan.grid.to_json(), "variants": plan.variants, "on": plan.on}


def _check_manifest(out_dir: str, plan: Plan, force: bool) -> None:
    from memtwin.jsonio import write_json

    mpath = os.path.join(out_dir, "manifest.json")
    new = manifest_of(plan)
    if os.path.exists(mpath):
        try:
            with open(mpath) as f:
                old = json.load(f)
        except (OSError, ValueError) as e:
            old = {"unreadable": str(e)}
        ident = ("scenario_sha256", "sets", "grid", "variants", "on")
        diff = [k for k in ident if old.get(k) != new.get(k)]
        if diff and not force:
            what = {"scenario_sha256": "the scenario file", "sets": "the --set overrides", "grid": "the grid", "variants": "the variants", "on": "--on"}
            raise _err(out_dir, f"holds another sweep ({', '.join(what[k] for k in diff)} differ{'s' if len(diff) == 1 else ''}; see {mpath})",
                       "use another --out DIR, or --force to sweep into it anyway (points are keyed by scenario, settings and "
                       "variant, so the other sweep's points are kept but not mixed into this one's table)")
    write_json(mpath, new)


def _points_dir(out_dir: str) -> str:
    return os.path.join(out_dir, "points")


def _load_done(out_dir: str, tasks: list) -> dict:
    done = {}
    for t in tasks:
        p = os.path.join(_points_dir(out_dir), t["hash"] + ".json")
        try:
            with open(p) as f:
                rec = json.load(f)
        except (OSError, ValueError):
            continue  # missing; a torn file cannot exist (atomic writes) but is re-run if it does
        if rec.get("hash") == t["hash"]:
            done[t["hash"]] = rec
    return done


def write_point(path: str, rec: dict) -> None:
    """One point's record, atomically; compact JSON (json's C encoder: indented output would
    take the pure-Python one, several ms a point)."""
    from memtwin.jsonio import _clean, write_text

    try:
        text = json.dumps(rec, separators=(",", ":"), allow_nan=False)
    except ValueError:  # inf or NaN: null, as every memtwin JSON writes them
        text = json.dumps(_clean(rec), separators=(",", ":"))
    write_text(path, text + "\n")


def _label(t: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in t["point"]) + f" [{t['variant']}]"


def _probe_ray(address: str, timeout: float = 5.0) -> None:
    import socket

    if address in ("auto", "local"):
        return
    hp = address.split("://", 1)[-1]
    host, _, port = hp.rpartition(":")
    fix = "start one with `ray start --head` (it prints the address), or give --ray without an address to start a local cluster"
    if not host or not port.isdigit():
        raise _err(f"--ray {address}", "not an address of the form HOST:PORT (or ray://HOST:PORT)", fix)
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as e:
        why = "timed out" if isinstance(e, socket.timeout) else (e.strerror or str(e))
        raise _err(f"--ray {address}", f"cannot reach a Ray cluster there ({why}, after at most {timeout:g} s)", fix) from None


def _run_local(todo: list, jobs: int, on_done: Callable, on_fail: Callable) -> None:
    import concurrent.futures as cf
    from concurrent.futures.process import BrokenProcessPool

    if jobs == 1 and os.environ.get("MEMTWIN_SWEEP_INPROCESS") == "1":
        for t in todo:  # in this process (benchmarks of the overhead)
            on_done(t, run_point(t))
        return
    ex = cf.ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker)
    futs = {}
    try:
        for t in todo:
            futs[ex.submit(run_point, t)] = t
        for fu in cf.as_completed(futs):
            t = futs[fu]
            try:
                rec = fu.result()
            except BrokenProcessPool:
                on_fail(t, "its worker process died (killed or crashed) while the pool ran it")
                continue
            except Exception as e:  # noqa: BLE001 - a point's own failure, reported with it
                on_fail(t, f"{type(e).__name__}: {str(e.args[0] if e.args else e).splitlines()[0]}")
                continue
            on_done(t, rec)
    except BaseException:
        for p in list(getattr(ex, "_processes", {}).values()):
            try:
                p.terminate()
            except Exception:  # noqa: BLE001
                pass
        ex.shutdown(wait=False, cancel_futures=True)
        raise
    ex.shutdown(wait=True)


def _run_ray(todo: list, jobs: int, address: Optional[str], on_done: Callable, on_fail: Callable, ready: Callable = lambda: None) -> str:
    try:
        import ray
    except ImportError:
        raise _err("--ray", "Ray is not installed", "pip install 'memtwin[ray]' (or pip install ray), or sweep on local processes without --ray") from None
    import logging

    started = False
    if not ray.is_initialized():
        if address and address != "local":
            _probe_ray(address)
            try:
                ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
            except Exception as e:  # noqa: BLE001
                chain, c = [], e
                while c is not None and len(chain) < 5:
                    chain.append(c)
                    c = c.__cause__ or c.__context__
                if any("AuthToken" in str(x) or type(x).__name__ == "AuthenticationError" for x in chain):
                    raise _err(f"--ray {address}", "the Ray cluster refused this client: it wants its authentication token",
                               "export RAY_AUTH_MODE=token and the cluster's token (RAY_AUTH_TOKEN, or the file ~/.ray/auth_token "
                               "copied from the head node), then run the sweep again") from None
                raise _err(f"--ray {address}", f"cannot connect to the Ray cluster ({str(e).splitlines()[0]})",
                           "check the address `ray status` prints on the head node; its Ray and Python versions must match this one's") from None
        else:
            # a new cluster here (address="local": never one a stale /tmp/ray file names); its workers
            # inherit this process's environment (PYTHONPATH included)
            ray.init(address="local", num_cpus=jobs, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
        started = True
    where = ray.get_runtime_context().gcs_address if hasattr(ray.get_runtime_context(), "gcs_address") else "ray"
    ready()
    remote = ray.remote(num_cpus=1)(run_point)
    refs = {}
    try:
        for t in todo:
            refs[remote.remote(t)] = t
        pending = list(refs)
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for r in ready:
                t = refs[r]
                try:
                    rec = ray.get(r)
                except Exception as e:  # noqa: BLE001 - RayTaskError, WorkerCrashedError, ...
                    cause = getattr(e, "cause", None)
                    msg = f"{type(cause or e).__name__}: {str((cause or e).args[0] if (cause or e).args else (cause or e)).splitlines()[0]}"
                    on_fail(t, msg)
                    continue
                on_done(t, rec)
    except BaseException:
        for r in refs:
            try:
                ray.cancel(r, force=True)
            except Exception:  # noqa: BLE001
                pass
        raise
    finally:
        if started:
            ray.shutdown()
    return str(where)


@dataclass
class SweepRun:
    plan: Plan
    out_dir: str
    records: list  # grid order, finished ones
    skipped: int
    ran: int
    failed: list  # (task, reason)
    wall_s: float
    where: str
    jobs: int = 1
    sims: list = field(default_factory=list)

    def table(self):
        return tidy_table(self.plan, self.records)


def run_sweep(plan: Plan, out_dir: str, jobs: Optional[int] = None, ray: Optional[str] = None, force: bool = False,
              progress: Optional[Callable] = None, log: Callable = lambda s: None) -> SweepRun:
    """Run the plan's missing points into OUT_DIR/points; return what is there and what failed."""
    from memtwin.jsonio import ensure_dir

    if jobs is not None and jobs < 1:
        raise _err("--jobs", f"must be 1 or more, not {jobs}", "e.g. --jobs 2")
    jobs = jobs or os.cpu_count() or 1
    if plan.on == "host":
        if ray is not None:
            raise _err("--on host", "real-kernel runs cannot go to a Ray cluster", "leave out --ray: host runs go one at a time on this machine")
        jobs = 1  # real runs would disturb each other's page cache and timings
        from memtwin import real as realmod

        ok, why = realmod.host_ready()
        if not ok:
            raise _err("--on host", f"this host cannot run the scenario: {why}", "run as root on a host with a writable memory controller")
    if ray is not None and ray not in ("local", "auto"):
        _probe_ray(ray)  # before anything is written
    ensure_dir(out_dir)
    ensure_dir(_points_dir(out_dir))
    _check_manifest(out_dir, plan, force)
    done = _load_done(out_dir, plan.tasks)
    todo = [t for t in plan.tasks if t["hash"] not in done]
    skipped = len(plan.tasks) - len(todo)
    where = ("a Ray cluster" + (f" at {ray}" if ray not in ("local", None) else f" of {jobs} CPUs started here")) if ray is not None else \
        f"{jobs} local process{'es' if jobs != 1 else ''}"
    log(f"{plan.name}: {len(plan.tasks) // max(1, len(plan.variants))} points x {len(plan.variants)} variant(s) = {len(plan.tasks)} runs; "
        f"{skipped} already done in {out_dir}, {len(todo)} to run" + (f" on {where}" if todo else ""))
    failed: list = []
    sims: list = []  # simulation seconds of the runs made now
    state = {"n": skipped}
    total = len(plan.tasks)

    def on_done(t, rec):
        write_point(os.path.join(_points_dir(out_dir), t["hash"] + ".json"), rec)
        done[t["hash"]] = rec
        sims.append(rec.get("sim_s", 0.0))
        state["n"] += 1
        clock["last"] = time.perf_counter()
        if progress:
            progress(state["n"], total)

    def on_fail(t, why):
        failed.append((t, why))

    t0 = time.perf_counter()
    clock = {"t0": t0}

    def ready():
        clock["start_s"] = time.perf_counter() - t0
        clock["t0"] = time.perf_counter()
        log(f"Ray cluster ready in {clock['start_s']:.1f} s")

    if todo:
        if ray is not None:
            _run_ray(todo, jobs, ray, on_done, on_fail, ready)
        else:
            _run_local(todo, min(jobs, len(todo)), on_done, on_fail)
    wall = clock.get("last", time.perf_counter()) - clock["t0"]  # to the last point (not the cluster's shutdown)
    records = [done[t["hash"]] for t in plan.tasks if t["hash"] in done]
    return SweepRun(plan, out_dir, records, skipped, len(todo) - len(failed), failed, wall, where, jobs, sims)


# --- the table ------------------------------------------------------------------------------------

def key_column(values: Sequence[str]) -> list:
    """A swept key's column: numbers (sizes in bytes, `max` as inf) when every value is one."""
    nums = [numeric(v) for v in values]
    if None in nums:
        return [str(v) for v in values]
    if all(math.isfinite(x) and float(x).is_integer() for x in nums):
        return [int(x) for x in nums]
    return [float(x) for x in nums]


def miss_ratio(m: dict) -> Optional[float]:
    """pagecache_miss_pages / (pagecache_hit_pages + pagecache_miss_pages) of a step's metrics:
    the page-cache misses per page accessed by read(), write() or a file mapping (see the module
    doc); 0 for a step that accessed no page-cache page, None when the metrics lack either."""
    h, mi = m.get("pagecache_hit_pages"), m.get("pagecache_miss_pages")
    if h is None or mi is None:
        return None
    return (mi / (h + mi)) if (h + mi) else 0.0


def tidy_table(plan: Plan, records: list):
    """A row per (point, variant, source, step) in grid order, the swept keys and every metric
    as columns (plus miss_ratio). Deterministic: the same records give the same table."""
    import pandas as pd
    from memtwin import _memtwin

    keys = plan.grid.keys
    colvals = {k: dict(zip(plan.grid.values(k), key_column(plan.grid.values(k)))) for k in keys}
    order = list(_memtwin.metric_names())
    seen = set(order)
    extra = []
    for rec in records:
        for s in rec["steps"] + rec.get("real", {}).get("steps", []):
            for m in s["metrics"]:
                if m not in seen:
                    seen.add(m)
                    extra.append(m)
    metrics = order + sorted(extra)
    cols = ["point", *keys, "variant", "source", "step_index", "step", "task", "memcg", *metrics, "miss_ratio"]
    data: dict = {c: [] for c in cols}
    for rec in records:
        pt = dict((k, v) for k, v in rec["point"])
        for source, steps in (("engine", rec["steps"]), ("real", rec.get("real", {}).get("steps"))):
            if steps is None:
                continue
            for i, s in enumerate(steps):
                data["point"].append(rec["hash"])
                for k in keys:
                    data[k].append(colvals[k][pt[k]])
                for c, v in (("variant", rec["variant"]), ("source", source), ("step_index", i), ("step", s["name"]),
                             ("task", s["task"]), ("memcg", s["memcg"])):
                    data[c].append(v)
                sm = s["metrics"]
                for m in metrics:
                    data[m].append(sm.get(m))
                data["miss_ratio"].append(miss_ratio(sm))
    df = pd.DataFrame(data, columns=cols)
    # a metric no step reports (None everywhere) stays a float column of NaN, not objects
    for m in metrics:
        if df[m].dtype == object:
            df[m] = pd.to_numeric(df[m], errors="coerce")
    df["miss_ratio"] = df["miss_ratio"].astype("float64")
    return df


def write_tables(out_dir: str, df, records: list, plan: Plan) -> list:
    """DIR/sweep.parquet, DIR/sweep.csv and DIR/sweep.json, each written atomically."""
    from memtwin.jsonio import write_bytes, write_json, write_text

    paths = []
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        pa = None
    if pa is not None:
        sink = pa.BufferOutputStream()
        pq.write_table(pa.Table.from_pandas(df, preserve_index=False), sink)
        p = os.path.join(out_dir, "sweep.parquet")
        write_bytes(p, sink.getvalue().to_pybytes())
        paths.append(p)
    p = os.path.join(out_dir, "sweep.csv")
    write_text(p, df.to_csv(index=False))
    paths.append(p)
    p = os.path.join(out_dir, "sweep.json")
    write_json(p, {**manifest_of(plan), "points": records})
    paths.append(p)
    return paths


def metric_columns(df) -> list:
    """The metric columns of a sweep table (engine metrics, any extra such as psi.*, miss_ratio)."""
    fixed = {"point", "variant", "source", "step_index", "step", "task", "memcg"}
    i = list(df.columns).index("memcg")
    return [c for c in list(df.columns)[i + 1:] if c not in fixed]


def totals_by_point(df, source: str = "engine", step: Optional[str] = None, task: Optional[str] = None):
    """A row per (point, variant) in grid order: counters summed over the steps (of `task`, or
    only `step`), levels from the last step, miss_ratio from the summed hits and misses."""
    import pandas as pd
    from memtwin.real import _is_level

    d = df[df["source"] == source]
    if task is not None:
        d = d[d["task"] == task]
    if step is not None:
        d = d[d["step"] == step]
    ms = [m for m in metric_columns(df) if m != "miss_ratio"]
    swept = list(df.columns)[1:list(df.columns).index("variant")]
    grouped = d.groupby(["point", "variant"], sort=False)
    levels = [m for m in ms if _is_level(m)]
    counters = [m for m in ms if not _is_level(m)]
    # One aggregation per kind, joined at once (agg with a dict inserts a column at a time).
    parts = [grouped[swept].first(), grouped[counters].sum(), grouped[levels].last()]
    out = pd.concat(parts, axis=1)[swept + ms].reset_index()
    present = grouped[ms].count().reset_index(drop=True)
    for m in ms:  # a metric no step reports stays missing, not 0
        if (present[m] == 0).any():
            out.loc[(present[m] == 0).values, m] = float("nan")
    if "pagecache_hit_pages" in out and "pagecache_miss_pages" in out:
        tot = out["pagecache_hit_pages"] + out["pagecache_miss_pages"]
        out["miss_ratio"] = (out["pagecache_miss_pages"] / tot.where(tot != 0)).where(tot != 0, 0.0).where(tot.notna())
    return pd.DataFrame(out)


# --- the command and the Python API ---------------------------------------------------------------

def _failed_message(run: SweepRun) -> str:
    lines = [f"sweep {run.out_dir}: error: {len(run.failed)} of {len(run.plan.tasks)} runs failed "
             f"({len(run.records)} finished and kept in {_points_dir(run.out_dir)})"]
    for t, why in run.failed[:20]:
        lines.append(f"  failed: {_label(t)}: {why}")
    if len(run.failed) > 20:
        lines.append(f"  ... and {len(run.failed) - 20} more")
    lines.append("  fix: re-run the same command: it runs only the missing points (a point that fails again "
                 "fails the same way: run it alone with `memtwin run FILE --set ...` to see why)")
    return "\n".join(lines)


def sweep(scenario: str, grid: Optional[dict] = None, zip: Optional[dict] = None, variants: Optional[Sequence[str]] = None,  # noqa: A002
          jobs: Optional[int] = None, ray: Optional[str] = None, out: Optional[str] = None, sets: Sequence[str] = (),
          on: str = "engine", force: bool = False):
    """Sweep a scenario file over `grid` ({KEY: "8M..2G:x2" or [values]}; `zip` keys advance
    together) for every variant (or `variants`), on `jobs` local processes or on Ray (`ray`:
    "local" starts a cluster here, else an address). Returns the tidy DataFrame (a row per point,
    variant, source and step). With `out`, the points, tables and plots are kept there (and a
    re-run skips the finished points); without, a temporary directory is used."""
    import tempfile

    g = Grid.from_dict(grid, zip)
    plan = plan_sweep(os.fspath(scenario), g, variants, sets, on)
    if out is None:
        with tempfile.TemporaryDirectory(prefix="memtwin-sweep-") as d:
            return _api_run(plan, d, jobs, ray, force, write=False)
    return _api_run(plan, out, jobs, ray, force, write=True)


def _api_run(plan, out_dir, jobs, ray, force, write):
    run = run_sweep(plan, out_dir, jobs, ray, force)
    if run.failed:
        raise SweepError(_failed_message(run), len(run.records), [(_label(t), w) for t, w in run.failed])
    df = run.table()
    if write:
        write_tables(out_dir, df, run.records, plan)
    return df


def add_parser(sub, epilog: str = "") -> None:
    sw = sub.add_parser("sweep", help="run a scenario over a grid of settings (local processes or Ray), tables and plots",
                        description="Run every point of a grid of settings for every variant, in parallel on local processes "
                                    "or a Ray cluster; write a tidy table (Parquet, CSV), plots and DIR/sweep.html. A re-run "
                                    "with the same --out runs only the missing points.", epilog=epilog)
    sw.add_argument("file", metavar="FILE", help="scenario file (TOML)")
    sw.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2,...",
                    help="a swept key and its values, as --set takes them, or a range LO..HI:xF (geometric) or LO..HI:+STEP "
                         "(linear), e.g. --grid 'cgroups.ct.\"memory.limit_in_bytes\"=8M..2G:x2' (repeatable: the product)")
    sw.add_argument("--zip", action="append", default=[], metavar="KEY=V1,V2,...",
                    help="keys that advance together (every --zip list the same length)")
    sw.add_argument("--variants", metavar="A,B", help="only these variants (default: every variant)")
    sw.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE", help="a fixed override for every point (repeatable)")
    sw.add_argument("--jobs", type=int, default=None, metavar="N", help="local worker processes, or the CPUs of a Ray cluster started here (default: the CPU count)")
    sw.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                    help="run the points as Ray tasks: without ADDRESS on a Ray cluster started here (ray.init), with it on "
                         "that cluster (HOST:PORT or ray://HOST:PORT)")
    sw.add_argument("--on", choices=["engine", "host"], default="engine",
                    help="host: also run every point on this host's kernel (memtwin real --on host, root), one at a time")
    sw.add_argument("--scratch", metavar="DIR", default="/var/tmp", help="--on host: the scratch directory's parent")
    sw.add_argument("--out", metavar="DIR", default=DEFAULT_OUT, help=f"where the points, tables, plots and sweep.html go (default {DEFAULT_OUT})")
    sw.add_argument("--force", action="store_true", help="sweep into a DIR that holds another grid or scenario")
    sw.add_argument("--no-plots", action="store_true", help="write the tables only")


def cmd_sweep(a) -> int:
    from memtwin.progress import Progress

    grid = Grid.parse(a.grid, a.zip)
    variants = [v.strip() for v in a.variants.split(",") if v.strip()] if a.variants else None
    if a.variants is not None and not variants:
        raise _err(f"--variants {a.variants}", "no variant named", "e.g. --variants baseline,recharge")
    plan = plan_sweep(a.file, grid, variants, a.sets, a.on, a.scratch)
    bar = Progress(f"sweep {plan.name}")
    log = lambda s: print(s, flush=True)  # noqa: E731
    try:
        run = run_sweep(plan, a.out, a.jobs, a.ray, a.force, bar, log)
    except ScenarioError:
        bar.close()
        raise
    except BaseException:  # Ctrl-C, SIGTERM, ...: say what is kept
        bar.close()
        n = len(_load_done(a.out, plan.tasks)) if os.path.isdir(_points_dir(a.out)) else 0
        print(f"\nsweep: {n} of {len(plan.tasks)} runs are finished and kept in {_points_dir(a.out)}; "
              "re-run the same command to run the rest", file=sys.stderr)
        raise
    bar.close()
    if run.ran:
        per = run.wall_s / run.ran
        sim = sum(run.sims) / len(run.sims) if run.sims else 0.0
        print(f"ran {run.ran} in {run.wall_s:.2f} s ({run.ran / run.wall_s * 60:.0f} runs/min); simulation {sim * 1e3:.1f} ms/run, "
              f"overhead {max(0.0, per * min(run.jobs, run.ran) - sim) * 1e3:.1f} ms/run")
    df = run.table()
    if len(df):
        paths = write_tables(a.out, df, run.records, plan)
        _print_summary(plan, df)
        if not a.no_plots:
            from memtwin.sweepplots import write_report

            paths += write_report(a.out, plan, df)
        for p in paths:
            print(f"wrote {p}")
    if run.failed:
        print(_failed_message(run), file=sys.stderr)
        return 1
    return 0


SUMMARY_METRICS = ["elapsed_s", "read_bytes", "memcg.workingset_refault_file", "miss_ratio"]
MISS_RATIO_NOTE = ("miss_ratio: page-cache misses per page accessed by read(), write() or a file mapping (a major fault's "
                   "page and read-around's pages count as misses)")


def _print_summary(plan: Plan, df) -> None:
    from memtwin.report import fmt_value
    from memtwin.sweepplots import knees

    tot = totals_by_point(df)
    real = totals_by_point(df, "real") if (df["source"] == "real").any() else None
    keys = plan.grid.keys
    ms = [m for m in SUMMARY_METRICS if m in tot.columns]
    cols = [(m, tot, m) for m in ms]
    if real is not None:  # the kernel's figures beside the twin's (times are wall clock: not comparable)
        cols += [(m, real, f"{m} (kernel)") for m in ms if not m.endswith("_s") and real[m].notna().any()]
    if len(tot) <= 60:
        vals = {k: dict(zip(key_column(plan.grid.values(k)), plan.grid.values(k))) for k in keys}
        w = [max(12, len(k)) for k in keys]
        print(" ".join(f"{k:>{wi}}" for k, wi in zip(keys, w)) + f" {'variant':>12} " + " ".join(f"{h:>16}" for _, _, h in cols))
        for i, r in tot.iterrows():
            cells = []
            for m, t, _ in cols:
                v = t[m].iloc[i] if i < len(t) else float("nan")
                cells.append(f"{fmt_value(v) if v == v else '-':>16}")
            print(" ".join(f"{vals[k].get(r[k], r[k])!s:>{wi}}" for k, wi in zip(keys, w)) + f" {r['variant']:>12} " + " ".join(cells))
    else:
        print(f"{len(tot)} (point, variant) rows: see sweep.csv")
    if "miss_ratio" in ms:
        print(MISS_RATIO_NOTE)
    for line in knees(plan, df):
        print(line)


main = cmd_sweep
