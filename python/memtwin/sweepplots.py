"""Plots and the HTML page of `memtwin sweep`.

Each plot draws one metric, summed over a run's steps, against the first numeric swept key (a
limit, usually), a line per variant (and per value of the other swept keys); a logarithmic x
axis when the key was swept geometrically (or its values span 16x or more). Points of the real
kernel (`--on host`) are drawn as markers over the twin's line. A value `max` (no limit) is a
dotted horizontal line. When exactly two keys are swept, a heatmap per variant shows the metric
over both.

The knee of a curve is the smallest swept value from which on every point's metric stays within
5% (KNEE_TOL) of the loosest point's (the largest value swept, `max` included): the smallest
limit that behaves as the loosest one does. A metric of 0 at the loosest point needs exactly 0.
"""

from __future__ import annotations

import base64
import html
import math
import os
from typing import Optional

from matplotlib.ticker import NullFormatter

from memtwin.plots import Plot, _png, plt
from memtwin.sweep import Plan, fmt_size, key_column, totals_by_point

KNEE_TOL = 0.05
PLOT_METRICS = [("read_bytes", "read bytes"), ("memcg.workingset_refault_file", "refaults (file)"), ("elapsed_s", "elapsed (s)"),
                ("miss_ratio", "page cache miss ratio = miss / (hit + miss), read/write/mapped")]


def x_key(plan: Plan) -> Optional[str]:
    """The first swept key whose values are all numbers (sizes, `max`)."""
    for k in plan.grid.keys:
        col = key_column(plan.grid.values(k))
        if col and not isinstance(col[0], str):
            return k
    return None


def knee(xs: list, ys: list, tol: float = KNEE_TOL) -> Optional[float]:
    """The smallest x from which on every y is within `tol` of the y at the largest x."""
    pts = sorted((x, y) for x, y in zip(xs, ys) if y is not None and y == y)
    if not pts:
        return None
    ref = pts[-1][1]
    best = pts[-1][0]
    for x, y in reversed(pts):
        if abs(y - ref) <= tol * abs(ref):
            best = x
        else:
            break
    return best


def _fmt_x(key: str, x: float) -> str:
    if x == math.inf:
        return "max"
    if "memory" in key or x >= 4096 and float(x).is_integer() and int(x) % 4096 == 0:
        return fmt_size(int(x))
    return f"{x:g}"


def _groups(plan: Plan, tot, xk: str):
    others = [k for k in plan.grid.keys if k != xk]
    for (variant, *ov), g in tot.groupby(["variant", *others], sort=False) if others else tot.groupby(["variant"], sort=False):
        label = variant if isinstance(variant, str) else variant[0]
        if others:
            label += " " + ", ".join(f"{k.split('.')[-1].strip(chr(34))}={v}" for k, v in zip(others, ov))
        yield label, g


def knees(plan: Plan, df, metric: str = "read_bytes") -> list:
    """Lines `knee (METRIC ...): LABEL VALUE` for the summary."""
    xk = x_key(plan)
    if xk is None or metric not in df.columns:
        return []
    tot = totals_by_point(df)
    out = []
    for label, g in _groups(plan, tot, xk):
        k = knee(list(g[xk]), list(g[metric]))
        out.append(f"  {label}: {_fmt_x(xk, k) if k is not None else '-'}")
    if not out:
        return []
    return [f"knee of {metric} over {xk} (smallest value from which every point is within {KNEE_TOL:.0%} of the loosest one's):", *out]


def sweep_plots(plan: Plan, df) -> list:
    xk = x_key(plan)
    plots = []
    tot = totals_by_point(df)
    real = totals_by_point(df, "real") if (df["source"] == "real").any() else None
    metrics = [(m, t) for m, t in PLOT_METRICS if m in tot.columns and tot[m].notna().any()]
    metrics += [(c, c) for c in tot.columns if str(c).startswith("psi.") and tot[c].notna().any()]
    if xk is not None:
        log = plan.grid.scale(xk) == "log"
        for m, title in metrics:
            fig, ax = plt.subplots(figsize=(7.5, 4.2))
            colors = {}
            for label, g in _groups(plan, tot, xk):
                fin = g[[math.isfinite(x) for x in g[xk]]]
                line, = ax.plot(fin[xk], fin[m], marker="o", markersize=3, label=f"{label} (twin)")
                colors[label] = line.get_color()
                unl = g[[not math.isfinite(x) for x in g[xk]]]
                if len(unl):
                    ax.axhline(float(unl[m].iloc[0]), color=line.get_color(), linestyle=":", linewidth=1, label=f"{label}: unlimited (max)")
                k = knee(list(g[xk]), list(g[m]))
                if k is not None and math.isfinite(k):
                    ax.axvline(k, color=line.get_color(), linestyle="--", linewidth=0.8, alpha=0.7)
                    ax.annotate(f"knee {_fmt_x(xk, k)}", (k, float(fin[fin[xk] == k][m].iloc[0])), textcoords="offset points",
                                xytext=(4, 6), fontsize=7, color=line.get_color())
            if real is not None and not m.endswith("_s"):  # the kernel's times are wall clock, not comparable
                for label, g in _groups(plan, real, xk):
                    fin = g[[math.isfinite(x) for x in g[xk]]]
                    ax.plot(fin[xk], fin[m], marker="D", linestyle="none", markersize=6, markerfacecolor="none",
                            color=colors.get(label, "black"), label=f"{label} (kernel)")
                    unl = g[[not math.isfinite(x) for x in g[xk]]]
                    if len(unl):
                        ax.axhline(float(unl[m].iloc[0]), color="black", linestyle="-.", linewidth=0.8, label=f"{label}: kernel, unlimited")
            if log:
                ax.set_xscale("log", base=2)
            xs = sorted(x for x in tot[xk] if math.isfinite(x))
            if xs and ("memory" in xk or xs[0] >= 4096):
                ticks = xs if len(xs) <= 12 else xs[:: max(1, len(xs) // 10)]
                ax.set_xticks(ticks)
                ax.set_xticklabels([_fmt_x(xk, t) for t in ticks], rotation=45, fontsize=7)
                ax.minorticks_off()
                ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel(xk)
            ax.set_ylabel(m)
            ax.set_title(f"{plan.name}: {title}")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
            plots.append(Plot(f"sweep-{_slug(m)}", f"{title} against {xk}, summed over the steps; dashed: the knee", _png(fig)))
    if len(plan.grid.axes) == 2 and all(len(ax) == 1 for ax in plan.grid.axes):
        k1, k2 = plan.grid.keys
        for m, title in [mt for mt in metrics if mt[0] in ("read_bytes", "elapsed_s")]:
            for v in plan.variants:
                g = tot[tot["variant"] == v]
                x1, x2 = list(dict.fromkeys(g[k1])), list(dict.fromkeys(g[k2]))
                grid = [[float("nan")] * len(x1) for _ in x2]
                for _, r in g.iterrows():
                    grid[x2.index(r[k2])][x1.index(r[k1])] = float(r[m])
                fig, ax = plt.subplots(figsize=(7, 4.5))
                im = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
                ax.set_xticks(range(len(x1)))
                ax.set_xticklabels([_fmt_x(k1, x) if not isinstance(x, str) else x for x in x1], rotation=45, fontsize=7)
                ax.set_yticks(range(len(x2)))
                ax.set_yticklabels([_fmt_x(k2, x) if not isinstance(x, str) else x for x in x2], fontsize=7)
                ax.set_xlabel(k1)
                ax.set_ylabel(k2)
                fig.colorbar(im, ax=ax, label=m)
                ax.set_title(f"{plan.name} [{v}]: {title}")
                plots.append(Plot(f"sweep-heatmap-{_slug(m)}-{_slug(v)}", f"{title} over {k1} and {k2}, variant {v}", _png(fig)))
    return plots


def _slug(s: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in s).strip("-")


def _e(s) -> str:
    return html.escape(str(s), quote=True)


def render_html(plan: Plan, df, plots: list) -> str:
    from memtwin.report import fmt_value
    from memtwin.reproduce import CSS

    tot = totals_by_point(df)
    real = totals_by_point(df, "real") if (df["source"] == "real").any() else None
    keys = plan.grid.keys
    shown = [m for m in ("elapsed_s", "read_bytes", "memcg.workingset_refault_file", "miss_ratio") if m in tot.columns]
    labels = {k: dict(zip(key_column(plan.grid.values(k)), plan.grid.values(k))) for k in keys}
    head = "".join(f"<th>{_e(k)}</th>" for k in keys) + "<th>variant</th>" + "".join(f"<th>{_e(m)}</th>" for m in shown)
    if real is not None:
        head += "".join(f"<th>{_e(m)} (kernel)</th>" for m in shown)
    rows = []
    for i, r in tot.iterrows():
        cells = "".join(f"<td>{_e(labels[k].get(r[k], r[k]))}</td>" for k in keys) + f"<td>{_e(r['variant'])}</td>"
        cells += "".join(f"<td class=\"num\">{_e(fmt_value(r[m]) if r[m] == r[m] else '-')}</td>" for m in shown)
        if real is not None:
            rr = real[(real["point"] == r["point"]) & (real["variant"] == r["variant"])]
            cells += "".join(f"<td class=\"num pub\">{_e(fmt_value(rr[m].iloc[0]) if len(rr) and rr[m].iloc[0] == rr[m].iloc[0] else '-')}</td>" for m in shown)
        rows.append(f"<tr>{cells}</tr>")
    grid = "; ".join(f"{k} = {', '.join(plan.grid.values(k))}" for k in keys)
    figs = []
    for p in plots:
        b64 = base64.b64encode(p.png).decode("ascii")
        figs.append(f"<figure><img alt=\"{_e(p.title)}\" src=\"data:image/png;base64,{b64}\"><figcaption>{_e(p.title)}</figcaption></figure>")
    kn = knees(plan, df)
    return "\n".join([
        "<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<title>memtwin sweep: {_e(plan.name)}</title>", f"<style>{CSS}</style></head><body>",
        f"<h1>memtwin sweep: {_e(plan.name)}</h1>",
        f"<p class=\"meta\">scenario {_e(plan.path)}; grid: {_e(grid)}; variants: {_e(', '.join(plan.variants))}"
        + (f"; fixed settings: {_e(' '.join(plan.sets))}" if plan.sets else "")
        + f"; {len(tot)} runs" + ("; real kernel points (this host) shaded" if real is not None else "") + "</p>",
        *([f"<pre>{_e(chr(10).join(kn))}</pre>"] if kn else []),
        "<h2>Plots</h2>", *figs,
        "<h2>Totals per point (counters summed over the steps)</h2>",
        f"<table><thead><tr>{head}</tr></thead><tbody>", *rows, "</tbody></table>",
        "<p class=\"meta\">Every step of every point: sweep.csv and sweep.parquet beside this page.</p>",
        "</body></html>", ""])


def write_report(out_dir: str, plan: Plan, df) -> list:
    """The PNGs and DIR/sweep.html, each written atomically; returns their paths."""
    from memtwin.jsonio import write_bytes, write_text

    plots = sweep_plots(plan, df)
    paths = []
    for p in plots:
        path = os.path.join(out_dir, p.slug + ".png")
        write_bytes(path, p.png)
        paths.append(path)
    path = os.path.join(out_dir, "sweep.html")
    write_text(path, render_html(plan, df, plots))
    paths.append(path)
    return paths
