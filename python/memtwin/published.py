"""The `[published]` table of a scenario: a seed's published figures and the targets
(`checks`) the simulation is held to. Only reports and tests read it; the engine never does.

    [published]
    source = "Author, \"[PATCH] title\", list, date"
    [published.figures.VARIANT."STEP"]
    METRIC = 1.23
    [[published.checks]]
    name = "..."
    kind = "ratio"            # a / b within [min, max]
    a = "VARIANT/STEP/METRIC"
    b = "VARIANT/STEP/METRIC"
    min = 30.0
    [[published.checks]]
    kind = "published"        # simulated within rel_tol of the published figure
    at = "VARIANT/STEP/METRIC"
    rel_tol = 0.30
    abs_tol = 16384           # optional: or within this much (figures near zero)
    [[published.checks]]
    kind = "growth"           # simulated at - from within rel_tol of the published difference
    from = "VARIANT/STEP/METRIC"
    at = "VARIANT/STEP/METRIC"
    rel_tol = 0.10
    [published.table]         # the seed's own table, simulated beside published
    title = "time grep data 1/* (s)"
    at = "STEP/METRIC"        # the figure every cell shows
    rows = "X"                # the first column's heading
    columns = ["without cleaning", "with cleaning"]
    cells = [["360", "keep-360", "clean-360"], ...]   # row label, then a variant per column
    seed_at = "STEP/METRIC"   # optional: the seed's own figure, shown first in each column,
                              # when the targets (`at`) are a real kernel's measurements
    headings = ["published", "real", "simulated"]     # optional, with seed_at
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional

from memtwin._memtwin import ScenarioError


@dataclass
class CheckOutcome:
    name: str
    ok: bool
    detail: str
    skipped: bool = False

    @property
    def status(self) -> str:
        return "SKIP" if self.skipped else ("PASS" if self.ok else "FAIL")


def fmt_num(v: float) -> str:
    """A figure in a target's outcome: integers as integers (25136407, not 2.51364e+07), other
    figures with 6 significant digits, large ones with one decimal."""
    if float(v).is_integer():
        return str(int(v))
    if abs(v) >= 1e5:
        return f"{v:.1f}"
    return f"{v:.6g}"


def _err(where: str, message: str, fix: str) -> ScenarioError:
    return ScenarioError(f"{where}: error: {message}\n  fix: {fix}", [(where, message, fix)])


def split_ref(ref: str, where: str) -> tuple[str, str, str]:
    parts = ref.split("/")
    if len(parts) < 3 or not all(parts):
        raise _err(where, f"`{ref}` is not VARIANT/STEP/METRIC", 'write e.g. "recharge/read 2/sys_s"')
    return parts[0], "/".join(parts[1:-1]), parts[-1]


def figure(published: Mapping, variant: str, step: str, metric: str) -> Optional[float]:
    v = published.get("figures", {}).get(variant, {}).get(step, {}).get(metric)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


CHECK_KEYS = {
    "ratio": {"name", "kind", "a", "b", "min", "max"},
    "published": {"name", "kind", "at", "rel_tol", "abs_tol"},
    "growth": {"name", "kind", "from", "at", "rel_tol"},
}
PUBLISHED_KEYS = {"source", "figures", "checks", "table"}
TABLE_KEYS = {"title", "at", "rows", "columns", "cells", "seed_at", "headings"}


def validate(published, variants: list, source: str, steps_of=None, metrics=None) -> None:
    """Check the `[published]` table before anything runs: known keys, check kinds,
    VARIANT/STEP/METRIC references to declared variants (`default` when there are none), steps
    the variant has (`steps_of(variant)`) and metrics that exist (`metrics`), bounds and
    tolerances, and numeric figures. Raises ScenarioError naming the entry and the fix."""
    if published is None:
        return
    if not isinstance(published, Mapping):
        raise _err(f"{source}: published", "[published] must be a table", "write [published] with source, figures and checks")
    if not published:
        return
    variants = list(variants) or ["default"]
    for k in published:
        if k not in PUBLISHED_KEYS:
            raise _err(f"{source}: published.{k}", f"unknown key `{k}` in [published]", f"remove it; [published] takes {', '.join(sorted(PUBLISHED_KEYS))}")
    figures = published.get("figures", {})
    if not isinstance(figures, Mapping):
        raise _err(f"{source}: published.figures", "figures must be a table", "write [published.figures.VARIANT.\"STEP\"] tables of METRIC = number")
    for v, steps in figures.items():
        if v not in variants:
            raise _err(f"{source}: published.figures.{v}", f"no variant `{v}` in [variants]", f"use one of: {', '.join(variants)}")
        if not isinstance(steps, Mapping):
            raise _err(f"{source}: published.figures.{v}", "must be a table of steps", "write [published.figures.VARIANT.\"STEP\"]")
        for step, ms in steps.items():
            if not isinstance(ms, Mapping):
                raise _err(f"{source}: published.figures.{v}.{step}", "must be a table of METRIC = number", "write METRIC = 1.23")
            for m, val in ms.items():
                if isinstance(val, bool) or not isinstance(val, (int, float)):
                    raise _err(f"{source}: published.figures.{v}.\"{step}\".{m}", "a published figure must be a number", "write the figure as a number, e.g. 0.28")
    if "table" in published:
        _validate_table(published["table"], variants, source)
    checks = published.get("checks", [])
    if not isinstance(checks, list):
        raise _err(f"{source}: published.checks", "checks must be an array of tables", "write [[published.checks]] entries")
    for i, c in enumerate(checks):
        where = f"{source}: published.checks[{i}]"
        if not isinstance(c, Mapping):
            raise _err(where, "a check must be a table", "write [[published.checks]] with kind, name and refs")
        kind = c.get("kind")
        if kind not in CHECK_KEYS:
            raise _err(where, f"unknown check kind `{kind}`", 'write kind = "ratio", "published" or "growth"')
        for k in c:
            if k not in CHECK_KEYS[kind]:
                raise _err(where, f"unknown key `{k}` in a {kind} check", f"remove it; a {kind} check takes {', '.join(sorted(CHECK_KEYS[kind]))}")
        refs = {"ratio": ["a", "b"], "published": ["at"], "growth": ["from", "at"]}[kind]
        for r in refs:
            ref = c.get(r)
            if not isinstance(ref, str):
                raise _err(where, f"`{r}` is missing or not a string", f'add {r} = "VARIANT/STEP/METRIC"')
            v, step, metric = split_ref(ref, where)
            if v not in variants:
                raise _err(where, f"`{ref}` names no declared variant", f"use one of: {', '.join(variants)}")
            if metrics is not None and metric not in metrics:
                raise _err(where, f"`{ref}` names no metric `{metric}`", "see `memtwin metrics` for the names")
            if steps_of is not None:
                steps = steps_of(v)
                if step not in steps:
                    raise _err(where, f"`{ref}` names no step `{step}` of variant {v}", f"use one of: {', '.join(steps)}")
        if kind == "ratio":
            lo, hi = c.get("min"), c.get("max")
            if lo is None and hi is None:
                raise _err(where, "a ratio check needs `min` or `max`", "add min = 30.0 or max = 1.05")
            for b in (lo, hi):
                if b is not None and (isinstance(b, bool) or not isinstance(b, (int, float))):
                    raise _err(where, "min and max must be numbers", "write min = 0.95")
        else:
            tol = c.get("rel_tol")
            if isinstance(tol, bool) or not isinstance(tol, (int, float)) or tol < 0:
                raise _err(where, f"a {kind} check needs a `rel_tol` of 0 or more", "add rel_tol = 0.30 (30%)")
            atol = c.get("abs_tol", 0)
            if isinstance(atol, bool) or not isinstance(atol, (int, float)) or atol < 0:
                raise _err(where, "`abs_tol` must be a number of 0 or more (in the metric's unit)", "write abs_tol = 16384")
            for r in refs:
                v, step, metric = split_ref(c[r], where)
                if figure(published, v, step, metric) is None:
                    raise _err(where, f"no published figure at figures.{v}.\"{step}\".{metric}", "add the figure to [published.figures...]")


def evaluate(published: Mapping, results: Mapping[str, "object"], source: str) -> list[CheckOutcome]:
    """Evaluate every check against `results` ({variant: Result}); a check naming a variant
    that was not run is reported as skipped, with the reason."""
    out = []
    checks = published.get("checks", [])
    if not isinstance(checks, list):
        raise _err(f"{source}: published.checks", "checks must be an array of tables", "write [[published.checks]] entries")
    for i, c in enumerate(checks):
        where = f"{source}: published.checks[{i}]"
        if not isinstance(c, Mapping):
            raise _err(where, "a check must be a table", "write [[published.checks]] with kind, name and refs")
        name = str(c.get("name", f"check {i}"))
        kind = c.get("kind")

        def value(ref_key: str) -> tuple[Optional[float], str]:
            ref = c.get(ref_key)
            if not isinstance(ref, str):
                raise _err(where, f"`{ref_key}` is missing or not a string", f'add {ref_key} = "VARIANT/STEP/METRIC"')
            v, step, metric = split_ref(ref, where)
            r = results.get(v)
            if r is None:
                return None, f"skipped: variant {v} was not run"
            try:
                return r.metric(step, metric), ref
            except KeyError as e:
                raise _err(where, str(e).strip("'\""), "name a step and metric the scenario reports") from None

        if kind == "ratio":
            a, ra = value("a")
            b, rb = value("b")
            lo, hi = c.get("min"), c.get("max")
            if lo is None and hi is None:
                raise _err(where, "a ratio check needs `min` or `max`", "add min = 30.0 or max = 1.05")
            if a is None or b is None:
                out.append(CheckOutcome(name, False, ra if a is None else rb, skipped=True))
                continue
            ratio = a / b if b else float("inf")
            ok = (lo is None or ratio >= lo) and (hi is None or ratio <= hi)
            bounds = f"[{lo if lo is not None else '-inf'}, {hi if hi is not None else 'inf'}]"
            out.append(CheckOutcome(name, ok, f"{ratio:.4g} (want {bounds})"))
        elif kind == "published":
            sim, ref = value("at")
            tol = c.get("rel_tol")
            if not isinstance(tol, (int, float)):
                raise _err(where, "a published check needs `rel_tol`", "add rel_tol = 0.30 (30%)")
            v, step, metric = split_ref(c["at"], where)
            pub = figure(published, v, step, metric)
            if pub is None:
                raise _err(where, f"no published figure at figures.{v}.\"{step}\".{metric}", "add the figure to [published.figures...]")
            if sim is None:
                out.append(CheckOutcome(name, False, ref, skipped=True))
                continue
            atol = c.get("abs_tol", 0)
            ok = abs(sim - pub) <= max(tol * abs(pub), atol)
            rel = f"{(sim - pub) / pub * 100:+.1f}%" if pub else f"{fmt_num(sim - pub)}"
            tols = f"{tol * 100:g}%" + (f" or {fmt_num(atol)}" if atol else "")
            out.append(CheckOutcome(name, ok, f"{fmt_num(sim)} vs published {fmt_num(pub)} ({rel}, tolerance {tols})"))
        elif kind == "growth":
            sim_a, ref_a = value("from")
            sim_b, ref_b = value("at")
            tol = c.get("rel_tol")
            if not isinstance(tol, (int, float)):
                raise _err(where, "a growth check needs `rel_tol`", "add rel_tol = 0.10 (10%)")
            pa = figure(published, *split_ref(c["from"], where))
            pb = figure(published, *split_ref(c["at"], where))
            if pa is None or pb is None:
                raise _err(where, "a growth check needs published figures at `from` and `at`", "add them to [published.figures...]")
            if sim_a is None or sim_b is None:
                out.append(CheckOutcome(name, False, ref_a if sim_a is None else ref_b, skipped=True))
                continue
            sg, pg = sim_b - sim_a, pb - pa
            rel = (sg - pg) / pg if pg else float("inf")
            out.append(CheckOutcome(name, abs(rel) <= tol, f"grew {fmt_num(sg)} vs published {fmt_num(pg)} ({rel * 100:+.1f}%, tolerance {tol * 100:g}%)"))
        else:
            raise _err(where, f"unknown check kind `{kind}`", 'write kind = "ratio", "published" or "growth"')
    return out


def _validate_table(t, variants: list, source: str) -> None:
    where = f"{source}: published.table"
    if not isinstance(t, Mapping):
        raise _err(where, "[published.table] must be a table", "write [published.table] with title, at, rows, columns and cells")
    for k in t:
        if k not in TABLE_KEYS:
            raise _err(f"{where}.{k}", f"unknown key `{k}` in [published.table]", f"remove it; [published.table] takes {', '.join(sorted(TABLE_KEYS))}")
    at = t.get("at")
    if not isinstance(at, str) or len(at.split("/")) < 2 or not all(at.split("/")):
        raise _err(f"{where}.at", "`at` must be STEP/METRIC", 'write at = "grep data 1/*/elapsed_s"')
    sa = t.get("seed_at")
    if sa is not None and (not isinstance(sa, str) or len(sa.split("/")) < 2 or not all(sa.split("/"))):
        raise _err(f"{where}.seed_at", "`seed_at` must be STEP/METRIC", 'write seed_at = "grep data 1/*/elapsed_s"')
    hd = t.get("headings")
    if hd is not None and (sa is None or not isinstance(hd, list) or len(hd) != 3 or not all(isinstance(h, str) for h in hd)):
        raise _err(f"{where}.headings", "`headings` names the three figures of a column and needs `seed_at`",
                   'write headings = ["published", "real", "simulated"] beside seed_at')
    cols = t.get("columns")
    if not isinstance(cols, list) or not cols or not all(isinstance(c, str) for c in cols):
        raise _err(f"{where}.columns", "`columns` must be a list of headings", 'write columns = ["without cleaning", "with cleaning"]')
    cells = t.get("cells")
    if not isinstance(cells, list) or not cells:
        raise _err(f"{where}.cells", "`cells` must be a list of rows", 'write cells = [["360", "keep-360", "clean-360"]]')
    for i, row in enumerate(cells):
        if not isinstance(row, list) or len(row) != len(cols) + 1 or not all(isinstance(x, str) for x in row):
            raise _err(f"{where}.cells[{i}]", f"a row must be a label and {len(cols)} variant names", f'write ["360", {", ".join(chr(34) + "VARIANT" + chr(34) for _ in cols)}]')
        for v in row[1:]:
            if v not in variants:
                raise _err(f"{where}.cells[{i}]", f"no variant `{v}` in [variants]", f"use one of: {', '.join(variants)}")


def seed_table(published: Mapping, results: Mapping[str, "object"]) -> Optional[str]:
    """The seed's own table (`[published.table]`): a row per label, for each column the
    simulated figure of that row's variant beside the published one and their difference (in
    blocks of columns when they do not fit in 100 characters). None when the scenario has no
    such table."""
    from memtwin.report import Col, fit, label

    t = published.get("table") if published else None
    if not t:
        return None
    step, metric = t["at"].rsplit("/", 1)
    if t.get("seed_at"):
        return _seed_table_with_seed(t, published, results, step, metric)
    groups = []
    for i, col in enumerate(t["columns"]):
        sims, pubs, diffs = [], [], []
        for row in t["cells"]:
            v = row[i + 1]
            r = results.get(v)
            sim = r.metric(step, metric) if r is not None else None
            pub = figure(published, v, step, metric)
            sims.append(f"{sim:.3f}" if sim is not None else "-")
            pubs.append(f"{pub:.3f}" if pub is not None else "-")
            diffs.append(f"{(sim - pub) / pub * 100:+.1f}%" if sim is not None and pub else "")
        groups.append([Col(f"{col}\nsimulated", sims), Col("\npublished", pubs), Col("\ndiff", diffs)])
    rows = label(str(t.get("rows", "")) + "\n", [row[0] for row in t["cells"]])
    return str(t.get("title", t["at"])) + "\n" + fit([rows], groups)


def _seed_table_with_seed(t: Mapping, published: Mapping, results: Mapping[str, "object"], step: str, metric: str) -> str:
    """`seed_table()` of a table with `seed_at`: per column the seed's own figure (`seed_at`,
    e.g. its grep time), the real kernel's (`at`, the target), the simulated one and its
    difference from the real one."""
    from memtwin.report import Col, fit, label

    sstep, smetric = t["seed_at"].rsplit("/", 1)
    heads = t.get("headings") or ["published", "real", "simulated"]

    def num(v: Optional[float]) -> str:
        return "-" if v is None else (fmt_num(v) if float(v).is_integer() else f"{v:.3f}")

    groups = []
    for i, col in enumerate(t["columns"]):
        seeds, reals, sims, diffs = [], [], [], []
        for row in t["cells"]:
            v = row[i + 1]
            r = results.get(v)
            sim = r.metric(step, metric) if r is not None else None
            real = figure(published, v, step, metric)
            seeds.append(num(figure(published, v, sstep, smetric)))
            reals.append(num(real))
            sims.append(num(sim))
            if sim is not None and real is not None:
                diffs.append(f"{(sim - real) / real * 100:+.1f}%" if real else fmt_num(sim - real))
            else:
                diffs.append("")
        groups.append([Col(f"{col}\n{heads[0]}", seeds), Col(f"\n{heads[1]}", reals), Col(f"\n{heads[2]}", sims), Col("\ndiff", diffs)])
    rows = label(str(t.get("rows", "")) + "\n", [row[0] for row in t["cells"]])
    return str(t.get("title", t["at"])) + "\n" + fit([rows], groups)
