"""`memtwin validate`: the engine against a real kernel, metric by metric.

For each variant a real kernel can run (a variant needing a policy no kernel has is skipped and
said so, unless it was recorded on, or runs on, a patched lab kernel that has the policy as a run-time
switch: memtwin.kernelbuild), the engine runs the scenario and the real side comes from a run on this host, in QEMU,
or from the recorded results the scenario's `[validation] recorded` names. Each metric of
`[validation.tolerance]` is compared step by step: |sim - real| <= max(rel * |real|, abs), abs the
step's own when the metric lists it (`steps = { "STEP" = ABS }`, `tolerances`).
A scenario with `[published.checks]` against recorded real figures (the QEMU dying-cgroup and
list_lru runs) has those checks evaluated too.

A recording set (`recorded = ["real/A.json", "real/B.json", ...]`: several boots of one scenario
on the same kernel) is for mechanisms a kernel draws at random per boot (6.3+'s memcg LRU bins,
`get_random_u32_below()`), or whose outcome varies from run to run with the host's timing (a
recorded program's measures at a tight limit, lab/record_trace_validation.py --runs N): the
engine runs once per recording, run i with `kernel.boot_seed = i` (another boot of the engine;
for a measured program, from the cache measured run i started with; for a QEMU boot that measured
its guest's CPU speed, `real.machine.cpu.cpu_slowdown`, with `machine.cpu_slowdown` as measured, or
since lrugen6 `code_slowdown`/`copy_slowdown` and `wakeup_latency_ns` as `machine.cpu_slowdown`,
`copy_slowdown` and `wakeup_latency`, since lrugen10 the split from the guest's reads of a file on
the scenario's disk where it made them, and the recorded runner's time between each task's steps
as `tasks.NAME.step_gaps`: `set_run_sets`, `recorded_step_gaps`, also for a single recording; since
wbt23 the runner's set-up writes and when each ended before the tasks, `real.setup_writes`, as
`validation.setup_writes`: `recorded_setup_writes`), and
a metric passes when the
engine runs' median and the recordings' median agree within the tolerance (`_set_ok`; one
recording and one run is the single rule). A metric the scenario declares bimodal (`[[validation.bimodal]]`: the
kernel decides it per boot between two modes, so a dozen boots' median lands in either by the
draw) is compared by the share of boots in its event mode, Fisher's exact test of the kernel's
k of n against the engine's K of 4 n boots (`bimodal_boot_plan`, `fisher_exact_p`), and by its
median among those boots (`Bimodal`, `bimodal_specs`).

A recorded program (issue 18: a scenario whose task replays a trace, scenarios/validation/
trace-*.toml) is validated the same way: its recorded results are `memtwin measure` runs of the
program (one variant per memcg limit), checked to have been measured at the variant's limit
(`_check_measured_limit`); on the host its real side is the program measured again
(`measure_trace`), and the twin starts from the cache that run started with.
"""

from __future__ import annotations

import json
import math
import os
import statistics
from dataclasses import dataclass
from typing import Optional

from memtwin import progress
from memtwin._memtwin import ScenarioError
from memtwin.api import load, run
from memtwin.progress import Progress
from memtwin.published import evaluate


def _err(where: str, msg: str, fix: str) -> ScenarioError:
    return ScenarioError(f"{where}: error: {msg}\n  fix: {fix}", [(where, msg, fix)])


@dataclass
class Row:
    variant: str
    step: str
    metric: str
    sim: Optional[float]
    real: Optional[float]
    rel: float
    abs: float
    known: Optional[str] = None  # why it is a known disagreement ([[validation.known_out]])
    # a recording set: every engine run's and every recording's value (sim and real are their
    # medians)
    sims: Optional[list] = None
    reals: Optional[list] = None
    # a metric the scenario declares bimodal ([[validation.bimodal]]): the comparison's figures
    # (`Bimodal`); sims then holds every engine boot's value (more boots than recordings) and
    # sim/real are the medians among the boots in the event mode
    bimodal: Optional["Bimodal"] = None
    # within its tolerance only through a documented compensating error: why it is no evidence
    # ([[validation.not_evidence]], review52 M2); printed per row and not counted as agreement
    not_evidence: Optional[str] = None

    @property
    def diff(self) -> Optional[float]:
        if self.sim is None or self.real is None:
            return None
        return self.sim - self.real

    @property
    def allowed(self) -> float:
        return max(self.rel * abs(self.real or 0), self.abs)

    def allowed_at(self, x: float) -> float:
        return max(self.rel * abs(x), self.abs)

    @property
    def ok(self) -> bool:
        if self.bimodal is not None:
            return self.bimodal.share_ok and self.bimodal.value_ok(self.allowed_at)
        if self.reals is not None and self.sims is not None:
            return _set_ok(self.sims, self.reals, self.allowed_at)
        return self.diff is not None and abs(self.diff) <= self.allowed

    @property
    def counts_as_bad(self) -> bool:
        """Out of tolerance and not a listed known disagreement, or listed as one but back
        within tolerance (the listing must then go)."""
        return (not self.ok) != bool(self.known)


def _median(xs: list) -> float:
    import statistics

    return float(statistics.median(xs))


def _set_ok(sims: list, reals: list, allowed) -> bool:
    """The rule for a recording set: the engine runs' median agrees with the recordings' median
    as a single run agrees with a single recording (|sim - real| <= `allowed(real)`: max(rel *
    |real|, abs)). Each recording is one draw of the kernel's per-boot randomness and each engine
    run one of the engine's: their typical outcomes must agree, so a miss on the typical outcome
    cannot pass on the strength of one extreme boot on either side (the ranges are printed for
    the reader, not judged). One recording and one run: the single rule. A missing value on
    either side fails."""
    if not sims or not reals or any(v is None for v in sims) or any(v is None for v in reals):
        return False
    rm = _median(reals)
    return abs(_median(sims) - rm) <= allowed(rm)


# A metric the kernel decides per boot between two modes (`[[validation.bimodal]]`; issue 22: 6.12's
# parent-stream re-reads 0 or 4-31 MiB of A, by where memcg's periodic rstat flush falls): the median
# of a dozen boots falls in either mode by the draw, so such a metric is compared by (a) the share
# of boots in the event mode and (b) its median among those boots.
# The engine's boots per recording for a bimodal metric: the engine's boot i runs at
# `kernel.boot_seed = i` and recording (i mod n)'s measured machine (`bimodal_boot_plan`): boots
# 0..n-1 are the runs every other metric is compared with, the rest are cheap extra draws of the
# engine's per-boot randomness (an engine run of a parent-stream scenario takes about 0.1 s), so
# that the engine's share is known to +-0.07 (one standard error at p 0.5, 48 boots) and the test
# below is limited by the kernel's n alone.
BIMODAL_BOOTS_PER_RECORDING = 4
# The level of the share's test: Fisher's exact test (two-sided, `fisher_exact_p`) of the kernel's
# k of n boots in the event mode against the engine's K of M; the shares agree unless p < 0.05, the
# conventional level: a twin whose share is the kernel's fails at most 5% of the sets (fewer: the
# test is conservative). Fisher's test conditions on both sides' counts, so it accounts for the
# kernel's small n and the engine's M together, exactly (no normal approximation, which 12 boots
# do not support). What it cannot do at n = 12: tell shares apart by less than about 0.3 (the
# kernel's 7 of 12, 0.58, passes against 13 to 41 of the engine's 48, 0.27 to 0.85, and fails at 12
# or fewer and 42 or more): a pass says the engine's share is within what 12 boots resolve, not
# that it equals the kernel's.
BIMODAL_ALPHA = 0.05


def fisher_exact_p(k: int, n: int, K: int, M: int) -> float:
    """Fisher's exact test, two-sided: the probability, with the margins fixed (k + K boots in the
    event mode among n + M), of a split of the event boots between the n and the M boots as
    unlikely as k and K or less (the hypergeometric tables whose probability is at most the
    observed one's). Exact integers (math.comb), so the result is the same on every machine."""
    if not (0 <= k <= n and 0 <= K <= M and n + M > 0):
        raise ValueError(f"fisher_exact_p: counts out of range: {k}/{n} and {K}/{M}")
    t = k + K
    num = lambda x: math.comb(t, x) * math.comb(n + M - t, n - x)  # noqa: E731
    obs = num(k)
    # every table whose probability is at most the observed one's (integers: no rounding)
    tail = sum(num(x) for x in range(max(0, t - M), min(t, n) + 1) if num(x) <= obs)
    return tail / math.comb(n + M, n)


@dataclass
class BimodalSpec:
    """One `[[validation.bimodal]]` entry: at `step` (of `variant`, or of every variant), a boot is
    in the event mode when its `by` value is above `above`; `metrics` are compared by the share of
    boots in that mode and their median among those boots."""
    variant: Optional[str]
    step: str
    metrics: list
    event: str
    by: str
    above: float
    why: str


def bimodal_specs(spec: dict, where: str, tol: dict, locate=None, variants: Optional[list] = None) -> list:
    """The scenario's `[[validation.bimodal]]` entries, checked: each names `step`, `metrics` (of
    `[validation.tolerance]`), `event` (what the event mode is, as printed: "P's limit reclaim
    deactivates A"), `by` (the metric of the step that decides the mode, of the tolerance table),
    `above` (a boot is in the event mode when `by` > `above`), `why` (why the kernel's outcome is
    bimodal and why that threshold), and may name a `variant`. `locate(path)` gives an entry's
    file:line. A metric may be declared bimodal once per variant and step."""
    entries = spec.get("bimodal", [])
    fix = ('write [[validation.bimodal]] with variant = "VARIANT" (optional), step = "STEP", metrics = ["METRIC", ...], '
           'event = "what the event mode is", by = "METRIC", above = NUMBER, why = "why the metric is bimodal and the threshold"')
    if not isinstance(entries, list):
        raise _err(f"{where}.bimodal", "bimodal must be an array of tables", fix)
    keys = {"variant", "step", "metrics", "event", "by", "above", "why"}
    out, seen = [], set()
    for i, e in enumerate(entries):
        w = (locate(["validation", "bimodal", str(i)]) if locate else None) or f"{where}.bimodal[{i}]"
        at = lambda k: (locate(["validation", "bimodal", str(i), k]) if locate else None) or f"{where}.bimodal[{i}].{k}"  # noqa: E731
        if not isinstance(e, dict):
            raise _err(w, "each bimodal entry must be a table", fix)
        missing, extra = sorted(keys - {"variant"} - set(e)), sorted(set(e) - keys)
        if missing or extra:
            raise _err(w, "a bimodal entry " + (f"lacks {', '.join(missing)}" if missing else "")
                       + ("; " if missing and extra else "") + (f"has unknown key(s) {', '.join(extra)}" if extra else ""), fix)
        for k in ("step", "event", "by", "why") + (("variant",) if "variant" in e else ()):
            if not isinstance(e[k], str) or not e[k].strip():
                raise _err(at(k), f"{k} must be a non-empty string, not {e[k]!r}", fix)
        if variants is not None and "variant" in e and e["variant"] not in variants:
            raise _err(at("variant"), f"the scenario has no variant {e['variant']!r}",
                       f"name one of {', '.join(map(repr, variants))} or remove variant (every variant)" if variants
                       else "the scenario declares no variants: remove variant")
        ms = e["metrics"]
        if not isinstance(ms, list) or not ms or not all(isinstance(m, str) for m in ms) or len(set(ms)) != len(ms):
            raise _err(at("metrics"), f"metrics must be a non-empty array of distinct metric names, not {ms!r}", fix)
        for m in ms + [e["by"]]:
            if m not in tol:
                raise _err(at("by" if m == e["by"] and m not in ms else "metrics"),
                           f"{m!r} is not a metric of [validation.tolerance]",
                           f"name one of {', '.join(sorted(tol))}, or add its tolerance")
        a = e["above"]
        if not isinstance(a, (int, float)) or isinstance(a, bool) or not math.isfinite(a):
            raise _err(at("above"), f"above must be a number (a boot is in the event mode when {e['by']} > above), not {a!r}", fix)
        for m in ms:
            k = (e.get("variant"), e["step"], m)
            clash = [x for x in seen if x[1:] == k[1:] and (x[0] is None or k[0] is None or x[0] == k[0])]
            if clash:
                raise _err(at("metrics"), f"{m!r} at step {e['step']!r} is declared bimodal twice", "declare it in one entry")
            seen.add(k)
        out.append(BimodalSpec(e.get("variant"), e["step"], list(ms), e["event"].strip(), e["by"], float(a), e["why"]))
    return out


def bimodal_boot_plan(n: int, base: int = 0, per: int = BIMODAL_BOOTS_PER_RECORDING) -> list:
    """[(kernel.boot_seed, recording index)] of the engine's boots against a set of n recordings
    where a metric is declared bimodal: boot j at seed base + j and recording j mod n's measured
    machine, j < per * n; the first n are the runs every other metric is compared with (at base
    0, the runs validate makes without a bimodal metric). Fixed by n and base: the same boots run
    after run."""
    return [(base + j, j % n) for j in range(per * n)]


@dataclass
class Bimodal:
    """The figures of a bimodal metric's comparison (`compare_step_sets`): k of n recordings and
    K of M engine boots in the event mode, Fisher's p of the two shares, the metric's values at
    those boots (both sides)."""
    spec: BimodalSpec
    k: int
    n: int
    K: int
    M: int
    p: float
    sims: list   # the metric at the engine's boots in the event mode
    reals: list  # ... at the recordings in it
    all_sims: list
    all_reals: list

    @property
    def share_ok(self) -> bool:
        return self.p >= BIMODAL_ALPHA

    @property
    def conditional(self) -> bool:
        """Whether (b) compares the boots in the event mode: both sides have some."""
        return bool(self.sims) and bool(self.reals)

    def value_ok(self, allowed) -> bool:
        """(b): the medians among the boots in the event mode agree as `_set_ok` has it. Where a
        side has no boot in that mode there is no value of it to compare: then the medians over
        every boot (the rule without the declaration), so that the other mode's value is still
        held to the kernel's (the share, (a), is judged either way)."""
        return _set_ok(*self.compared, allowed)

    @property
    def compared(self) -> tuple:
        """(engine, kernel) values (b) compares: those in the event mode, or every boot's when
        a side has none."""
        return (self.sims, self.reals) if self.conditional else (self.all_sims, self.all_reals)


def _bimodal_row(first, spec: BimodalSpec, sims: list, reals: list, sim_by: list, real_by: list):
    """The row of a bimodal metric: `sims`/`reals` the metric at every engine boot / recording,
    `sim_by`/`real_by` the deciding metric (`spec.by`) at the same step and boot."""
    if any(v is None for v in sims + reals + sim_by + real_by):
        b = None
    else:
        es = [v for v, d in zip(sims, sim_by) if d > spec.above]
        er = [v for v, d in zip(reals, real_by) if d > spec.above]
        k, K = sum(d > spec.above for d in real_by), sum(d > spec.above for d in sim_by)
        b = Bimodal(spec, k, len(reals), K, len(sims), fisher_exact_p(k, len(reals), K, len(sims)), es, er, sims, reals)
    if b is None:
        sim = real = None
    else:
        cs, cr = b.compared
        sim, real = (_median(cs) if cs else None), (_median(cr) if cr else None)
    row = Row(first.variant, first.step, first.metric, sim, real, first.rel, first.abs, first.known, sims=sims, reals=reals, bimodal=b)
    if b is None:
        row.sims = row.sims + [None]  # a missing value fails the row (`ok` without figures)
    return row


def known_out(spec: dict, where: str, key: str = "known_out") -> dict:
    """`[[validation.known_out]]`: {(variant or None, step, metric): why} of the disagreements
    the scenario documents, each with its cause (`key = "not_evidence"`: the rows within only
    through a documented compensating error, [[validation.not_evidence]], review52 M2)."""
    out = {}
    entries = spec.get(key, [])
    if not isinstance(entries, list):
        raise _err(f"{where}.{key}", f"{key} must be an array of tables", f'write [[validation.{key}]] with step, metric and why')
    for i, e in enumerate(entries):
        w = f"{where}.{key}[{i}]"
        if not isinstance(e, dict) or not {"step", "metric", "why"} <= set(e) or set(e) - {"step", "metric", "why", "variant"}:
            raise _err(w, f"each {key} entry needs step, metric and why (and may name a variant)",
                       'write { step = "STEP", metric = "METRIC", why = "what causes it" }')
        if not str(e["why"]).strip():
            raise _err(w, "why is empty", "say what causes the disagreement" if key == "known_out" else "say why the agreement is no evidence")
        out[(e.get("variant"), e["step"], e["metric"])] = str(e["why"])
    return out


def tolerances(spec: dict, where: str) -> dict:
    """{metric: (rel, abs, {step: abs})} of `[validation.tolerance]`. A metric's tolerance is a
    number (rel), `{ rel, abs }`, or `{ rel, abs, steps = { "STEP" = ABS, ... } }`: a step listed
    in `steps` is held to its own abs, every other step to `abs` (review10 M2: a boot set's quiet
    steps are held to their own spread, not to the noisiest step's, whose band can include 0)."""
    tol = spec.get("tolerance")
    if not isinstance(tol, dict) or not tol:
        raise _err(where, "[validation] needs a tolerance table", 'add [validation.tolerance] with e.g. read_bytes = 0.10')
    out = {}
    fix = 'write {k} = 0.10, {k} = {{ rel = 0.10, abs = 4096 }} or {k} = {{ rel = 0.10, abs = 4096, steps = {{ "read 1" = 1736 }} }}'
    num = lambda x: isinstance(x, (int, float)) and not isinstance(x, bool) and x >= 0  # noqa: E731
    for k, v in tol.items():
        if num(v):
            out[k] = (float(v), 0.0, {})
        elif isinstance(v, dict) and set(v) <= {"rel", "abs", "steps"} and all(num(v[x]) for x in ("rel", "abs") if x in v):
            steps = v.get("steps", {})
            if not isinstance(steps, dict) or not steps and "steps" in v:
                raise _err(f"{where}.tolerance.{k}.steps", f"steps must be a non-empty table of step name = abs, not {steps!r}",
                           fix.format(k=k))
            for st, ab in steps.items():
                if not num(ab):
                    raise _err(f"{where}.tolerance.{k}.steps.{st}", f"a step's abs must be a number >= 0, not {ab!r}", fix.format(k=k))
            out[k] = (float(v.get("rel", 0.0)), float(v.get("abs", 0.0)), {st: float(ab) for st, ab in steps.items()})
        else:
            raise _err(f"{where}.tolerance.{k}", f"a tolerance must be a number >= 0 or {{rel, abs, steps}} of numbers >= 0, not {v!r}",
                       fix.format(k=k))
    return out


def _value(step: dict, metric: str) -> Optional[float]:
    if metric == "resident_pages":
        # the machine's page-cache total: `pagecache` (engine and runners since issue 17), or the
        # sum of a whole-machine snapshot (runs recorded before, which listed every file)
        if step.get("pagecache") is not None:
            return float(step["pagecache"])
        rp = step.get("resident_pages")
        return None if rp is None else float(sum(rp.values()))
    v = step["metrics"].get(metric)
    if v is None and metric == "sched.run_delay_s":
        # the host runner records the task's run-queue wait in the step's `sched` block
        # (/proc/PID/schedstat run_delay over the step, real.sched_window)
        v = (step.get("sched") or {}).get("run_delay_s")
    return None if v is None else float(v)


def compare_steps(variant: str, sim_steps: list, real_steps: list, tol: dict, only: Optional[list], where: str,
                  known: Optional[dict] = None) -> list:
    rows = []
    if [s["name"] for s in sim_steps] != [s["name"] for s in real_steps]:
        # tasks may end steps in another order on a real kernel: match by (task, name, occurrence)
        pass
    key = lambda s, seen: (s["task"], s["name"], seen)  # noqa: E731
    real_by = {}
    seen = {}
    for s in real_steps:
        n = seen.get((s["task"], s["name"]), 0)
        seen[(s["task"], s["name"])] = n + 1
        real_by[key(s, n)] = s
    seen = {}
    for s in sim_steps:
        n = seen.get((s["task"], s["name"]), 0)
        seen[(s["task"], s["name"])] = n + 1
        if only and s["name"] not in only:
            continue
        r = real_by.get(key(s, n))
        if r is None:
            raise _err(where, f"variant {variant}: the real results have no step {s['name']!r} of task {s['task']}",
                       "re-record the real results for this scenario (memtwin real FILE --on ... --json OUT)")
        for m, (rel, ab, per_step) in tol.items():
            why = (known or {}).get((variant, s["name"], m)) or (known or {}).get((None, s["name"], m))
            rows.append(Row(variant, s["name"], m, _value(s, m), _value(r, m), rel, per_step.get(s["name"], ab), why))
    names = {s["name"] for s in sim_steps}
    for m, (_, _, per_step) in tol.items():
        unknown = sorted(set(per_step) - names)
        if unknown:
            raise _err(f"{where}.tolerance.{m}.steps", f"variant {variant} has no step {', '.join(map(repr, unknown))}",
                       f"name steps of the scenario ({', '.join(sorted(names))}) or remove the entry")
    return rows


def compare_step_sets(variant: str, sim_runs: list, real_runs: list, tol: dict, only: Optional[list], where: str,
                      known: Optional[dict] = None, bimodal: Optional[list] = None, extra_runs: Optional[list] = None) -> list:
    """The rows of a recording set: `sim_runs` (the engine's runs' steps) against `real_runs`
    (each recording's steps), matched step by step as `compare_steps` matches one pair; each
    row carries every value (`sims`, `reals`) and their medians (`sim`, `real`). A metric of
    `bimodal` (`BimodalSpec`s; those naming another variant are passed over) is compared over
    `sim_runs + extra_runs`, the engine's further boots (`bimodal_boot_plan`), by the share of
    boots in its event mode and its median among them (`Bimodal`, `_bimodal_row`)."""
    specs = [b for b in bimodal or [] if b.variant in (None, variant)]
    boots = sim_runs + (extra_runs or []) if specs else sim_runs
    per_pair = [compare_steps(variant, sim_runs[min(i, len(sim_runs) - 1)], r, tol, only, where, known)
                for i, r in enumerate(real_runs)]
    per_sim = [compare_steps(variant, s, real_runs[0], tol, only, where, known) for s in boots]

    def keyed(rs: list) -> dict:
        # (step, metric, occurrence): tasks may end their steps in another order run to run
        seen, out = {}, {}
        for r in rs:
            n = seen.get((r.step, r.metric), 0)
            seen[(r.step, r.metric)] = n + 1
            out[(r.step, r.metric, n)] = r
        return out

    pairs, runs = [keyed(rs) for rs in per_pair], [keyed(rs) for rs in per_sim]
    for b in specs:
        if not any(k[0] == b.step for k in pairs[0]):
            raise _err(where, f"variant {variant}: bimodal names step {b.step!r}, which the variant does not compare",
                       f"name a step of the scenario ({', '.join(sorted(dict.fromkeys(k[0] for k in pairs[0])))}) in [[validation.bimodal]]")
    rows = []
    for k, first in keyed(per_pair[0]).items():
        reals = [p[k].real if k in p else None for p in pairs]
        spec = next((b for b in specs if b.step == k[0] and k[1] in b.metrics), None)
        if spec is not None:
            by = (k[0], spec.by, k[2])
            rows.append(_bimodal_row(first, spec, [r[k].sim if k in r else None for r in runs], reals,
                                     [r[by].sim if by in r else None for r in runs], [p[by].real if by in p else None for p in pairs]))
            continue
        sims = [r[k].sim if k in r else None for r in runs[:len(sim_runs)]]
        med = lambda xs: None if any(v is None for v in xs) else _median(xs)  # noqa: E731
        rows.append(Row(variant, first.step, first.metric, med(sims), med(reals), first.rel, first.abs, first.known,
                        sims=sims, reals=reals))
    return rows


def format_rows(rows: list) -> str:
    """A table per variant (a line naming it, then a row per step and metric), 100 characters
    wide at most: step names too long for it wrap."""
    from memtwin.report import Col, fmt_diff, fmt_value, label, render, wrap

    out = []
    for variant in dict.fromkeys(r.variant for r in rows):
        rs = [r for r in rows if r.variant == variant]
        diffs, tols, marks = [], [], []
        for r in rs:
            if r.diff is None:
                diffs.append("n/a")
            else:
                diffs.append(fmt_diff(r.diff) + (f" ({r.diff / r.real * 100:+.1f}%)" if r.real else ""))
            tols.append(f"{r.rel * 100:g}%" + (f" or {fmt_value(r.abs)}" if r.abs else ""))
            if r.known:
                marks.append("known out" if not r.ok else "ok, listed as known out: remove it from known_out")
            else:
                marks.append(("ok, not evidence" if r.not_evidence else "ok") if r.ok else ("MISSING" if r.diff is None and r.bimodal is None else "OUT"))
        out.append(f"variant {variant}:")
        out.append(render([label("step", [r.step for r in rs]), label("metric", [r.metric for r in rs]),
                           Col("simulated", [fmt_value(r.sim) for r in rs]), Col("real", [fmt_value(r.real) for r in rs]),
                           Col("difference", diffs), Col("tolerance", tols), Col("", marks, justify="left")]))
        sets = [r for r in rs if r.reals is not None]
        if sets:
            # a recording set: the table shows medians; each side's range, lowest to highest
            runs = next((len(r.sims) for r in sets if r.bimodal is None), len(sets[0].reals))
            out.append(f"  medians of {runs} engine runs and {len(sets[0].reals)} recordings; their ranges:")

            def rng(vs: list) -> str:
                if any(v is None for v in vs):
                    return "n/a"
                return fmt_value(min(vs)) if min(vs) == max(vs) else f"{fmt_value(min(vs))} to {fmt_value(max(vs))}"

            for r in sets:
                out.append(f"    {r.step} {r.metric}: engine {rng(r.sims)}" + (f" ({len(r.sims)} boots)" if r.bimodal else "")
                           + f", real {rng(r.reals)}")
        for r in rs:
            if r.bimodal is not None:
                out.append(wrap(_bimodal_line(r), " " * 6))
    return "\n".join(out)


def _bimodal_line(r: Row) -> str:
    """What a bimodal row's comparison found, in words: the share of boots in the event mode on
    each side with Fisher's p, then the metric's medians among those boots against the tolerance."""
    from memtwin.report import fmt_value

    b = r.bimodal
    tol = f"{r.rel * 100:g}%" + (f" or {fmt_value(r.abs)}" if r.abs else "")
    share = (f"  {r.step} {r.metric} (bimodal): {b.spec.event} ({b.spec.by} > {b.spec.above:g}) in {b.k}/{b.n} boots, "
             f"engine {b.K}/{b.M}; Fisher's exact p = {b.p:.3f}: "
             + ("the shares agree" if b.share_ok else "the shares differ")
             + f" (the rule: they agree unless p < {BIMODAL_ALPHA:g})")
    verdict = ("within" if b.value_ok(r.allowed_at) else "out of") + f" {tol}"
    if b.conditional:
        value = f"when it is: median {fmt_value(r.real)} (engine {fmt_value(r.sim)}), {verdict}"
    else:
        none = "either side" if not b.sims and not b.reals else ("the engine" if not b.sims else "the kernel")
        value = f"no boot of {none} in that mode: the medians of every boot, {fmt_value(r.real)} (engine {fmt_value(r.sim)}), {verdict}"
    return share + "; " + value



def recorded_paths(scn_path: str, spec: dict, where: Optional[str] = None) -> list:
    """The recorded results `[validation] recorded` names: one file, or a recording set (an
    array of files, several boots of the scenario), relative to the scenario's directory."""
    rec = spec["recorded"]
    names = [rec] if isinstance(rec, str) else rec
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
        raise _err(where or f"{scn_path}: validation", f"recorded must be a file name or a non-empty array of file names, not {rec!r}",
                   'write recorded = "real/NAME.json", or recorded = ["real/NAME.json", "real/NAME-boot2.json", ...] for a recording set')
    base = os.path.dirname(os.path.abspath(scn_path))
    return [os.path.normpath(os.path.join(base, n)) for n in names]


def recorded_path(scn_path: str, spec: dict) -> str:
    """The first of the recorded results (the only one unless `recorded` is a recording set)."""
    return recorded_paths(scn_path, spec)[0]


def validate_file(path: str, on: Optional[str], recorded: bool, out=print, kernel: Optional[str] = None,
                  scratch: str = "/var/tmp", workdir: Optional[str] = None, timeout: Optional[int] = None,
                  boot_seed_base: int = 0) -> tuple:
    """(rows, check outcomes, skipped) of one scenario; prints as it goes (a progress bar per
    variant on stderr meanwhile). `boot_seed_base`: the engine's runs against a recording set
    start at that kernel.boot_seed (0, as validate runs them; another to check that a verdict is
    not one block of seeds' draw)."""

    def say(line: str) -> None:
        from memtwin.report import wrap

        indent = " " * (len(line) - len(line.lstrip()) + (6 if line.lstrip().startswith("note: ") else 2))
        with progress.paused():
            out(wrap(line, indent))

    scn = load(path)
    spec = scn.doc.table("validation")
    declared = [v for v, _ in scn.variants()] or [None]
    rows, skipped, outcomes = [], [], []
    pub_checks = bool(scn.published.get("checks")) and "figures" in scn.published
    if spec is None and not pub_checks:
        raise _err(path, "the scenario has no [validation] table (and no [published] real-kernel figures)",
                   "add [validation] with recorded = \"real/NAME.json\" and [validation.tolerance]")
    rec = None
    if spec is not None:
        where = f"{path}: validation"
        tol = tolerances(spec, where)
        known = known_out(spec, where)
        no_evidence = known_out(spec, where, "not_evidence")
        both = sorted(set(known) & set(no_evidence), key=str)
        if both:
            raise _err(f"{where}.not_evidence", f"{both[0][2]} of step {both[0][1]}"
                       + (f", variant {both[0][0]}," if both[0][0] else "") + " is listed in known_out too",
                       "list a row in one of them: known_out when it is out, not_evidence when it is within only by a compensating error")
        bimodal = bimodal_specs(spec, where, tol, scn.doc.locate, [v for v in declared if v])
        only = spec.get("steps")
        if recorded:
            if "recorded" not in spec:
                raise _err(where, "no `recorded` file named", 'add recorded = "real/NAME.json" (written by memtwin real --json)')
            recs = []
            for rp in recorded_paths(path, spec, where):
                try:
                    with open(rp) as f:
                        recs.append(json.load(f))
                except OSError as e:
                    raise _err(where, f"cannot read the recorded results {rp} ({e.strerror})", "re-record them: see README, 'Validation against real kernels'") from None
                except ValueError as e:
                    raise _err(where, f"the recorded results {rp} are not JSON ({e})", "re-record them") from None
                traced = [k for k, r in (recs[-1].get("variants") or {}).items()
                          if isinstance(r, dict) and isinstance(r.get("real"), dict) and r["real"].get("reclaim_trace")]
                if traced:
                    raise _err(where, f"the recorded results {rp} were taken with --reclaim-trace (variant {traced[0]}): its ring "
                               "buffers, kprobes and extra calibrations change the guest the run measures",
                               "re-record them without --reclaim-trace (keep traced runs in lab/measurements/)")
            rec = recs[0] if len(recs) == 1 else recs
            if bimodal and len(recs) == 1:
                raise _err(scn.doc.locate(["validation", "bimodal"]) or f"{where}.bimodal",
                           "a bimodal metric is compared by the share of boots in its event mode: it needs a recording set",
                           'record several boots (recorded = ["real/NAME.json", "real/NAME-boot2.json", ...]) or remove [[validation.bimodal]]')
        bar = Progress(f"validate {path}")
        try:
            for i, v in enumerate(declared):
                name = v or "default"
                bar(i, len(declared), label=f"validate {os.path.basename(path)}: {name} ({i + 1}/{len(declared)})")
                rows.extend(_validate_variant(scn, v, name, on, recorded, rec, tol, only, where, skipped, say,
                                              kernel, scratch, workdir, timeout, known, bimodal, boot_seed_base))
            bar(len(declared), len(declared))
        finally:
            bar.close()
        for r in rows:
            r.not_evidence = no_evidence.get((r.variant, r.step, r.metric)) or no_evidence.get((None, r.step, r.metric))
    if pub_checks:
        results = {v or "default": run(scn, variant=v) for v in declared}
        outcomes = evaluate(scn.published, results, path)
    return rows, outcomes, skipped


def _validate_variant(scn, v, name, on, recorded, rec, tol, only, where, skipped, out, kernel, scratch, workdir,
                      timeout, known=None, bimodal=None, boot_seed_base=0) -> list:
    """The rows of one variant: the engine's run against the real one."""
    from memtwin import real as realmod

    plan = scn.doc.plan(v, [])
    if recorded and isinstance(rec, list):
        return _validate_set(scn, v, name, rec, tol, only, where, skipped, out, known, bimodal, boot_seed_base)
    if any(b.variant in (None, name) for b in bimodal or []):
        out(f"  {name}: note: a live run is one boot: its bimodal metrics are compared as any other (one run against one boot)")
    if recorded:
        # a variant recorded on a patched lab kernel (memtwin lab kernel build) has its switches
        knobs = ((rec or {}).get("variants", {}).get(name, {}).get("real") or {}).get("kernel_knobs") or {}
    elif on == "qemu":
        from memtwin import qemu

        knobs = qemu.kernel_knobs(kernel, workdir)
    else:
        knobs = {}
    why = realmod.unsupported(plan, knobs)
    if why:
        skipped.append((name, why))
        out(f"  {name}: skipped: {why}")
        return []
    live_trace = on == "host" and not recorded and any(op["op"] == "trace" for t in plan["tasks"] for op in t["ops"])
    if live_trace:
        # the program first, then the twin from the cache that run started with
        real = measure_trace(scn, plan, name)
        rc = real.get("real", {}).get("resident_at_start")
        if rc is not None:
            from memtwin.api import start_from
            start_from(scn, v, rc)
    if live_trace:
        pass
    elif recorded:
        real = rec.get("variants", {}).get(name)
        if real is None:
            raise _err(where, f"the recorded results have no variant {name!r}", "re-record them for every variant")
    elif on == "host":
        real = realmod.run_host(plan, scratch)
    else:
        from memtwin import qemu

        real = qemu.run_qemu(plan, kernel=kernel, workdir=workdir, timeout=timeout)
    # the real run's runner time between steps, replayed (recorded_step_gaps: a QEMU run's)
    which = "the recorded results" if recorded else "the real run"
    sim = run(scn, variant=v, sets=recorded_step_gaps(real, plan, where, which) + recorded_host_cost(real, where, which)
              + recorded_setup_writes(real, where, which)).to_json()
    info = real.get("real", {})
    if recorded and "limit_bytes" in info:
        _check_measured_limit(scn, v, name, plan, info["limit_bytes"], where)
        _check_measured_command(scn, name, plan, info.get("command"), where)
    if info:
        out(f"  {name}: real kernel {info.get('kernel')} on {info.get('on')}, {info.get('date')}"
            + ("" if info.get("timing_comparable") else " (times not comparable)"))
        for n in info.get("notes", []):
            out(f"    note: {n}")
    return compare_steps(name, sim["steps"], real["steps"], tol, only, where, known)


def _validate_set(scn, v, name, recs, tol, only, where, skipped, out, known, bimodal=None, boot_seed_base=0) -> list:
    """The rows of one variant against a recording set: the engine once per recording, run i
    with `kernel.boot_seed = i` (i from 0: the first is the scenario as written) and, where boot
    i measured its guest's CPU speed and wake-ups, those (`set_run_sets`). Where the variant has a
    bimodal metric (`bimodal_specs`), the engine's further boots of `bimodal_boot_plan` too, for
    those metrics only."""
    from memtwin import real as realmod

    plan = scn.doc.plan(v, [])
    reals = []
    for i, rec in enumerate(recs):
        real = rec.get("variants", {}).get(name)
        if real is None:
            raise _err(where, f"recording {i + 1} of the set has no variant {name!r}", "re-record it for every variant")
        reals.append(real)
    measured = ["limit_bytes" in (r.get("real") or {}) for r in reals]
    if any(measured) and not all(measured):
        raise _err(where, f"the recording set mixes measurements (memtwin measure) and runs of memtwin real "
                          f"(recording {measured.index(not measured[0]) + 1} differs from the first)",
                   "a set holds runs of one kind: re-record it with lab/record_trace_validation.py --runs N, or memtwin real")
    for r in reals if all(measured) else []:
        _check_measured_limit(scn, v, name, plan, r["real"]["limit_bytes"], where)
        _check_measured_command(scn, name, plan, r["real"].get("command"), where)
    why = realmod.unsupported(plan, (reals[0].get("real") or {}).get("kernel_knobs") or {})
    if why:
        skipped.append((name, why))
        out(f"  {name}: skipped: {why}")
        return []
    specs = [b for b in bimodal or [] if b.variant in (None, name)]
    boots = bimodal_boot_plan(len(reals), boot_seed_base) if specs else [(boot_seed_base + i, i) for i in range(len(reals))]
    sims = []
    reals_given = one_window_kind(reals)
    for seed, i in boots:
        r = reals_given[i]
        rc = (r.get("real") or {}).get("resident_at_start")
        if all(measured) and rc is not None:
            # each measured run started from its own cache: the twin's run i starts from run i's
            from memtwin.api import start_from
            start_from(scn, v, rc)
        sets = set_run_sets(i, r, plan, where)
        # boot `seed` at recording i's machine (set_run_sets' first setting is the boot seed)
        if sets[0] != f"kernel.boot_seed={i}":
            raise RuntimeError(f"set_run_sets: the first setting is {sets[0]!r}, not the boot seed")
        sims.append(run(scn, variant=v, sets=[f"kernel.boot_seed={seed}"] + sets[1:]).to_json())
    infos = [r.get("real") or {} for r in reals]
    kernels = sorted({str(i.get("kernel")) for i in infos})
    dates = sorted(str(i.get("date")) for i in infos)
    slow = [(lambda s, k: f"{s[0]}/{s[1]}" if s else k)(recorded_split_slowdown(r), recorded_cpu_slowdown(r)) for r in reals]
    woken = sum(recorded_wakeup_latency(r) is not None for r in reals)
    sio = [recorded_submit_io_slowdown(r) for r in reals]
    gapped = sum(bool(recorded_step_gaps(r, plan, where)) for r in reals)
    costed = sum(bool(recorded_host_cost(r, where)) for r in reals)
    out(f"  {name}: a recording set of {len(reals)} {'measured runs' if all(measured) else 'boots'}, real kernel {', '.join(kernels)} on {infos[0].get('on')}, "
        f"{dates[0]} to {dates[-1]}" + ("" if all(i.get("timing_comparable") for i in infos) else " (times not comparable)")
        + f"; the engine at kernel.boot_seed {boots[0][0]}-{boots[len(reals) - 1][0]}"
        + ("" if not specs else f" (its bimodal metrics: {len(boots)} boots, seeds {boots[0][0]}-{boots[-1][0]}, boot j at "
           f"recording (j mod {len(reals)})'s machine)")
        + ("" if not any(slow) else
           ", each at its boot's measured machine.cpu_slowdown (" + ", ".join("-" if k is None else str(k) for k in slow)
           + ("; -: not measured, the scenario's" if not all(slow) else "")
           + ("; a/b: code/copy_slowdown" if any(isinstance(k, str) for k in slow) else "") + ")")
        + ("" if not any(sio) else ", at their boot's measured machine.submit_io_slowdown ("
           + ", ".join("-" if k is None else str(k) for k in sio) + "; -: the code's)")
        + ("" if not woken else f", {woken} of them at their boot's measured machine.wakeup_latency")
        + ("" if not gapped else f", {gapped} with their runner's time between steps (step_gaps)")
        + ("" if not costed else f", {costed} at their host's measured costs (host_cost)"))
    for n in infos[0].get("notes", []):
        out(f"    note: {n}")
    mixed = folio_scan_runner_mix(reals)
    from .real import RealError
    if mixed:
        raise RealError(f"{scn.source}: variant {name}: the set mixes host recordings of a run with several tasks made before "
                        f"and after hog23b's runner (the memcg folio scan between a task's steps, 0.7 s of CPU, took the CPU "
                        f"from the other tasks' timed steps and delayed the next step; since hog23b it runs after every other "
                        f"task ended): recordings {', '.join(f'{i} ({k})' for i, k in mixed)}. Compare recordings of one "
                        f"runner: re-record the set with `memtwin real --on host`, or list one runner's recordings in "
                        f"[validation] recorded (review52 M3)")
    lacking = reclaim_spans_lacking(reals)
    if lacking:
        whys = {}
        for i, why in lacking:
            whys.setdefault(why, []).append(str(i))
        out(f"    note: no run is given its recording's reclaim spans (reclaim-spans-rule.md 2): recordings "
            f"{', '.join(str(i) for i, _ in lacking)} of {len(reals)} lack them: "
            + "; ".join(f"{', '.join(ns)}: {why}" for why, ns in whys.items()))
    n = len(reals)
    return compare_step_sets(name, [s["steps"] for s in sims[:n]], [r["steps"] for r in reals], tol, only, where, known,
                             specs, [s["steps"] for s in sims[n:]])


def recorded_cpu_slowdown(real: dict) -> Optional[int]:
    """The CPU factor a recorded QEMU/TCG boot measured of its guest (`real.machine.cpu.
    cpu_slowdown`, qemu.cpu_calibration(): its hot-read time per page against the engine's), or
    None where the recording has none (recorded before the calibration, on the host, or the
    guest could not measure it)."""
    cpu = (((real.get("real") or {}).get("machine") or {}).get("cpu") or {})
    k = cpu.get("cpu_slowdown")
    return k if isinstance(k, int) and not isinstance(k, bool) and k >= 1 else None


def recorded_split_slowdown(real: dict) -> Optional[tuple]:
    """(code_slowdown, copy_slowdown) a recorded QEMU/TCG boot measured of its guest: from its
    reads of a regular file on the scenario's disk where it made them (qemu.file_calibration(),
    lrugen10: the page cache's read path, filemap_read(), which the engine's lookup and copy_page
    stand for), else from the memfd's (qemu.copy_calibration(): shmem's read path, which in the 6.12
    guest took 1.3-7.2x a page-cache page's time); 1-byte reads of cached pages, and what 128 KiB
    reads of them take more (qemu.split_factors()). None where the recording has neither (recorded
    before lrugen6's calibration)."""
    from memtwin.qemu import split_factors

    cpu = (((real.get("real") or {}).get("machine") or {}).get("cpu") or {})
    small, hot = cpu.get("file_small_read_ns_per_call"), cpu.get("file_hot_read_ns_per_page")
    # (a 1-byte read slower than a page of the hot read is a host stall in the calibration: not used)
    if all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0 for x in (small, hot)) \
            and small <= hot:
        return split_factors(small, hot)
    ks = (cpu.get("code_slowdown"), cpu.get("copy_slowdown"))
    ok = all(isinstance(k, int) and not isinstance(k, bool) and k >= 1 for k in ks)
    return ks if ok else None


def recorded_wakeup_latency(real: dict) -> Optional[list]:
    """The cross-CPU wake-up latency samples in ns a recorded QEMU/TCG boot measured of its guest
    (`real.machine.cpu.wakeup_latency_ns`, qemu.wakeup_calibration()), or None where it has none."""
    cpu = (((real.get("real") or {}).get("machine") or {}).get("cpu") or {})
    ns = cpu.get("wakeup_latency_ns")
    if isinstance(ns, list) and ns and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in ns):
        return ns
    return None


def recorded_vcpu_stall(real: dict, where: Optional[str] = None, which: str = "the recording") -> list:
    """The `[machine]` settings of the vCPU stalls a recorded QEMU/TCG boot measured before its
    tasks (`real.machine.cpu.vcpu_stall`, qemu.stall_calibration(), zswap20): `machine.vcpu_stall`
    as every CPU's gaps (the stalls' lengths, pooled) and `machine.vcpu_stall_interval` as the probe's
    time on all CPUs over their number (the mean time from one stall's start to the next's on one
    vCPU). [] where the recording has none (before zswap20, on the host, or a probe that saw no
    gap). `set_run_sets` does not give them (see there); lab/measurements/vcpu-stall runs the
    engine with them. A recording whose probe is not the runner's shape is refused (`which` names the
    recording, `where` the scenario): the engine would run at stalls nobody measured."""
    st = (((real.get("real") or {}).get("machine") or {}).get("cpu") or {}).get("vcpu_stall")
    if st is None:
        return []

    def whole(x, least: int) -> bool:
        return isinstance(x, int) and not isinstance(x, bool) and x >= least

    cpus = st.get("cpus") if isinstance(st, dict) else None
    ok = (isinstance(st, dict) and whole(st.get("probe_ns"), 1) and isinstance(cpus, list) and cpus
          and all(isinstance(c, dict) and isinstance(c.get("gaps_ns"), list) and all(whole(g, 1) and g <= 10_000_000_000 for g in c["gaps_ns"]) for c in cpus))
    if not ok:
        raise _err(where or "validate", f"{which}: real.machine.cpu.vcpu_stall is {json.dumps(st)[:120]}, not "
                   "{\"probe_ns\": N > 0, \"cpus\": [{\"gaps_ns\": [ns > 0 and at most 10 s, ...]}, ...]}",
                   "re-record it (memtwin real FILE --on qemu --json OUT measures the stalls again), or delete "
                   "vcpu_stall from the recording to compare it without stalls")
    gaps = [g for c in cpus for g in c["gaps_ns"]]
    if not gaps:
        return []
    interval = max(1, st["probe_ns"] * len(cpus) // len(gaps))
    return ["machine.vcpu_stall=[" + ", ".join(f'"{g}ns"' for g in gaps) + "]", f'machine.vcpu_stall_interval="{interval}ns"']


def recorded_submit_io_slowdown(real: dict) -> Optional[int]:
    """How many times the reference machine's a recorded QEMU/TCG boot's read request took of its
    guest's CPU (`real.machine.cpu.submit_io_slowdown`, qemu.request_calibration(): 128 KiB O_DIRECT
    reads of a file on the scenario's disk against the engine's syscall + submit_io), or None where
    the recording has none (recorded before iso23's calibration, on the host)."""
    cpu = (((real.get("real") or {}).get("machine") or {}).get("cpu") or {})
    k = cpu.get("submit_io_slowdown")
    return k if isinstance(k, int) and not isinstance(k, bool) and k >= 1 else None


def recorded_nonmovable_free(real: dict) -> Optional[list]:
    """The free buddies a recorded QEMU boot left in node 0's first zone's non-movable pageblocks
    below pageblock order, by order 0..8 (`[machine] nonmovable_free = [c0, ..., c8]`): from its
    /proc/pagetypeinfo at boot (`real.machine.pagetypeinfo_at_boot`, qemu.pagetypeinfo(),
    recorded since 357a50e) the Unmovable and Reclaimable free blocks of orders 0..8 of node 0's
    Normal zone, else its DMA32 zone (the zone a page-cache page is taken from first; ZONE_DMA is
    kept by its lowmem_reserve), summed per order: the orders __rmqueue_fallback() chooses by
    (the largest buddy first; at order >= pageblock_order / 2 the block claimed when half of it
    is free or movable; page_alloc.rs Zone::rmqueue_fallback). A free block of pageblock order
    or more is claimed whole (`change_pageblock_range()`), no fallback frame. None where the
    recording has none (before 357a50e, the host)."""
    from memtwin.qemu import NON_MOVABLE_TYPES

    pt = (((real.get("real") or {}).get("machine") or {}).get("pagetypeinfo_at_boot") or {})
    zone = pt.get("0/Normal") or pt.get("0/DMA32")
    if not isinstance(zone, dict):
        return None
    free = zone.get("free") or {}
    n = [0] * PAGEBLOCK_ORDER
    for t in NON_MOVABLE_TYPES:
        counts = free.get(t)
        if not isinstance(counts, list) or not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts):
            return None
        for o, c in enumerate(counts[:PAGEBLOCK_ORDER]):
            n[o] += c
    return n


# pageblock_order on x86_64 (HPAGE_PMD_ORDER; page_alloc.rs PAGEBLOCK_ORDER).
PAGEBLOCK_ORDER = 9


def recorded_kworker_wait(real: dict) -> Optional[int]:
    """The mean run-queue wait in ns of a recorded QEMU/TCG boot's CPU-bound kworkers (wake11: its
    steps' `kworker_run_delay_s` summed over their `kworker_runs`, /proc/PID/schedstat, the guest's
    kthread_waits()), or None where the recording has none (recorded before wake11, on the host, or
    no kworker ran)."""
    delay, runs = 0.0, 0
    for s in real.get("steps") or []:
        d, n = s.get("kworker_run_delay_s"), s.get("kworker_runs")
        if isinstance(d, (int, float)) and not isinstance(d, bool) and math.isfinite(d) and d >= 0 \
                and isinstance(n, int) and not isinstance(n, bool) and n >= 0:
            delay, runs = delay + d, runs + n
    return round(delay * 1e9 / runs) if runs else None


def plan_step_counts(plan: dict) -> dict:
    """{task: its number of steps} of a plan: a step is a run of consecutive ops with one step name
    (as the engine groups them, TaskSpec::step_gaps)."""
    out = {}
    for t in plan.get("tasks", []):
        names = [op.get("step") for op in t.get("ops", [])]
        out[t["name"]] = sum(1 for i, n in enumerate(names) if i == 0 or names[i - 1] != n)
    return out


def recorded_step_gaps(real: dict, plan: Optional[dict] = None, where: Optional[str] = None, which: str = "the recording") -> list:
    """`tasks.NAME.step_gaps` settings replaying a recording's runner time between each task's
    steps: where every step of a task carries its window on the guest's clock (`window_s`,
    qemu.step_windows()), the time from each step's end to the task's next step's start (the end
    snapshot with its /proc/kpageflags scan, the next start snapshot), in whole microseconds. The
    kernel's clock ran on meanwhile and its timers with it (6.12's periodic memcg stats flush:
    lab/measurements/memcg-stats-flush); a property of the recorded run, applied to every
    recording that has it. [] where none has windows (host runs, QEMU runs before lrugen9). With
    `plan`, a task whose recorded steps are not as many as the plan's is refused (`which` names the
    recording, `where` the scenario): its gaps would fall between other steps."""
    by_task = {}
    for s in real.get("steps") or []:
        by_task.setdefault(s.get("task"), []).append(s.get("window_s"))
    counts = plan_step_counts(plan) if plan is not None else {}
    sets = []
    for task, ws in by_task.items():
        if len(ws) < 2 or not isinstance(task, str) or not all(isinstance(w, list) and len(w) == 2 for w in ws):
            continue
        if plan is not None and counts.get(task) != len(ws):
            have = "no such task" if task not in counts else f"{counts[task]} step(s)"
            raise _err(where or "validate", f"{which}: task {task} has {len(ws)} recorded steps with windows, the scenario's plan "
                                            f"has {have}, so the runner's time between them (step_gaps) cannot be replayed",
                       "re-record it for the scenario as it is (memtwin real FILE --on qemu --variant all --json OUT)")
        gaps = [max(0, round((b[0] - a[1]) * 1e6)) for a, b in zip(ws, ws[1:])]
        key = task if task.replace("_", "").replace("-", "").isalnum() else json.dumps(task)
        sets.append(f"tasks.{key}.step_gaps=[" + ", ".join(f'"{g}us"' for g in gaps) + "]")
    return sets


# rec21: what the host runner records with a run's failing reclaims' spans (hostcal.scenario_reclaims_from(),
# real.py), dropped with them where a set gives none (one_window_kind)
SCENARIO_RECLAIM_KEYS = ("scenario_reclaim_call_ns", "scenario_reclaim_failing_ns", "scenario_reclaim_source")


# A host recording's host_cost keys that validate gives the engine as the `[machine]` key of the
# same name (hostcal.py measures them; hostcal.rs maps them to the cost table).
PLAIN_HOST_COSTS = ("anon_fault_ns", "clear_page_ns", "zap_page_ns", "reclaim_folio_ns", "reclaim_tail_page_ns",
                    "reclaim_fixed_ns", "reclaim_batch_ns")


def recorded_host_cost(real: dict, where: Optional[str] = None, which: str = "the recording") -> list:
    """The `[machine]` settings of the host costs a host recording measured before its run
    (`real.machine.host_cost`, memtwin.hostcal, hostcal21): `machine.read_large_folio_ns` as the
    hot read's ns per page of its large-folio orders (order 0 is recorded, not given: the table's
    order-0 entries, lookup and copy_page, stand for other paths too) and `machine.reclaim_call_ns`;
    the engine's hostcal.rs turns them into the cost table's entries; and
    `machine.loop_read_window` as the device window (`device_window_ns`, rawin21: an 8 MiB
    readahead window's read requests timed by the loop device itself, from each one's
    allocation after blk-throttle to its completion, at the scenario's read_ahead_kb and read
    rule), or, where the recording has it, the run's lone 8 MiB windows (`device_lone_window_ns`:
    the busy periods of one window and nothing else; lab/validation/lone-window-rule.md: HwQueue's
    shared rate is the transfer rate, the whole-run window also holds the latency and segment costs
    the engine adds itself) and beside it, where the recording has them, those windows one by one
    (`device_lone_window_spans_ns` as `machine.loop_read_window_spans`: the device's read batches,
    one drawn per busy period, lab/validation/spans-rule.md 1); where the recording has the run's
    own memcg reclaims that freed nothing (`scenario_reclaim_call_spans_ns`, reclaim21,
    lab/validation/reclaim-spans-rule.md), them as `machine.reclaim_call_spans` (one drawn per
    memcg reclaim) and their median as `machine.reclaim_call_ns` instead of the calibration's;
    `machine.anon_fault_ns`, `clear_page_ns`, `zap_page_ns` as measured (hostcal23: the
    first-touch fault, its clearing, munmap, per 4 KiB; hostcal.rs sets CpuCost's anon_fault,
    clear_page, zap_page); `machine.reclaim_folio_ns` and `reclaim_tail_page_ns` as measured (orders61:
    a successful memcg reclaim's per-folio and per-tail-page terms, hostcal.reclaim_freed_from();
    hostcal.rs sets evict_page and evict_tail_page), `reclaim_fixed_ns` and `reclaim_batch_ns` (its
    fixed and per-freeing-batch terms: reclaim_call, evict_batch). The two older windows are checked when present and not given: the O_DIRECT window
    (`loop_read_window_ns`, 3.9-23 ms at load 7-16 where the scenarios' windows take 1.5-2.4) is
    not the scenarios' windows, and the re-read readahead window (`readahead_window_ns`, a cold
    read less a hot one) holds readahead's page allocation, page cache insertion, LRU add and
    memcg charge, which the engine charges as CPU besides the device time (review12 M2). A
    recording whose runner could not take the device window says why in
    `host_cost.unavailable.device_window_ns` and runs at the scenario's `queue_read_bw`. [] where
    the recording has none (before hostcal21, or on QEMU): the table, measured on the host boot
    v857. A value that is not a positive whole number is refused (`which` names the recording,
    `where` the scenario)."""
    hc = _host_cost(real)
    if not isinstance(hc, dict):
        return []

    def ok(x) -> bool:
        return isinstance(x, int) and not isinstance(x, bool) and x > 0

    def bad(key: str, v) -> ScenarioError:
        return _err(where or "validate", f"{which}: real.machine.host_cost.{key} is {json.dumps(v)[:80]}, not a positive whole number",
                    "re-record it (memtwin real FILE --on host --variant all --json OUT measures the host costs again), "
                    "or delete host_cost from the recording to compare it with the cost table")

    sets = []
    orders = hc.get("read_ns_by_order")
    if orders is not None:
        if not isinstance(orders, dict):
            raise bad("read_ns_by_order", orders)
        pairs = []
        for o, ns in orders.items():
            if not (isinstance(o, str) and o.isdigit()) or not ok(ns):
                raise bad(f"read_ns_by_order[{o!r}]", ns)
            if int(o) >= 1:
                pairs.append((int(o), ns))
        if pairs:
            sets.append("machine.read_large_folio_ns=[" + ", ".join(f"[{o}, {ns}]" for o, ns in sorted(pairs)) + "]")
    for key in ("reclaim_call_ns", "device_window_ns", "readahead_window_ns", "loop_read_window_ns", "loop_read_window_thp_ns",
                *PLAIN_HOST_COSTS):
        v = hc.get(key)
        if v is None:
            continue
        if not ok(v):
            raise bad(key, v)
        if key == "reclaim_call_ns" and "scenario_reclaim_call_spans_ns" in hc:
            continue  # reclaim21: the run's own reclaims below, their median the scalar
        if key == "reclaim_call_ns":
            sets.append(f"machine.reclaim_call_ns={v}")
        elif key == "device_window_ns":
            lone = hc.get("device_lone_window_ns")
            if lone is not None and not ok(lone):
                raise bad("device_lone_window_ns", lone)
            sets.append(f'machine.loop_read_window="{lone or v}ns"')
            spans = hc.get("device_lone_window_spans_ns")
            if lone is not None and spans is not None:
                if not isinstance(spans, list) or not spans or not all(ok(x) for x in spans):
                    raise bad("device_lone_window_spans_ns", spans)
                from memtwin.hostcal import LONE_WINDOWS_MIN
                # hostcal.device_window_from()'s own form (review51 L8): at least LONE_WINDOWS_MIN spans,
                # sorted, their upper median the recorded device_lone_window_ns
                if len(spans) < LONE_WINDOWS_MIN or spans != sorted(spans) or spans[len(spans) // 2] != lone:
                    raise _err(where or "validate", f"{which}: real.machine.host_cost.device_lone_window_spans_ns "
                               f"({len(spans)} spans) is not what the runner records: at least {LONE_WINDOWS_MIN} spans, "
                               f"sorted, their upper median device_lone_window_ns ({lone})",
                               "re-record it (memtwin real FILE --on host --variant all --json OUT), or delete the "
                               "spans from the recording to give the median alone")
                # spans21 (lab/validation/spans-rule.md 1): the run's lone windows one by one, the
                # device's read batches, one drawn per busy period from the boot seed
                sets.append("machine.loop_read_window_spans=[" + ", ".join(f'"{x}ns"' for x in spans) + "]")
        elif key in PLAIN_HOST_COSTS:
            sets.append(f"machine.{key}={v}")
    spans = hc.get("scenario_reclaim_call_spans_ns")
    if spans is None and any(k in hc for k in SCENARIO_RECLAIM_KEYS):
        # rec21: the runner records the spans with these or not at all
        raise _err(where or "validate", f"{which}: real.machine.host_cost has "
                   f"{', '.join(k for k in SCENARIO_RECLAIM_KEYS if k in hc)} but no scenario_reclaim_call_spans_ns "
                   "(the run's failing reclaims, recorded with them by the host runner)",
                   "re-record it (memtwin real FILE --on host --variant all --json OUT), or delete the scenario_reclaim_* "
                   "fields from the recording to give its calibration's reclaim_call_ns")
    if spans is not None:
        # reclaim21 (lab/validation/reclaim-spans-rule.md): the run's own memcg reclaims that freed
        # nothing, ns per isolate call, one drawn per memcg reclaim from the boot seed; their median
        # the scalar (reclaim_call_ns) instead of the separate 128 MiB read's
        if not isinstance(spans, list) or not spans or not all(ok(x) for x in spans):
            raise bad("scenario_reclaim_call_spans_ns", spans)
        failing = hc.get("scenario_reclaim_failing_ns")
        if spans != sorted(spans) or (failing is not None and (not isinstance(failing, list) or len(failing) != len(spans))):
            # rec21: hostcal.scenario_reclaims_from()'s own form: sorted, one per failing reclaim timed
            raise _err(where or "validate", f"{which}: real.machine.host_cost.scenario_reclaim_call_spans_ns "
                       f"({len(spans)} spans) is not what the runner records: sorted, one per reclaim of "
                       f"scenario_reclaim_failing_ns ({'absent' if failing is None else len(failing) if isinstance(failing, list) else json.dumps(failing)[:40]})",
                       "re-record it (memtwin real FILE --on host --variant all --json OUT), or delete the scenario_reclaim_* "
                       "fields from the recording to give its calibration's reclaim_call_ns")
        sets.append(f"machine.reclaim_call_ns={round(statistics.median(spans))}")
        sets.append("machine.reclaim_call_spans=[" + ", ".join(str(x) for x in spans) + "]")
    return sets


def recorded_setup_writes(real: dict, where: Optional[str] = None, which: str = "the recording") -> list:
    """`validation.setup_writes` replaying the runner's set-up writes as the recording timed them
    (`real.setup_writes`, qemu.setup_writes(): each declared file and the calibration file,
    written and fsync()ed through the root wb, and the time from each fsync()'s return to the
    tasks' start; the engine's wb_setup_writeout() ages their completions over it). [] where the
    recording has none (host runs, QEMU runs before wbt23): the engine then takes the declared
    files back to back, ending as the tasks start. A malformed list is refused (`which` names
    the recording, `where` the scenario), as a bad host_cost is (review12 L4). A declared file of
    size 0 (tmpfs21: a file a task's write creates) is set up with nothing to write back: its entry
    of 0 bytes is dropped."""
    ws = (real.get("real") or {}).get("setup_writes")
    if ws is None:
        return []
    if not isinstance(ws, list) or not ws or not all(
            isinstance(w, dict) and isinstance(w.get("bytes"), int) and not isinstance(w.get("bytes"), bool)
            and w["bytes"] >= 0 and isinstance(w.get("ended_s"), (int, float)) and not isinstance(w.get("ended_s"), bool)
            and w["ended_s"] >= 0 for w in ws) or all(w["bytes"] == 0 for w in ws):
        raise _err(where or "validate", f"{which}: real.setup_writes is {json.dumps(ws)[:120]}, not a list of "
                   "{bytes: whole number >= 0 (one of them positive), ended_s: seconds >= 0}",
                   "re-record it (memtwin real FILE --on qemu --variant all --json OUT times the set-up writes again), "
                   "or delete setup_writes from the recording to compare it with the declared files written back to back")
    return ["validation.setup_writes=[" + ", ".join(f'{{ size = {w["bytes"]}, ended = "{round(w["ended_s"] * 1e6)}us" }}' for w in ws if w["bytes"] > 0) + "]"]


def _host_cost(real: Optional[dict]):
    """A recording's `real.machine.host_cost` (None where it has none)."""
    return (((real or {}).get("real") or {}).get("machine") or {}).get("host_cost")


def folio_scan_runner_mix(reals: list) -> list:
    """review52 M3: [(recording number from 1, "before hog23b" | "hog23b's runner")] of a set of host recordings of a
    run with several tasks when they mix the two runners (`real.folios_source` ends with real.HOST_FOLIOS_WHEN since
    hog23b: the folio scan only after every other task ended); [] when they do not mix, when every recording has one
    task, or when none scanned folios (`--no-folios`, QEMU)."""
    from .real import HOST_FOLIOS_WHEN

    def kind(r):
        src = ((r or {}).get("real") or {}).get("folios_source")
        if not isinstance(src, str) or len({s.get("task") for s in (r.get("steps") or []) if isinstance(s, dict)}) < 2:
            return None
        return "hog23b's runner" if src.endswith(HOST_FOLIOS_WHEN) else "before hog23b"

    kinds = [kind(r) for r in reals]
    if len({k for k in kinds if k is not None}) < 2:
        return []
    return [(i + 1, k) for i, k in enumerate(kinds) if k is not None]


def reclaim_spans_lacking(reals: list) -> list:
    """rec21: [(recording number from 1, why)] of a set's recordings without the run's reclaim spans
    (`scenario_reclaim_call_spans_ns`) where others have them (the set then gives none:
    one_window_kind); why as the runner recorded it (`unavailable.scenario_reclaim_call_spans_ns`,
    cut to 120 characters). [] where all or none have them."""
    def hc(r):
        c = _host_cost(r)
        return c if isinstance(c, dict) else {}

    has = ["scenario_reclaim_call_spans_ns" in hc(r) for r in reals]
    if all(has) or not any(has):
        return []
    out = []
    for i, r in enumerate(reals):
        if not has[i]:
            why = (hc(r).get("unavailable") or {}).get("scenario_reclaim_call_spans_ns") if isinstance(hc(r).get("unavailable"), dict) else None
            out.append((i + 1, str(why)[:120] if why else "no reason recorded"))
    return out


def one_window_kind(reals: list) -> list:
    """A set's recordings as their device windows are given (review49 M2, lone-window-rule.md 1): the
    lone 8 MiB window only where every recording of the set has one, else the whole-run window for
    all (copies without `device_lone_window_ns`), so that one median never mixes the two; likewise
    the lone windows one by one (`device_lone_window_spans_ns`, spans-rule.md 1) only where every
    recording given the lone window has them, else none (copies without them); and the run's own
    failing memcg reclaims (`scenario_reclaim_call_spans_ns`, reclaim-spans-rule.md 2) only where
    every recording of the set has them, else none (each then gets its calibration's
    reclaim_call_ns)."""
    def hc(r):
        c = _host_cost(r)
        return c if isinstance(c, dict) else {}

    drop = []
    if not all("device_lone_window_ns" in hc(r) for r in reals):
        drop = ["device_lone_window_ns", "device_lone_window_spans_ns"]
    elif not all("device_lone_window_spans_ns" in hc(r) for r in reals):
        drop = ["device_lone_window_spans_ns"]
    # reclaim21 (reclaim-spans-rule.md 2): the run's own reclaims only where every recording has them
    if not all("scenario_reclaim_call_spans_ns" in hc(r) for r in reals):
        drop += ["scenario_reclaim_call_spans_ns", *SCENARIO_RECLAIM_KEYS]
    if not any(k in hc(r) for r in reals for k in drop):
        return reals
    out = []
    for r in reals:
        if any(k in hc(r) for k in drop):
            r = json.loads(json.dumps(r))
            for k in drop:
                hc(r).pop(k, None)
        out.append(r)
    return out


def set_run_sets(i: int, real: dict, plan: Optional[dict] = None, where: Optional[str] = None) -> list:
    """The settings of the engine's run i against recording i of a recording set: another boot
    of the engine (`kernel.boot_seed = i`; 0 is the scenario as written) and, where that boot
    measured its guest's CPUs, the machine it ran on: `machine.cpu_slowdown` and
    `machine.copy_slowdown` as measured when the boot split them (the kernel's code and its
    copies, `recorded_split_slowdown`), else `machine.cpu_slowdown` as the hot read measured it,
    `machine.submit_io_slowdown` as its read requests' CPU time measured it
    (`recorded_submit_io_slowdown`, iso23), `machine.wakeup_latency` as its samples when it
    measured them, and
    `machine.kworker_wakeup_latency` as its CPU-bound kworkers' mean run-queue wait when it
    recorded them (`recorded_kworker_wait`), and a host recording's measured costs
    (`recorded_host_cost`; the emulated CPUs' speed and wake-ups change from boot
    to boot with the host's load; measured properties of that run's machine, like its RAM, not
    fitted constants).
    The boot's non-movable pool as its free buddies by order (`recorded_nonmovable_free`,
    `[machine] nonmovable_free = [c0, ..., c8]`, the pagetypeinfo recorded at boot): the engine
    lays the buddies out in the boot's non-movable pageblocks and its `__rmqueue_fallback()`
    takes the largest first, claiming a block at order >= 4 when half of it is free or movable
    (buddy22; review14 M1 stopped the pool's feeding while each pool frame was one steal).
    Not given: the boot's vCPU stalls (`recorded_vcpu_stall`, `[machine] vcpu_stall`,
    zswap20). At 10 boots of qemu61-zswap-pool-limit (2026-11-30 12:26-12:32 UTC, load 10.8-12.8)
    the engine given each boot's stalls counted touch 2's pool_limit_hit above 16 at 6 boots
    (median 37) where the kernel did at 2 (median 4; both among the engine's 6): the kernel's task shares the stalled
    vCPU with the kworker that preempted it until the idle balance pulls it, which the engine, its
    worker beside the task, does not model (lab/measurements/vcpu-stall)."""
    sets = [f"kernel.boot_seed={i}"]
    split = recorded_split_slowdown(real)
    k = recorded_cpu_slowdown(real)
    if split is not None:
        sets += [f"machine.cpu_slowdown={split[0]}", f"machine.copy_slowdown={split[1]}"]
    elif k is not None:
        sets.append(f"machine.cpu_slowdown={k}")
    sio = recorded_submit_io_slowdown(real)
    if sio is not None:
        sets.append(f"machine.submit_io_slowdown={sio}")
    lat = recorded_wakeup_latency(real)
    if lat is not None:
        sets.append("machine.wakeup_latency=[" + ", ".join(f'"{x}ns"' for x in lat) + "]")
    kw = recorded_kworker_wait(real)
    if kw is not None:
        sets.append(f'machine.kworker_wakeup_latency=["{kw}ns"]')
    pool = recorded_nonmovable_free(real)
    if pool is not None:
        sets.append("machine.nonmovable_free=[" + ", ".join(str(c) for c in pool) + "]")
    return (sets + recorded_step_gaps(real, plan, where, f"recording {i + 1} of the set")
            + recorded_host_cost(real, where, f"recording {i + 1} of the set")
            + recorded_setup_writes(real, where, f"recording {i + 1} of the set"))


def _check_measured_limit(scn, v, name, plan, limit, where) -> None:
    """A variant whose recorded run is a measurement (`memtwin measure`: the command in one
    memcg with --limit, `real.limit_bytes`) must give the memcg its trace tasks run in that
    limit: a variant that sets none, or another, would compare the twin at one limit with the
    kernel at another."""
    def size(n: int) -> str:
        return next((f"{n >> b}{u}" for b, u in ((30, "G"), (20, "M"), (10, "K")) if n and n % (1 << b) == 0), str(n))

    cgs = {c["path"]: c for c in plan.get("cgroups", [])}
    for t in plan.get("tasks", []):
        if not any(isinstance(op, dict) and op.get("op") == "trace" for op in t.get("ops", [])):
            continue
        cg = cgs.get(t.get("cgroup"))
        mx = None if cg is None else cg.get("max")
        if mx != limit:
            at = scn.doc.locate(["variants", v]) if v else None
            have = "no memcg" if cg is None else ("no memory limit" if mx is None else f"limit {size(mx)} ({mx} bytes)")
            want = "no limit" if limit is None else f"limit {size(limit)} ({limit} bytes)"
            key = "memory.limit_in_bytes" if plan.get("cgroup") == "v1" else "memory.max"
            raise _err(at or where, f"variant {name}: the measured run had {want}, the twin's task {t['name']} runs with {have} "
                                    f"(memcg {t.get('cgroup') or '/'})",
                       f'set cgroups.{t.get("cgroup") or "NAME"}."{key}" = "{size(limit) if limit else "max"}" in [variants.{name}] '
                       f"(the limit the recorded run was measured with), or re-measure at this variant's limit")


def measure_trace(scn, plan, name) -> dict:
    """The real side of a recorded program on this host: the command its trace's header names,
    run by `memtwin measure` in a fresh memcg with the limit the variant gives the trace task's
    memcg, the trace's files dropped from the page cache first; the variant entry of the JSON
    layout, its step named as the scenario's (the recorded results of a trace validation scenario
    are these, lab/record_trace_validation.py). A trace task whose `initial_cache` names a file
    then starts from this run's cache instead (`api.start_from`)."""
    from memtwin import measure, trace
    from memtwin.real import RealError

    tasks = plan["tasks"]
    if len(tasks) != 1 or len(tasks[0]["ops"]) != 1:
        raise RealError(f"{scn.source}: variant {name}: a recorded program runs on the host alone (memtwin measure), "
                        "and this scenario has other tasks or ops beside its trace\n"
                        "  fix: validate it against recorded results (validate --recorded), or keep the trace task alone")
    t, op = tasks[0], tasks[0]["ops"][0]
    path = scn.traces.get(op["trace"], op["trace"])
    with trace.Reader(path) as r:
        cmd = r.header.get("command")
        files = [p for p, _size in r.files()]
    if not (isinstance(cmd, list) and cmd and all(isinstance(c, str) for c in cmd)):
        raise RealError(f"{path}: the trace's header names no command (an imported trace), so there is nothing to run\n"
                        "  fix: validate it against recorded results (validate --recorded)")
    cg = {c["path"]: c for c in plan.get("cgroups", [])}.get(t.get("cgroup"))
    try:
        res = measure.measure(cmd, None if cg is None else cg.get("max"), plan.get("cgroup"), files, False)
    except measure.MeasureError as e:
        raise RealError(str(e)) from None
    v = measure.engine_layout(res)["variants"]["default"]
    for s in v["steps"]:
        s.update(name=op["step"], task=t["name"], memcg="/" + (t.get("cgroup") or ""))
    return v


def _check_measured_command(scn, name, plan, command, where) -> None:
    """The recorded measurement ran the command the trace's header names (record and measure of
    the same program): results of another program, or of other arguments, are refused."""
    from memtwin import trace

    for t in plan.get("tasks", []):
        for op in t.get("ops", []):
            if not (isinstance(op, dict) and op.get("op") == "trace"):
                continue
            path = scn.traces.get(op["trace"], op["trace"])
            with trace.Reader(path) as r:
                want = r.header.get("command")
            if want and command != want:
                at = scn.doc.locate(["tasks", t["name"], "trace"]) or where
                raise _err(at, f"variant {name}: the recorded results measured {command!r}, but the trace {op['trace']} "
                               f"recorded {want!r}",
                           "measure the command the trace recorded (memtwin measure --trace TRACE -- CMD, or "
                           "lab/record_trace_validation.py NAME), or name that program's trace")
