"""`memtwin reproduce`: run every seed scenario (scenarios/seed*.toml, and the work-in-progress
ones of scenarios/wip/seed*.toml, marked so), every variant, print the compare tables and
targets, and write one self-contained HTML report (tables, targets and plots embedded as base64
PNGs; it works offline)."""

from __future__ import annotations

import base64
import html
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence, TextIO

from memtwin import progress
from memtwin._memtwin import ScenarioError
from memtwin.api import Scenario, load
from memtwin.jsonio import ensure_dir, write_text
from memtwin.progress import Progress
from memtwin.published import CheckOutcome, evaluate, figure, seed_table
from memtwin.report import compare_table, fmt_value, metrics_for, wrap

DEFAULT_OUT = os.path.join("build", "reproduce")
_SEED_RE = re.compile(r"^seed(\d+)")


def default_scenarios_dir() -> str:
    """The scenarios shipped inside the package (memtwin/scenarios; the repository's scenarios/
    is a link to it), so `memtwin reproduce` finds them from any directory, installed or not."""
    return str(Path(__file__).resolve().parent / "scenarios")


def _shown(path: str) -> str:
    """`path` relative to the current directory when it lies under it."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def _err(where: str, message: str, fix: str) -> ScenarioError:
    return ScenarioError(f"{where}: error: {message}\n  fix: {fix}", [(where, message, fix)])


def _seed_files(d: str) -> list[str]:
    if not os.path.isdir(d):
        return []
    return [os.path.join(d, f) for f in os.listdir(d)
            if _SEED_RE.match(f) and f.endswith(".toml") and os.path.isfile(os.path.join(d, f))]


def is_wip(path: str) -> bool:
    """Whether a scenario file is a work in progress (it lies in a `wip` directory)."""
    return os.path.basename(os.path.dirname(os.path.abspath(path))) == "wip"


def discover(scenarios_dir: str, only: Sequence[str] = (), wip: bool = True) -> list[str]:
    """The seed scenario files of `scenarios_dir` and, with `wip`, of its `wip/` directory (work
    in progress: scenarios whose targets are not met yet), sorted by seed number; with `only`,
    those whose seed number (the digits after `seed` in the file name) equals one of the given
    ones (`000`, `3`, `seed003`)."""
    if not os.path.isdir(scenarios_dir):
        raise _err(scenarios_dir, "no such directory", "point --scenarios at the directory holding seed*.toml")
    files = _seed_files(scenarios_dir) + (_seed_files(os.path.join(scenarios_dir, "wip")) if wip else [])
    files.sort(key=lambda f: (int(_SEED_RE.match(os.path.basename(f)).group(1)), f))
    if not files:
        raise _err(scenarios_dir, "no seed*.toml scenario in this directory", "point --scenarios at the directory holding seed*.toml")
    files = [_shown(f) for f in files]
    if not only:
        return files
    numbers = {f: int(_SEED_RE.match(os.path.basename(f)).group(1)) for f in files}
    known = ", ".join(_SEED_RE.match(os.path.basename(f)).group(1) for f in files)
    chosen = []
    for s in only:
        digits = s[4:] if s.lower().startswith("seed") else s
        if not digits.isdigit():
            raise _err(f"--only {s}", f"`{s}` is not a seed number", f"give seed numbers such as 000 or 003; known: {known}")
        hits = [f for f in files if numbers[f] == int(digits)]
        if not hits:
            raise _err(f"--only {s}", f"no scenario for seed {s} in {scenarios_dir}", f"use one of: {known}")
        chosen += [f for f in hits if f not in chosen]
    return [f for f in files if f in chosen]


@dataclass
class Section:
    """One scenario's run, as the report shows it."""

    path: str
    scn: Scenario
    results: dict
    metrics: list
    outcomes: list
    wall_s: float
    plots: list = field(default_factory=list)
    patched: Optional[Patched] = None

    @property
    def name(self) -> str:
        return self.scn.name

    @property
    def wip(self) -> bool:
        return is_wip(self.path)

    def sentence(self) -> str:
        head = self.scn.doc.table("scenario")
        desc = str(head.get("description", "")).strip() if isinstance(head, dict) else ""
        if desc and desc[-1] not in ".?!":
            desc += "."
        vs = "; ".join(f"{v}: {d}" if d else v for v, d in self.scn.variants())
        return (desc + (f" Compared: {vs}." if vs else "")).strip()


@dataclass
class Patched:
    """A seed's experiment recorded on a patched lab kernel (memtwin lab kernel build): a
    validation scenario whose [validation] says `patched_kernel_for = "SEED SCENARIO NAME"` and
    maps the seed's variants to its own (`patched_variants`)."""
    scenario: str
    kernel: str
    steps: dict  # seed variant -> the recorded variant's steps
    timing_comparable: bool = False

    def value(self, variant: str, step: str, metric: str) -> Optional[float]:
        """The recorded figure; none for times of a run whose times are not comparable (TCG)."""
        from memtwin.validate import _value

        if not self.timing_comparable and (metric.endswith("_s") or metric.endswith("_us")):
            return None
        for s in self.steps.get(variant, []):
            if s["name"] == step:
                return _value(s, metric)
        return None


def patched_runs(scenarios_dir: str) -> dict:
    """seed scenario name -> Patched, from scenarios_dir/validation/*.toml."""
    import json

    out = {}
    vdir = os.path.join(scenarios_dir, "validation")
    for f in sorted(os.listdir(vdir)) if os.path.isdir(vdir) else []:
        if not f.endswith(".toml"):
            continue
        path = os.path.join(vdir, f)
        with open(path) as fh:
            if "patched_kernel_for" not in fh.read():
                continue
        spec = load(path).doc.table("validation") or {}
        seed = spec.get("patched_kernel_for")
        if not seed or "recorded" not in spec:
            continue
        from memtwin.validate import recorded_path

        rec_path = recorded_path(path, spec)
        try:
            with open(rec_path) as fh:
                rec = json.load(fh)
        except (OSError, ValueError):
            continue  # not recorded yet: no column
        steps, kernel, timing = {}, "?", True
        for seed_v, rec_v in (spec.get("patched_variants") or {}).items():
            run = rec.get("variants", {}).get(rec_v)
            if run:
                steps[seed_v] = run["steps"]
                kernel = (run.get("real") or {}).get("kernel_image") or kernel
                timing = timing and bool((run.get("real") or {}).get("timing_comparable"))
        out[seed] = Patched(_shown(path), kernel, steps, timing)
    return out


def _validate(files: Sequence[str]) -> tuple[list, list]:
    scns, errors = [], []
    for f in files:
        try:
            scn = load(f)
            for v in [v for v, _ in scn.variants()] or [None]:
                scn.check(v, [])
            scns.append(scn)
        except ScenarioError as e:
            errors.append(e.args[0] if e.args else str(e))
    return scns, errors


def _run_section(path: str, scn: Scenario, step=None) -> Section:
    """Run every variant of `scn`; `step(variant)` is called before each (the overall bar)."""
    from memtwin import cli  # the progress bar and error listing of `memtwin compare`

    variants = [v for v, _ in scn.variants()] or [None]
    results = {}
    t0 = time.perf_counter()
    for v in variants:
        if step:
            step(v or "default")
        results[v or "default"] = cli._run_variant(scn, v, [])
    wall = time.perf_counter() - t0
    first = next(iter(results.values()))
    outcomes = evaluate(scn.published, results, path) if scn.published else []
    return Section(path, scn, results, metrics_for(first.info), outcomes, wall)


def _print_section(sec: Section, out: TextIO) -> None:
    first = next(iter(sec.results.values()))
    desc = first.info["description"]
    print(f"== {sec.name} ({sec.path}) ==", file=out)
    if sec.wip:
        print(wrap(WIP_NOTE), file=out)
    if desc:
        print(wrap(desc), file=out)
    print(f"kernel profile {first.info['profile']}, cgroup {first.info['cgroup']}", file=out)
    if sec.scn.published.get("source"):
        print(wrap(f"published figures: {sec.scn.published['source']}", "  "), file=out)
    print(file=out)
    if sec.patched:
        print(wrap(f"patched kernel: {sec.patched.kernel}, recorded by {sec.patched.scenario} (its own machine "
                   "and scale: see its header" + ("" if sec.patched.timing_comparable else "; its times, under QEMU/TCG, "
                                                  "are not comparable and not shown") + ")", "  "), file=out)
    print(compare_table(sec.results, sec.metrics, sec.scn.published, sec.patched.value if sec.patched else None), file=out)
    table = seed_table(sec.scn.published, sec.results)
    if table:
        print(file=out)
        print(table, file=out)
    if sec.outcomes:
        print(file=out)
        print("Targets ([published.checks]):", file=out)
        for o in sec.outcomes:
            print(wrap(f"  {o.status}  {o.name}: {o.detail}", " " * 8), file=out)
    print(file=out)
    print(f"{sec.name}: {len(sec.results)} variants simulated in {sec.wall_s:.2f} s (wall time)", file=out)
    print(file=out)


WIP_NOTE = ("WORK IN PROGRESS: the model does not meet this seed's targets yet; the scenario file's "
            "header says what was tried and what is known.")


def _missed(o: CheckOutcome) -> bool:
    return not (o.ok or o.skipped)


# --- HTML -------------------------------------------------------------------------------------

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1100px; color: #222; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { border-bottom: 2px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
table { border-collapse: collapse; font-size: .9em; margin: .5em 0; }
.tablewrap { max-width: 100%; overflow-x: auto; margin: .8em 0; }
th, td { border: 1px solid #ccc; padding: .25em .6em; }
td.num { text-align: right; font-family: ui-monospace, Menlo, Consolas, monospace; }
td.pub { background: #f4f4ff; }
td.kern { background: #f0fff0; }
th { background: #eee; }
.pass { color: #176317; font-weight: bold; } .fail { color: #b00; font-weight: bold; } .skip { color: #777; font-weight: bold; }
.meta { color: #555; font-size: .9em; }
.wip { background: #fff4d6; border-left: 4px solid #e0a800; padding: .4em .8em; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { color: #555; font-size: .9em; }
"""


def _e(s) -> str:
    return html.escape(str(s), quote=True)


HTML_WIDTH_PX = 1060  # the body's 1100 px less its padding
CHAR_PX = 8.7  # a character of the tables' .9em monospace, about
CELL_PX = 22  # a cell's padding and border


def _col_px(texts) -> float:
    return max([len(str(t)) for t in texts] + [1]) * CHAR_PX + CELL_PX


def _table_html(sec: Section) -> str:
    """The simulated and published figures: a row per (step, metric), per variant its
    simulated figure and, when it has published ones, the published figure and the difference;
    the variants in blocks that fit the page's width, each repeating the step and metric
    columns (and a block scrolls sideways, as a last resort, when one variant does not fit)."""
    names = list(sec.results)
    first = sec.results[names[0]]
    steps = [s["name"] for s in first.raw["steps"]]
    pub = sec.scn.published or {}
    rows = [(step, m) for step in steps for m in sec.metrics]
    cells, width = {}, {}
    for v in names:
        col = []
        for step, m in rows:
            try:
                val = sec.results[v].metric(step, m)
            except KeyError:
                val = None
            p = figure(pub, v, step, m)
            diff = ""
            if p is not None and val is not None:
                diff = f"{(val - p) * 100.0 / p:+.1f}%" if p else ("0" if val == 0 else "")
            k = sec.patched.value(v, step, m) if sec.patched else None
            col.append((fmt_value(val), fmt_value(p) if p is not None else "", diff, fmt_value(k) if k is not None else ""))
        has_pub = bool(pub.get("figures", {}).get(v))
        has_k = bool(sec.patched and sec.patched.steps.get(v))
        cells[v] = (col, has_pub, has_k)
        width[v] = max(_col_px([c[0] for c in col] + ["simulated"]) + (
            _col_px([c[1] for c in col] + ["published"]) + _col_px([c[2] for c in col] + ["diff"]) if has_pub else 0)
            + (_col_px([c[3] for c in col] + ["patched kernel"]) if has_k else 0),
            len(v) * CHAR_PX + CELL_PX)
    label_px = _col_px([st for st, _ in rows] + ["step"]) + _col_px([m for _, m in rows] + ["metric"])
    blocks, cur, w = [], [], label_px
    for v in names:
        if cur and w + width[v] > HTML_WIDTH_PX:
            blocks.append(cur)
            cur, w = [], label_px
        cur.append(v)
        w += width[v]
    blocks.append(cur)
    out = []
    for block in blocks:
        t = ["<div class=\"tablewrap\"><table>",
             "<thead><tr><th rowspan=\"2\">step</th><th rowspan=\"2\">metric</th>"
             + "".join(f"<th colspan=\"{(3 if cells[v][1] else 1) + cells[v][2]}\">{_e(v)}</th>" for v in block) + "</tr>",
             "<tr>" + "".join(("<th>simulated</th><th>published</th><th>diff</th>" if cells[v][1] else "<th>simulated</th>")
                              + ("<th>patched kernel</th>" if cells[v][2] else "") for v in block) + "</tr></thead><tbody>"]
        for i, (step, m) in enumerate(rows):
            row = [f"<td>{_e(step)}</td><td>{_e(m)}</td>"]
            for v in block:
                sim, p, diff, k = cells[v][0][i]
                row.append(f"<td class=\"num\">{_e(sim)}</td>")
                if cells[v][1]:
                    row.append(f"<td class=\"num pub\">{_e(p)}</td><td class=\"num\">{_e(diff)}</td>")
                if cells[v][2]:
                    row.append(f"<td class=\"num kern\">{_e(k)}</td>")
            t.append("<tr>" + "".join(row) + "</tr>")
        t.append("</tbody></table></div>")
        out.append("\n".join(t))
    return "\n".join(out)


def _section_html(sec: Section) -> str:
    first = next(iter(sec.results.values()))
    src = sec.scn.published.get("source") if sec.scn.published else None
    parts = [f"<section id=\"{_e(sec.name)}\">", f"<h2>{_e(sec.name)}</h2>",
             *([f"<p class=\"wip\">{_e(WIP_NOTE)}</p>"] if sec.wip else []),
             f"<p class=\"desc\">{_e(sec.sentence())}</p>",
             f"<p class=\"meta\">scenario {_e(sec.path)}; kernel profile {_e(first.info['profile'])}, cgroup {_e(first.info['cgroup'])}"
             + (f"; published figures: {_e(src)}" if src else "")
             + (f"; patched kernel: {_e(sec.patched.kernel)}, recorded by {_e(sec.patched.scenario)} (its own machine and "
                "scale: see its header)" if sec.patched else "")
             + f"; {len(sec.results)} variants simulated in {sec.wall_s:.2f} s (wall time)</p>",
             "<h3>Simulated, published" + (" and on the patched kernel" if sec.patched else "") + "</h3>", _table_html(sec)]
    table = seed_table(sec.scn.published, sec.results)
    if table:
        parts.append(f"<h3>The seed's table</h3><div class=\"tablewrap\"><pre>{_e(table)}</pre></div>")
    if sec.outcomes:
        parts.append("<h3>Targets</h3><ul class=\"targets\">")
        for o in sec.outcomes:
            parts.append(f"<li><span class=\"{o.status.lower()}\">{o.status}</span> {_e(o.name)}: {_e(o.detail)}</li>")
        parts.append("</ul>")
    if sec.plots:
        parts.append("<h3>Plots</h3>")
        for p in sec.plots:
            b64 = base64.b64encode(p.png).decode("ascii")
            parts.append(f"<figure><img alt=\"{_e(p.title)}\" src=\"data:image/png;base64,{b64}\">"
                         f"<figcaption>{_e(p.title)}</figcaption></figure>")
    parts.append("</section>")
    return "\n".join(parts)


def render_html(sections: Sequence[Section]) -> str:
    outcomes = [o for s in sections for o in s.outcomes]
    missed = [o for o in outcomes if _missed(o)]
    toc = "".join(f"<li><a href=\"#{_e(s.name)}\">{_e(s.name)}</a>: "
                  f"{sum(o.ok for o in s.outcomes)}/{len(s.outcomes)} targets met"
                  f"{' (work in progress)' if s.wip else ''}</li>" for s in sections)
    return "\n".join([
        "<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
        "<title>memtwin reproduce</title>", f"<style>{CSS}</style></head><body>",
        "<h1>memtwin reproduce: the seeds, simulated</h1>",
        f"<p>{len(sections)} scenario(s), {len(outcomes)} target(s): {len(outcomes) - len(missed)} met, {len(missed)} missed. "
        "Published figures are shaded; diff is simulated against published; the patched kernel's figures (green) "
        "are the seed's experiment recorded on a 6.1 lab kernel with the seed's patch (memtwin lab kernel build), on "
        "the machine its validation scenario names.</p>",
        f"<ul>{toc}</ul>",
        *(_section_html(s) for s in sections),
        "</body></html>", ""])


# --- the command ------------------------------------------------------------------------------

def reproduce(scenarios_dir: Optional[str] = None, only: Sequence[str] = (), out_dir: str = DEFAULT_OUT,
              check: bool = False, out: TextIO = None, err: TextIO = None, wip: bool = True) -> int:
    """Run the seeds (with `wip`, the work-in-progress ones too) and write OUT_DIR/report.html.
    Returns the exit code (1: --check and a target of a scenario that is not work in progress
    missed). Raises ScenarioError or OutputError (exit 2) before anything runs."""
    from memtwin.plots import plots_for

    out = out or sys.stdout
    err = err or sys.stderr
    files = discover(scenarios_dir or default_scenarios_dir(), only, wip)
    scns, errors = _validate(files)
    if errors:
        raise ScenarioError("\n".join(errors), [])
    ensure_dir(out_dir)  # fail on a bad DIR before the runs
    report = os.path.join(out_dir, "report.html")
    sections = []
    patched = patched_runs(scenarios_dir or default_scenarios_dir())
    t0 = time.perf_counter()
    total = sum(len(scn.variants()) or 1 for scn in scns)
    done = 0
    # The whole run as one bar (a unit per variant, the running variant's own progress moving it
    # between units, so the ETA moves during a long one), above the running variant's bar.
    bar = Progress("reproduce", stream=err, nest=True)
    try:
        for i, (path, scn) in enumerate(zip(files, scns), 1):
            nv = len(scn.variants()) or 1
            progress.note(f"[{i}/{len(files)}] {scn.name}: running {nv} variant{'s' if nv != 1 else ''}", err)

            def step(v, scn=scn):
                nonlocal done
                done += 1
                bar(done - 1, total, label=f"[{done}/{total}] {scn.name}: {v}")

            sec = _run_section(path, scn, step)
            sec.patched = patched.get(scn.name)
            bar(done, total)
            with progress.paused():
                _print_section(sec, out)
            sec.plots = plots_for(sec.name, sec.results, sec.scn.published, sec.metrics)
            sections.append(sec)
    finally:
        bar.close()
    write_text(report, render_html(sections))
    missed = [(s, o) for s in sections for o in s.outcomes if _missed(o)]
    total = sum(len(s.outcomes) for s in sections)
    print(f"{len(sections)} scenario(s), {total} target(s): {total - len(missed)} met, {len(missed)} missed; "
          f"{time.perf_counter() - t0:.2f} s in all", file=out)
    for s, o in missed:
        print(wrap(f"  MISSED  {s.name}{' (work in progress)' if s.wip else ''}: {o.name}: {o.detail}", " " * 10), file=out)
    if check and any(s.wip for s, _ in missed):
        print("--check: the work-in-progress scenarios' misses are known and do not set the exit code", file=out)
    print(f"wrote {report}", file=out)
    return 1 if (check and any(not s.wip for s, _ in missed)) else 0
