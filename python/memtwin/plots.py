"""Plots of a scenario's runs, as PNG bytes (matplotlib, Agg backend: no display needed).

`plots_for(scenario_name, results, published)` returns a list of `Plot` (a file-name slug, a
title and the PNG bytes); `memtwin reproduce` embeds them in its HTML report, and
`memtwin run/compare --plot DIR` writes them as files. Seeds 000, 001 and 003 have plots of
their own (chosen by the scenario's name, `seed000-...`); any other scenario gets grouped bars
of its report metrics per step and variant, with the published figures as markers. Runs with
latency samples (seed 002's stutter probe) get their distribution per variant, and scenarios
with a seed table (seed 004) get it as curves."""

from __future__ import annotations

import colorsys
import io
import math
import os
import re
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from memtwin.jsonio import write_bytes  # noqa: E402
from memtwin.published import figure  # noqa: E402
from memtwin.report import metrics_for  # noqa: E402

MIB = 1 << 20
PUB_MARKER = dict(marker="D", color="black", markersize=7, linestyle="none", zorder=5)
LEGEND_ROWS = 24  # legend entries per column before another column starts
_capture = None  # tests: a list to receive the figures instead of closing them


def variant_colors(names: Sequence[str]) -> dict:
    """A distinct colour per name. Up to 10: matplotlib's tab10; more, when every name is
    GROUP-NUMBER... (seed 004's keep-360 ... clean-460): a hue per group, from dark to light
    along the group; else tab20 up to 20, and beyond a sampled continuous map."""
    from matplotlib import colormaps
    from matplotlib.colors import to_rgb

    names = list(dict.fromkeys(names))
    n = len(names)
    if n <= 10:
        return {v: to_rgb(f"C{i}") for i, v in enumerate(names)}
    groups: dict = {}
    for v in names:
        m = re.match(r"^(.*?[A-Za-z][^-]*)-\d", v)
        groups.setdefault(m.group(1) if m else None, []).append(v)
    if None not in groups and 1 < len(groups) <= 10 and max(len(g) for g in groups.values()) > 1:
        out = {}
        for gi, members in enumerate(groups.values()):
            h, _, sat = colorsys.rgb_to_hls(*to_rgb(f"C{gi}"))
            for k, v in enumerate(members):
                light = 0.22 + 0.56 * (k / (len(members) - 1) if len(members) > 1 else 0.5)
                out[v] = colorsys.hls_to_rgb(h, light, max(sat, 0.55))
        return {v: out[v] for v in names}
    if n <= 20:
        cmap = colormaps["tab20"]
        return {v: cmap(i)[:3] for i, v in enumerate(names)}
    cmap = colormaps["turbo"]
    return {v: cmap(0.04 + 0.92 * i / (n - 1))[:3] for i, v in enumerate(names)}


def _legend_outside(ax, fontsize: int = 8, **kw) -> None:
    """The axes' legend to the right of it, out of the data (columns of LEGEND_ROWS entries)."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize=fontsize,
              ncol=math.ceil(len(handles) / LEGEND_ROWS), **kw)


def _legend_width(n: int) -> float:
    """Inches to widen a figure by for a legend of n entries beside the axes."""
    return 2.2 * math.ceil(max(n, 1) / LEGEND_ROWS)


@dataclass
class Plot:
    slug: str
    title: str
    png: bytes


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.tight_layout()
    # No Software/URL metadata: the bytes carry no link and are the same run to run. The
    # tight box takes in the legends beside the axes.
    fig.savefig(buf, format="png", dpi=100, metadata={"Software": None}, bbox_inches="tight", pad_inches=0.15)
    if _capture is not None:
        _capture.append(fig)
    else:
        plt.close(fig)
    return buf.getvalue()


def _steps(res) -> list[str]:
    return [s["name"] for s in res.raw["steps"]]


def _metric(res, step: str, m: str) -> Optional[float]:
    try:
        v = res.metric(step, m)
    except KeyError:
        return None
    return None if v is None else float(v)


def _grouped_bars(ax, groups: Sequence[str], series: Mapping[str, Sequence[Optional[float]]],
                  published: Optional[Mapping[str, Sequence[Optional[float]]]] = None, scale: float = 1.0,
                  legend: bool = True) -> None:
    """Bars: an x group per `groups` entry, a bar per `series` key (a colour each); published
    markers sit on the bar they belong to (same key, same group). The legend goes beside the
    axes (`legend=False`: the caller makes one for the whole figure)."""
    keys = list(series)
    colors = variant_colors(keys)
    n = max(1, len(keys))
    width = 0.8 / n
    labelled = False
    for i, k in enumerate(keys):
        xs = [g + (i - (n - 1) / 2) * width for g in range(len(groups))]
        vals = [(v / scale if v is not None else 0.0) for v in series[k]]
        ax.bar(xs, vals, width=width * 0.95, label=k, color=colors[k])
        if published and k in published:
            px = [x for x, p in zip(xs, published[k]) if p is not None]
            py = [p / scale for p in published[k] if p is not None]
            if px:
                ax.plot(px, py, label=None if labelled else "published", **dict(PUB_MARKER, markersize=7 if n <= 10 else 4))
                labelled = True
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups)
    ax.grid(axis="y", alpha=0.3)
    if legend:
        _legend_outside(ax)


def _memcg_column(columns: Sequence[str]) -> Optional[str]:
    """The first non-root memcg's usage column ("/ct:usage_bytes")."""
    for c in columns:
        if c.endswith(":usage_bytes") and not c.startswith("/:") and c.startswith("/"):
            return c
    return None


def _seed000(results: Mapping, published: Mapping) -> list[Plot]:
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8 + _legend_width(len(results)), 6), sharex=True)
    colors = variant_colors(list(results))
    memcg = None
    for v, r in results.items():
        s = r.series
        memcg = _memcg_column(list(s.columns)) or memcg
        if memcg in s.columns:
            a1.plot(s.index, s[memcg] / MIB, label=v, color=colors[v])
        if "cached_bytes" in s.columns:
            a2.plot(s.index, s["cached_bytes"] / MIB, label=v, color=colors[v])
    a1.set_title(f"memcg usage ({memcg.split(':')[0] if memcg else 'memcg'})")
    a1.set_ylabel("MiB")
    a2.set_title("page cache (Cached)")
    a2.set_ylabel("MiB")
    a2.set_xlabel("virtual time (s)")
    for a in (a1, a2):
        a.grid(alpha=0.3)
        _legend_outside(a)
    out = [Plot("memory-over-time", "memcg usage and page cache over virtual time", _png(fig))]

    first = next(iter(results.values()))
    steps = _steps(first)
    fig, ax = plt.subplots(figsize=(8 + _legend_width(len(results) + 1), 4))
    _grouped_bars(ax, steps, {v: [_metric(r, st, "read_bytes") for st in steps] for v, r in results.items()}, scale=MIB)
    ax.set_ylabel("MiB read from disk")
    ax.set_title("bytes read from disk per step")
    out.append(Plot("read-bytes-per-step", "bytes read from disk per step", _png(fig)))
    return out


def _published_of(published: Mapping, variants: Sequence[str], steps: Sequence[str], metric: str) -> dict:
    return {v: [figure(published, v, st, metric) for st in steps] for v in variants}


def _seed003(results: Mapping, published: Mapping) -> list[Plot]:
    variants = list(results)
    first = next(iter(results.values()))
    steps = _steps(first)
    fig, axes = plt.subplots(1, 2, figsize=(10 + _legend_width(len(steps) + 1), 4.5))
    for ax, m, title in zip(axes, ("meminfo.Percpu_kB", "meminfo.Slab_kB"), ("Percpu", "Slab")):
        # x groups: variants; bars: steps (before / after)
        series = {st: [_metric(results[v], st, m) for v in variants] for st in steps}
        pub = {st: [figure(published, v, st, m) for v in variants] for st in steps}
        _grouped_bars(ax, variants, series, pub, legend=ax is axes[-1])
        ax.set_title(f"{title} (kB)")
        ax.set_ylabel("kB")
    return [Plot("percpu-slab", "Percpu and Slab before and after, per variant (published figures as markers)", _png(fig))]


def _seed001(results: Mapping, published: Mapping) -> list[Plot]:
    variants = list(results)
    first = next(iter(results.values()))
    step = _steps(first)[-1]
    fig, ax = plt.subplots(figsize=(8 + _legend_width(2), 4.5))
    _grouped_bars(ax, variants, {"simulated": [_metric(results[v], step, "free.used_kB") for v in variants]},
                  {"simulated": [figure(published, v, step, "free.used_kB") for v in variants]}, scale=1024)
    ax.set_ylabel("free: used (MiB)")
    ax.set_title(f"free.used_kB per stage ({step})")
    return [Plot("free-used", "memory used (free) per stage of the series (published figures as markers)", _png(fig))]


def _generic(results: Mapping, published: Mapping, metrics: Sequence[str]) -> list[Plot]:
    first = next(iter(results.values()))
    steps = _steps(first)
    metrics = list(metrics)[:12]
    if not metrics or not steps:
        return []
    ncol = min(2, len(metrics))
    nrow = (len(metrics) + ncol - 1) // ncol
    entries = min(LEGEND_ROWS, len(results) + 1)
    fig, axes = plt.subplots(nrow, ncol, figsize=(6 * ncol + _legend_width(len(results) + 1), max(3.2 * nrow, 0.17 * entries + 0.6)),
                             squeeze=False)
    for ax, m in zip(axes.flat, metrics):
        _grouped_bars(ax, steps, {v: [_metric(r, st, m) for st in steps] for v, r in results.items()},
                      _published_of(published, list(results), steps, m), legend=False)
        ax.set_title(m)
        ax.tick_params(axis="x", labelsize=7)
    for ax in list(axes.flat)[len(metrics):]:
        ax.set_visible(False)
    # One legend for every panel, right of them all (the tight box of the saved PNG takes it in).
    handles = {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.tight_layout()
    fig.legend(list(handles.values()), list(handles), loc="upper left", bbox_to_anchor=(1.0, 0.98),
               borderaxespad=0.0, fontsize=8, ncol=math.ceil(len(handles) / LEGEND_ROWS))
    return [Plot("metrics", "report metrics per step and variant (published figures as markers)", _png(fig))]


LATENCY_QUANTILES = [("latency.q1_ms", 0.25), ("latency.q2_ms", 0.50), ("latency.q3_ms", 0.75),
                     ("latency.max90_ms", 0.90), ("latency.max95_ms", 0.95), ("latency.max99_ms", 0.99)]


def _latency(results: Mapping, published: Mapping) -> list[Plot]:
    """The distribution of latency samples (mmap_probe rounds) per variant and step, as
    cumulative curves on a log scale, with the published quantiles as markers."""
    curves = []
    for v, r in results.items():
        for st in r.raw["steps"]:
            xs = st.get("latency_samples_ms")
            if xs:
                curves.append((v, st["name"], sorted(xs)))
    if not curves:
        return []
    colors = variant_colors([f"{v} {step}" for v, step, _ in curves])
    fig, ax = plt.subplots(figsize=(8 + _legend_width(2 * len(curves)) + 1.0, 4.5))
    for v, step, xs in curves:
        n = len(xs)
        c = colors[f"{v} {step}"]
        ax.plot(xs, [(k + 1) / n for k in range(n)], drawstyle="steps-post", color=c,
                label=f"{v} {step} (simulated, {n} rounds)")
        pts = [(figure(published, v, step, m), q) for m, q in LATENCY_QUANTILES]
        pts = [(x, q) for x, q in pts if x is not None]
        if pts:
            ax.plot([x for x, _ in pts], [q for _, q in pts], marker="D", linestyle="none", color=c,
                    markeredgecolor="black", label=f"{v} {step} (published quantiles)")
    ax.set_xscale("log")
    ax.set_xlabel("latency of a round, ms")
    ax.set_ylabel("fraction of rounds")
    _legend_outside(ax, fontsize=7)
    return [Plot("latency", "latency distribution per variant (published quantiles as markers)", _png(fig))]


def _seed_table(results: Mapping, published: Mapping) -> list[Plot]:
    """The seed's own table (`[published.table]`) as curves: one per column, simulated and
    published, against the row labels (seed 004: grep time against X)."""
    t = published.get("table") if published else None
    if not t:
        return []
    step, metric = t["at"].rsplit("/", 1)
    labels = [row[0] for row in t["cells"]]
    fig, ax = plt.subplots(figsize=(7 + _legend_width(2 * len(t["columns"])), 4))
    for i, col in enumerate(t["columns"]):
        sim = [_metric(results[row[i + 1]], step, metric) if row[i + 1] in results else None for row in t["cells"]]
        pub = [figure(published, row[i + 1], step, metric) for row in t["cells"]]
        ax.plot(labels, [float("nan") if x is None else x for x in sim], marker="o", color=f"C{i}", label=f"{col} (simulated)")
        if any(p is not None for p in pub):
            ax.plot(labels, [float("nan") if x is None else x for x in pub], marker="D", linestyle="--", color=f"C{i}",
                    markeredgecolor="black", label=f"{col} ({'real kernel' if t.get('seed_at') else 'published'})")
    ax.set_xlabel(str(t.get("rows", "")))
    ax.set_ylabel(metric)
    ax.set_title(str(t.get("title", t["at"])), fontsize=9)
    _legend_outside(ax)
    return [Plot("seed-table", str(t.get("title", "the seed's table")), _png(fig))]


def plots_for(name: str, results: Mapping[str, object], published: Optional[Mapping] = None,
              metrics: Sequence[str] = ()) -> list[Plot]:
    """The plots of one scenario's results ({variant: Result}, at least one). Any scenario
    whose runs took latency samples also gets their distribution; any with a seed table
    (`[published.table]`) gets it as curves."""
    if not results:
        return []
    published = published or {}
    extra = _latency(results, published) + _seed_table(results, published)
    if name.startswith("seed000"):
        return _seed000(results, published) + extra
    if name.startswith("seed001"):
        return _seed001(results, published) + extra
    if name.startswith("seed003"):
        return _seed003(results, published) + extra
    first = next(iter(results.values()))
    return _generic(results, published, metrics or metrics_for(first.info)) + extra


def _safe(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", s).strip("_") or "scenario"


def write_plots(out_dir: str, name: str, plots: Sequence[Plot], suffix: str = "") -> list[str]:
    """Write each plot as OUT_DIR/NAME[-SUFFIX]-SLUG.png (OUT_DIR is created); returns the paths."""
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for p in plots:
        path = os.path.join(out_dir, f"{_safe(name)}{'-' + _safe(suffix) if suffix else ''}-{p.slug}.png")
        write_bytes(path, p.png)  # whole or not at all, even under SIGTERM
        paths.append(path)
    return paths
