"""`memtwin size`: the smallest memory limit of a task's memcg that meets a service-level objective.

The limit is memory.max (cgroup v2), memory.limit_in_bytes (v1), or memory.high with
`--knob high` (v2 only). The objective compares a metric of the task, summed over its steps (or
one `--step`), with the same run without the limit (the knob set to `max`):

    SLO    := METRIC OP BOUND
    OP     := <= | < | >= | >
    BOUND  := NUMBER "x"      NUMBER times the unlimited run's value       elapsed<=1.10x
            | NUMBER "%"      a fraction (miss_ratio, psi.*): 5% = 0.05     miss_ratio<=5%
            | "+" NUMBER "%"  the unlimited run's value plus NUMBER percent read_bytes<=+50%
            | NUMBER[K|M|G|T] an absolute value (sizes in bytes)            read_bytes<=100M

METRIC is any name `memtwin metrics` lists, `miss_ratio` (pagecache_miss_pages / (hit + miss)),
or one of the aliases `elapsed` (elapsed_s), `refaults` (memcg.workingset_refault_file),
`misses` (pagecache_miss_pages); `psi.*` names are taken when the results carry them (the engine
reports no pressure-stall figures yet, nor major faults: such an SLO is refused, saying so).

The search is a bisection over page-aligned limits in `--between LO..HI` (default 16M..8G): the
loosest limit HI must meet the SLO (else the answer is that no limit in the range does), and it
stops when the interval is narrower than the resolution (default: the finer of 1M and 1/32 of the
range, at least a page). It assumes the metric does not get worse as the limit grows; the table of
evaluated points shows when a run contradicts that. With `--recorded SWEEP.json` (a `memtwin
sweep --on host` result over the knob, with a `max` point), the same bisection runs over the
recorded limits, on the real kernel's figures (or the engine's, `--source engine`).
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import time
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from memtwin._memtwin import ScenarioError
from memtwin.sweep import PAGE, UNITS, fmt_size, miss_ratio, parse_size

ALIASES = {"elapsed": "elapsed_s", "refaults": "memcg.workingset_refault_file", "misses": "pagecache_miss_pages",
           "hits": "pagecache_hit_pages", "major_faults": "memcg.pgmajfault", "pgmajfault": "memcg.pgmajfault"}
_SLO_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_.()\-]*)\s*(<=|>=|<|>)\s*(\+?)\s*([0-9]*\.?[0-9]+)\s*(x|X|%|[KMGTkmgt]?)\s*$")
DEFAULT_SLO = "elapsed<=1.10x"
DEFAULT_BETWEEN = "16M..8G"


def _err(where: str, what: str, fix: str) -> ScenarioError:
    return ScenarioError(f"{where}: error: {what}\n  fix: {fix}", [(where, what, fix)])


@dataclass
class Slo:
    text: str
    metric: str
    op: str
    kind: str  # "rel" (x), "plus" (+%), "abs"
    value: float

    def bound(self, unlimited: float) -> float:
        if self.kind == "rel":
            return self.value * unlimited
        if self.kind == "plus":
            return unlimited * (1 + self.value / 100.0)
        return self.value

    def meets(self, v: float, bound: float) -> bool:
        eps = 1e-9 * max(1.0, abs(bound))
        return {"<=": v <= bound + eps, "<": v < bound, ">=": v >= bound - eps, ">": v > bound}[self.op]

    def describe(self, unlimited: float) -> str:
        b = self.bound(unlimited)
        rel = {"rel": f"{self.value:g}x the unlimited run's", "plus": f"the unlimited run's +{self.value:g}%", "abs": ""}[self.kind]
        return f"{self.metric} {self.op} {_fmt(b)}" + (f" ({rel} {_fmt(unlimited)})" if rel else "")


def parse_slo(text: str, known: Sequence[str]) -> Slo:
    where = f"--slo {text}"
    grammar = "write METRIC OP BOUND, e.g. 'elapsed<=1.10x', 'read_bytes<=1.5x', 'miss_ratio<=5%', 'read_bytes<=100M' (see memtwin size --help)"
    m = _SLO_RE.match(text or "")
    if not m:
        raise _err(where, "not an objective", grammar)
    name, op, plus, num, unit = m.groups()
    metric = ALIASES.get(name, name)
    if metric not in known:
        near = difflib.get_close_matches(metric, list(known) + list(ALIASES), n=3)
        why = ("no such metric: PSI is psi.memory.some_us / full_us (stall time) and psi.memory.some_avg10 / _avg60 / "
               "_avg300 (averages)") if metric.startswith("psi.") else "no such metric"
        raise _err(where, f"unknown metric `{name}` ({why})",
                   ("did you mean " + ", ".join(f"`{n}`" for n in near) + "? " if near else "") + "see `memtwin metrics`; also miss_ratio, elapsed, refaults")
    v = float(num)
    if plus:
        if unit != "%":
            raise _err(where, f"`+{num}{unit}` needs a percent sign", f"write {name}{op}+{num}%")
        return Slo(text, metric, op, "plus", v)
    if unit in ("x", "X"):
        return Slo(text, metric, op, "rel", v)
    if unit == "%":
        return Slo(text, metric, op, "abs", v / 100.0)
    return Slo(text, metric, op, "abs", v * UNITS[unit.upper()])


def parse_between(text: str) -> tuple:
    where = f"--between {text}"
    lo_s, sep, hi_s = (text or "").partition("..")
    if not sep or not lo_s.strip() or not hi_s.strip():
        raise _err(where, "not a range", "write LO..HI with units, e.g. --between 16M..8G")
    lo, hi = parse_size(lo_s), parse_size(hi_s)
    for s, p in ((lo_s, lo), (hi_s, hi)):
        if p is None:
            raise _err(where, f"{s.strip()!r} is not a size", "write sizes as the kernel does: 16M, 1G, 8G")
        if not p[1] and p[0] != 0:
            raise _err(where, f"{s.strip()!r} has no unit", f"give it one, e.g. {s.strip()}M (plain numbers would be bytes: write them with a unit)")
    a = int(math.ceil(lo[0] * UNITS[lo[1]] / PAGE)) * PAGE
    b = int(math.floor(hi[0] * UNITS[hi[1]] / PAGE)) * PAGE
    if lo[0] * UNITS[lo[1]] > hi[0] * UNITS[hi[1]]:
        raise _err(where, "the range is reversed", f"write the smaller limit first: --between {hi_s.strip()}..{lo_s.strip()}")
    if a >= b or a <= 0:
        raise _err(where, "the range holds fewer than two page-aligned limits above 0", "widen it, e.g. --between 16M..8G")
    return a, b


def human(n: int) -> str:
    """A limit for people: 64M, 1G, else MiB with two decimals (64.75M); the bytes go beside it."""
    if n % (1 << 20) == 0:
        return fmt_size(n)
    return f"{n / (1 << 20):.2f}M"


def _fmt(v: Optional[float]) -> str:
    if v is None or v != v:
        return "-"
    if float(v).is_integer():
        return str(int(v))
    return f"{v:.6g}"


@dataclass
class Point:
    limit: Optional[int]  # None: unlimited
    value: float
    meets: Optional[bool] = None


@dataclass
class SizeResult:
    """The answer (bytes, or None when no limit in the range meets the SLO) and every evaluated point."""

    answer: Optional[int]
    slo: Slo
    unlimited: float
    bound: float
    points: list = field(default_factory=list)  # Point, in evaluation order
    lo: int = 0
    hi: int = 0
    resolution: int = 0
    knob: str = ""
    memcg: str = ""
    task: str = ""
    scenario: str = ""
    source: str = "engine"
    notes: list = field(default_factory=list)

    def table(self) -> str:
        rows = sorted((p for p in self.points if p.limit is not None), key=lambda p: p.limit)
        lines = [f"{'limit':>10} {self.slo.metric:>20} {'vs unlimited':>13}  meets"]
        un = self.unlimited
        for p in rows:
            rel = f"{p.value / un:.3f}x" if un else "-"
            lines.append(f"{human(p.limit):>10} {_fmt(p.value):>20} {rel:>13}  {'yes' if p.meets else 'no'}")
        lines.append(f"{'max':>10} {_fmt(un):>20} {'1.000x' if un else '-':>13}  (unlimited)")
        return "\n".join(lines)

    def sentence(self) -> str:
        if self.answer is None:
            return (f"no {self.knob} in {fmt_size(self.lo)}..{fmt_size(self.hi)} meets the SLO: at {fmt_size(self.hi)} "
                    f"{self.slo.metric} is {_fmt(self._at(self.hi))}, the bound {_fmt(self.bound)}")
        if self.source == "recorded":
            return (f"smallest {self.knob} meeting the SLO: {human(self.answer)} ({self.answer} bytes) among the recorded limits; "
                    f"{len(self.points)} recorded points looked at")
        return (f"smallest {self.knob} meeting the SLO: {human(self.answer)} ({self.answer} bytes), within {fmt_size(self.resolution)}; "
                f"{len(self.points)} runs")

    def _at(self, limit) -> Optional[float]:
        return next((p.value for p in self.points if p.limit == limit), None)


def bisect(evaluate: Callable[[Optional[int]], float], slo: Slo, lo: int, hi: int, resolution: Optional[int] = None,
           candidates: Optional[list] = None) -> SizeResult:
    """Bisection for the smallest limit meeting `slo`; `evaluate(limit)` gives the metric (None:
    unlimited). Over page-aligned limits in [lo, hi], or over `candidates` (recorded limits)."""
    points = []
    cache = {}

    def ev(limit):
        if limit not in cache:
            v = float(evaluate(limit))
            cache[limit] = v
            points.append(Point(limit, v))
        return cache[limit]

    un = ev(None)
    bound = slo.bound(un)

    def ok(limit):
        v = ev(limit)
        good = slo.meets(v, bound)
        for p in points:
            if p.limit == limit:
                p.meets = good
        return good

    if resolution is None:
        resolution = max(PAGE, min(1 << 20, (hi - lo) // 32) // PAGE * PAGE)
    res = SizeResult(None, slo, un, bound, points, lo, hi, resolution)
    if candidates is not None:
        cs = sorted(c for c in candidates if lo <= c <= hi)
        if not cs:
            raise _err("--between", f"no recorded limit lies in {fmt_size(lo)}..{fmt_size(hi)}", "widen --between to the recorded limits")
        res.lo, res.hi = cs[0], cs[-1]
        if not ok(cs[-1]):
            return res
        i, j = 0, len(cs) - 1
        if ok(cs[0]):
            res.answer = cs[0]
            return res
        while j - i > 1:
            m = (i + j) // 2
            if ok(cs[m]):
                j = m
            else:
                i = m
        res.answer = cs[j]
    else:
        if not ok(hi):
            return res
        if ok(lo):
            res.answer = lo
            return res
        a, b = lo, hi  # a fails, b meets
        while b - a > resolution:
            mid = a + (b - a) // 2 // PAGE * PAGE
            if mid <= a or mid >= b:
                break
            if ok(mid):
                b = mid
            else:
                a = mid
        res.answer = b
    bad = [p for p in points if p.limit is not None and res.answer is not None and p.limit > res.answer and p.meets is False]
    if bad:
        res.notes.append(f"the metric is not monotonic in the limit: {', '.join(fmt_size(p.limit) for p in bad)} above the answer "
                         "miss the SLO; a finer sweep (memtwin sweep) shows the curve")
    return res


def _sum(steps: list, metric: str, task: str, step: Optional[str]) -> float:
    chosen = [s for s in steps if s["task"] == task and (step is None or s["name"] == step)]
    if metric == "miss_ratio":
        tot = {k: sum(s["metrics"].get(k, 0) for s in chosen) for k in ("pagecache_hit_pages", "pagecache_miss_pages")}
        return miss_ratio(tot) or 0.0
    from memtwin.real import _is_level

    vals = [s["metrics"][metric] for s in chosen if s["metrics"].get(metric) is not None]
    if not vals:
        raise _err(f"--slo {metric}", f"the results report no {metric} for task {task}", "choose a metric they report (memtwin run FILE shows them)")
    return float(vals[-1] if _is_level(metric) else sum(vals))


def _target(scn, task: Optional[str], knob: str, variant: Optional[str], sets: Sequence[str]) -> tuple:
    """(task, memcg path, control file, cgroup version) of the search."""
    plan = scn.doc.plan(variant, list(sets))  # the variant and --set applied
    tasks = {t["name"]: t for t in plan["tasks"]}
    names = list(tasks)
    if task is None:
        if len(names) != 1:
            raise _err(scn.source, f"the scenario has {len(names)} tasks ({', '.join(names)})", "name the one to size with --task NAME")
        task = names[0]
    if task not in tasks:
        near = difflib.get_close_matches(task, names, n=1)
        raise _err(f"--task {task}", f"{scn.source} has no task {task!r}", (f"did you mean `{near[0]}`? " if near else "") + f"tasks: {', '.join(names)}")
    cg = tasks[task].get("cgroup")
    if not cg or cg in ("/", ""):
        raise _err(f"--task {task}", "the task runs in the root memcg: there is no limit to size", f"put it in a cgroup: [tasks.{task}] cgroup = \"NAME\" and [cgroups.NAME]")
    version = plan["cgroup"]
    if knob == "high":
        if version == "v1":
            raise _err("--knob high", "cgroup v1 has no memory.high", "size memory.limit_in_bytes (--knob max), or set kernel.cgroup = \"v2\"")
        ctl = "memory.high"
    else:
        ctl = "memory.limit_in_bytes" if version == "v1" else "memory.max"
    return task, cg, ctl, version


def size(scenario, task: Optional[str] = None, variant: Optional[str] = None, slo: str = DEFAULT_SLO, between: str = DEFAULT_BETWEEN,
         knob: str = "max", step: Optional[str] = None, sets: Sequence[str] = (), recorded: Optional[str] = None,
         source: str = "real", resolution: Optional[str] = None) -> SizeResult:
    """Find the smallest limit of the task's memcg meeting `slo` (see the module's grammar).
    With `recorded` (a `memtwin sweep` JSON), over its recorded limits, on `source` = real|engine."""
    from memtwin import _memtwin
    from memtwin.api import load

    scn = load(os.fspath(scenario))
    if knob not in ("max", "high"):
        raise _err(f"--knob {knob}", "the knob is max or high", "--knob max (memory.max, or memory.limit_in_bytes on v1) or --knob high")
    task, cg, ctl, _ = _target(scn, task, knob, variant, sets)
    known = set(_memtwin.metric_names()) | {"miss_ratio"}
    steps_names = list(scn.doc.step_names(variant))
    if step is not None and step not in steps_names:
        raise _err(f"--step {step}", f"the scenario has no step {step!r}", f"steps: {', '.join(dict.fromkeys(steps_names))}")
    key = f'cgroups."{cg}"."{ctl}"'
    lo, hi = parse_between(between)
    res_bytes = None
    if resolution is not None:
        p = parse_size(resolution)
        if p is None or p[0] <= 0:
            raise _err(f"--resolution {resolution}", "not a size above 0", "e.g. --resolution 1M")
        res_bytes = max(PAGE, int(p[0] * UNITS[p[1]]) // PAGE * PAGE)
    if recorded is None:
        s = parse_slo(slo, known)
        scn.check(variant, list(sets) + [f"{key}=max"])

        def evaluate(limit):
            raw = scn.doc.run(variant, list(sets) + [f"{key}={'max' if limit is None else limit}"], None)
            return _sum(raw["steps"], s.metric, task, step)

        out = bisect(evaluate, s, lo, hi, res_bytes)
        out.source = "engine"
    else:
        steps_at, src = _recorded(recorded, scn, key, cg, ctl, variant, source)
        kinds = set()
        for st in steps_at.values():
            for x in st:
                kinds |= set(x["metrics"])
        s = parse_slo(slo, (kinds | {"miss_ratio"}) if kinds else known)
        out = bisect(lambda limit: _sum(steps_at["max" if limit is None else limit], s.metric, task, step), s, lo, hi,
                     candidates=[k for k in steps_at if k != "max"])
        out.source = "recorded"
        out.notes.insert(0, f"from the recorded {src} figures of {recorded}")
    out.knob, out.memcg, out.task, out.scenario = ctl, cg, task, scn.name
    return out


def _recorded(path: str, scn, key: str, cg: str, ctl: str, variant: Optional[str], source: str) -> tuple:
    """{limit bytes or "max": steps} from a sweep JSON over the knob."""
    where = f"--recorded {path}"
    try:
        with open(path) as f:
            data = json.load(f)
    except OSError as e:
        raise _err(where, f"cannot read it ({e.strerror})", "give the sweep.json a `memtwin sweep --out DIR` wrote") from None
    except ValueError as e:
        raise _err(where, f"not JSON ({e})", "give the sweep.json a `memtwin sweep --out DIR` wrote") from None
    if not isinstance(data, dict) or "points" not in data:
        raise _err(where, "not a sweep result (no `points`)", "give the sweep.json a `memtwin sweep --out DIR` wrote")
    want = {key, f"cgroups.{cg}.\"{ctl}\"", f'cgroups.{cg}."{ctl}"'}
    vname = variant or "default"
    out = {}
    src = source
    for rec in data["points"]:
        if rec.get("variant") != vname:
            continue
        pt = dict((k, v) for k, v in rec["point"])
        k = next((kk for kk in pt if kk.replace(" ", "") in {w.replace(" ", "") for w in want}), None)
        if k is None:
            raise _err(where, f"its points do not sweep {ctl} of {cg} (they sweep {', '.join(pt)})", f"record a sweep over {key}")
        if source == "real":
            if "real" not in rec:
                raise _err(where, "it holds no real-kernel figures", "record it with memtwin sweep ... --on host, or use --source engine")
            steps = rec["real"]["steps"]
        else:
            steps = rec["steps"]
        v = str(pt[k]).strip().strip('"')
        if v == "max":
            out["max"] = steps
        else:
            p = parse_size(v)
            out[int(p[0] * UNITS[p[1]])] = steps
    if not out:
        raise _err(where, f"it holds no point of variant {vname}", "give --variant as recorded")
    if "max" not in out:
        raise _err(where, "it holds no unlimited point (the knob at `max`)", f"record the sweep with max among the values: --grid '{key}=...,max'")
    return out, src


def add_parser(sub, epilog: str = "") -> None:
    import argparse

    sz = sub.add_parser("size", help="the smallest memory limit of a task's memcg that meets an SLO (bisection)",
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        description="Find the smallest memory.max (memory.limit_in_bytes on cgroup v1; memory.high with --knob "
                                    "high) of the task's memcg that meets the SLO against the run without the limit, by "
                                    "bisection over page-aligned limits; print the answer and the evaluated points.\n\n"
                                    "SLO := METRIC OP BOUND; OP: <= < >= >; BOUND: 1.10x (times the unlimited run's value), "
                                    "+10% (the unlimited run's plus 10%), 5% (the fraction 0.05, for miss_ratio), 100M or "
                                    "2000 (absolute). METRIC: a name `memtwin metrics` lists, miss_ratio, or elapsed, "
                                    "refaults, misses. Metrics are summed over the task's steps (or --step).", epilog=epilog)
    sz.add_argument("file", metavar="FILE", help="scenario file (TOML)")
    sz.add_argument("--task", metavar="NAME", help="the task whose memcg is sized (default: the only task)")
    sz.add_argument("--variant", metavar="V", help="the variant to run")
    sz.add_argument("--slo", default=DEFAULT_SLO, metavar="SLO", help=f"the objective (default {DEFAULT_SLO!r}), e.g. 'read_bytes<=1.5x', 'miss_ratio<=5%%'")
    sz.add_argument("--between", default=DEFAULT_BETWEEN, metavar="LO..HI", help=f"the range searched (default {DEFAULT_BETWEEN})")
    sz.add_argument("--knob", choices=["max", "high"], default="max", help="max: memory.max or memory.limit_in_bytes; high: memory.high (v2)")
    sz.add_argument("--step", metavar="NAME", help="take the metric of this step only")
    sz.add_argument("--resolution", metavar="SIZE", help="stop when the interval is this narrow (default: the finer of 1M and 1/32 of the range)")
    sz.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE", help="override a setting (repeatable)")
    sz.add_argument("--recorded", metavar="SWEEP.json", help="search the limits a `memtwin sweep` recorded (sweep.json) instead of running")
    sz.add_argument("--source", choices=["real", "engine"], default="real", help="--recorded: the real kernel's figures (default) or the engine's")
    sz.add_argument("--json", metavar="OUT", help="also write the answer and the points as JSON")


def main(a) -> int:
    from memtwin.jsonio import check_writable, write_json

    if a.json:
        check_writable(a.json)
    t0 = time.perf_counter()
    r = size(a.file, a.task, a.variant, a.slo, a.between, a.knob, a.step, a.sets, a.recorded, a.source, a.resolution)
    print(f"{r.scenario}: task {r.task}, memcg {r.memcg}, {r.knob} in {fmt_size(r.lo)}..{fmt_size(r.hi)}"
          + (f", step {a.step}" if a.step else ", metrics summed over the task's steps"))
    print(f"SLO: {r.slo.describe(r.unlimited)}")
    for n in r.notes:
        print(f"note: {n}")
    print()
    print(r.table())
    print()
    print(r.sentence() + (f" ({time.perf_counter() - t0:.2f} s)" if r.source == "engine" else ""))
    if a.json:
        write_json(a.json, {"scenario": r.scenario, "task": r.task, "memcg": r.memcg, "knob": r.knob, "slo": r.slo.text,
                            "unlimited": r.unlimited, "bound": r.bound, "answer": r.answer, "source": r.source,
                            "points": [{"limit": p.limit, "value": p.value, "meets": p.meets} for p in r.points]})
        print(f"wrote {a.json}")
    return 0 if r.answer is not None else 1
