"""Text reports: a run's step table and the compare-kernels-style side-by-side table, drawn
with rich to plain text at a fixed width (WIDTH, 100 columns), the same bytes run to run and on
any terminal: a table wider than that is split into blocks of columns (variants, metrics), each
block repeating the row labels."""

from __future__ import annotations

import io
import textwrap
from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

DEFAULT_METRICS = ["elapsed_s", "user_s", "sys_s", "read_bytes", "memcg.usage_bytes"]

# Metrics where less is better (mmtests shows a gain as a positive percentage).
LOWER_IS_BETTER = ("elapsed_s", "user_s", "sys_s", "iowait_s", "read_bytes", "write_bytes", "pagecache_miss_pages",
                   "memcg.pgscan", "memcg.pgsteal", "memcg.failcnt", "memcg.workingset_refault_file", "vmstat.pgpgin",
                   "vmstat.pgpgout", "oom_killed", "vmstat.allocstall",
                   "vmstat.allocstall_normal", "vmstat.allocstall_movable")
HIGHER_IS_BETTER = ("pagecache_hit_pages",)


def pct_change(metric: str, base: float, new: float) -> Optional[float]:
    """mmtests' percentage: a gain against the baseline is positive for metrics with a
    direction; other metrics show the plain relative change."""
    if base == 0:
        return None if new != 0 else 0.0
    if metric in LOWER_IS_BETTER:
        return 100.0 - new * 100.0 / base
    return new * 100.0 / base - 100.0


def fmt_value(v: Optional[float]) -> str:
    if v is None:
        return "-"
    if float(v).is_integer():
        return str(int(v))
    if abs(v) < 1e-5:
        return f"{v:.3e}"
    if abs(v) < 1e-3:  # four significant digits, fixed: 0.0002433 (a sub-millisecond time in seconds)
        return f"{v:.{7 if abs(v) >= 1e-4 else 8}f}"
    return f"{v:.4f}"


def fmt_pct(p: Optional[float]) -> str:
    """`(   97.99%)`; a change too large for 8 characters in exponent form, `(-4.6e+07%)`."""
    if p is None:
        return "(    n/a )"
    return f"({p:8.2f}%)" if abs(p) < 99999.995 else f"({p:8.1e}%)"


def metrics_for(info: Mapping, explicit: Sequence[str] = ()) -> list[str]:
    if explicit:
        return list(explicit)
    return list(info.get("report_metrics") or DEFAULT_METRICS)


def fmt_diff(d: Optional[float]) -> str:
    """A signed difference: `+4096`, `-376832`, `+0.0123`."""
    if d is None:
        return "-"
    return ("-" if d < 0 else "+") + fmt_value(abs(d))


# --- plain-text tables at a fixed width ---------------------------------------------------------

WIDTH = 100
GAP = 1  # spaces between columns (label columns add one of their own)

_BOX = None


def _box():
    """No borders, a dashed rule under the header (ASCII)."""
    global _BOX
    if _BOX is None:
        from rich import box

        _BOX = box.Box("    \n    \n -  \n    \n    \n    \n    \n    \n", ascii=True)
    return _BOX


@dataclass
class Col:
    """A column of a text table: a header (lines separated by \\n) and its cells."""

    header: str
    cells: list = field(default_factory=list)
    justify: str = "right"
    fold: bool = False  # may wrap when even one block is wider than WIDTH (labels)

    @property
    def width(self) -> int:
        return max([len(x) for x in self.header.split("\n")] + [len(c) for c in self.cells])


def render(cols: Sequence[Col], width: int = WIDTH) -> str:
    """One rich table of these columns as plain text, `width` columns at most, trailing spaces
    stripped."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False,
                      force_interactive=False, no_color=True, highlight=False, emoji=False, markup=False,
                      legacy_windows=False, _environ={})
    t = Table(box=_box(), show_edge=False, pad_edge=False, padding=0, header_style="",
              show_header=True)
    for c in cols:
        t.add_column(Text(c.header, justify=c.justify), justify=c.justify, no_wrap=not c.fold,
                     overflow="fold" if c.fold else "ellipsis")
    for row in zip(*(c.cells for c in cols)):
        t.add_row(*(Text(x) for x in row))
    console.print(t)
    return "\n".join(line.rstrip() for line in console.file.getvalue().rstrip("\n").split("\n"))


def label(header: str, cells: Sequence[str]) -> Col:
    """A left-aligned label column, a space wider than its text (two before the next column)."""
    return Col(header, [c + " " for c in cells], justify="left", fold=True)


def blocks(labels: Sequence[Col], groups: Sequence[Sequence[Col]], width: int = WIDTH) -> list:
    """Split `groups` (consecutive columns that stay together: a variant's simulated and
    published figures) into blocks that fit `width` with the label columns in front of each."""
    lw = sum(c.width + GAP for c in labels)
    out, cur, w = [], [], lw
    for g in groups:
        gw = sum(c.width + GAP for c in g)
        if cur and w + gw - GAP > width:
            out.append(cur)
            cur, w = [], lw
        cur.append(g)
        w += gw
    if cur or not out:
        out.append(cur)
    return [[c for g in b for c in g] for b in out]


def fit(labels: Sequence[Col], groups: Sequence[Sequence[Col]], width: int = WIDTH) -> str:
    """The table of `labels` + `groups`, as one table when it fits `width`, else as blocks of
    groups, each repeating the label columns, separated by a blank line."""
    return "\n\n".join(render(list(labels) + b, width) for b in blocks(labels, groups, width))


def wrap(text: str, indent: str = "", width: int = WIDTH) -> str:
    """A line of prose wrapped at `width`, continuation lines indented by `indent`."""
    return textwrap.fill(text, width=width, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False)


def run_table(result, metrics: Sequence[str]) -> str:
    """One variant: a row per step, a column per metric (in blocks of metrics when they do not
    fit in WIDTH)."""
    steps = result.raw["steps"]
    cols = [[Col(m, [fmt_value(s["metrics"].get(m)) for s in steps])] for m in metrics]
    return fit([label("step", [s["name"] for s in steps])], cols)


def compare_table(results: Mapping[str, object], metrics: Sequence[str], published: Optional[Mapping] = None,
                  patched=None) -> str:
    """compare-kernels layout: a row per (step, metric), per variant its figure with the change
    against the first variant, `simulated (gain%)`, and the published figure beside it when
    there is one, and `patched(variant, step, metric)`'s figure (a patched lab kernel's recorded
    run) when it gives one; variants that do not fit in WIDTH go to further blocks, each
    repeating the step and metric labels."""
    names = list(results)
    base = results[names[0]]
    figures = (published or {}).get("figures", {})
    steps = [s["name"] for s in base.raw["steps"]]
    rows = [(step, m) for step in steps for m in metrics]

    def value(v, step, m):
        try:
            return results[v].metric(step, m)
        except KeyError:
            return None

    labels = [label("", [st for st, _ in rows]), label("", [m for _, m in rows])]
    groups = []
    for v in names:
        sim = []
        for step, m in rows:
            bval, val = value(names[0], step, m), value(v, step, m)
            p = pct_change(m, bval, val) if (bval is not None and val is not None) else None
            sim.append(f"{fmt_value(val)} {fmt_pct(p)}")
        g = [Col(f"{v}\nsimulated", sim)]
        if figures.get(v):
            pub = [figures.get(v, {}).get(step, {}).get(m) for step, m in rows]
            g.append(Col("\npublished", [fmt_value(float(x)) if isinstance(x, (int, float)) else "" for x in pub]))
        if patched is not None and any(patched(v, step, m) is not None for step, m in rows):
            g.append(Col("\npatched kernel", [fmt_value(patched(v, step, m)) if patched(v, step, m) is not None else ""
                                              for step, m in rows]))
        groups.append(g)
    lines = [fit(labels, groups), "",
             wrap(f"Percentages compare each variant with {names[0]}; for times, I/O, scans and misses a positive "
                  "figure is a gain (100 - new*100/base), as mmtests' compare-kernels shows it.")]
    return "\n".join(lines)
