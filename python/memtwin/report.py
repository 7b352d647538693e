"""Text reports: a run's step table and the compare-kernels-style side-by-side table."""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

DEFAULT_METRICS = ["elapsed_s", "user_s", "sys_s", "read_bytes", "memcg.usage_bytes"]

# Metrics where less is better (mmtests shows a gain as a positive percentage).
LOWER_IS_BETTER = ("elapsed_s", "user_s", "sys_s", "iowait_s", "read_bytes", "write_bytes", "pagecache_miss_pages",
                   "memcg.pgscan", "memcg.pgsteal", "memcg.failcnt", "memcg.workingset_refault_file", "vmstat.pgpgin",
                   "vmstat.pgpgout", "oom_killed", "vmstat.allocstall_normal")
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
    if abs(v) < 1e-3:
        return f"{v:.3e}"
    return f"{v:.4f}"


def fmt_pct(p: Optional[float]) -> str:
    return "(    n/a )" if p is None else f"({p:8.2f}%)"


def metrics_for(info: Mapping, explicit: Sequence[str] = ()) -> list[str]:
    if explicit:
        return list(explicit)
    return list(info.get("report_metrics") or DEFAULT_METRICS)


def run_table(result, metrics: Sequence[str]) -> str:
    """One variant: a row per step, a column per metric."""
    steps = result.raw["steps"]
    name_w = max([len("step")] + [len(s["name"]) for s in steps])
    cols = [max(len(m), 14) for m in metrics]
    lines = ["  ".join(["step".ljust(name_w)] + [m.rjust(w) for m, w in zip(metrics, cols)])]
    for s in steps:
        vals = [fmt_value(s["metrics"].get(m)).rjust(w) for m, w in zip(metrics, cols)]
        lines.append("  ".join([s["name"].ljust(name_w)] + vals))
    return "\n".join(lines)


def compare_table(results: Mapping[str, object], metrics: Sequence[str], published: Optional[Mapping] = None) -> str:
    """compare-kernels layout: a row per (step, metric), a column per variant with its change
    against the first variant, and the published figure beside it when there is one."""
    names = list(results)
    base = results[names[0]]
    figures = (published or {}).get("figures", {})
    has_pub = {v: bool(figures.get(v)) for v in names}
    steps = [s["name"] for s in base.raw["steps"]]
    label_w = max([10] + [len(s) + len(m) + 2 for s in steps for m in metrics])
    cell_w = 26
    pub_w = 12
    head1 = " " * label_w
    head2 = " " * label_w
    for v in names:
        head1 += v.rjust(cell_w) + ("" if not has_pub[v] else " " * pub_w)
        head2 += "simulated".rjust(cell_w) + ("" if not has_pub[v] else "published".rjust(pub_w))
    lines = [head1, head2]
    for step in steps:
        for m in metrics:
            row = f"{step}  {m}".ljust(label_w)
            try:
                bval = base.metric(step, m)
            except KeyError:
                bval = None
            for v in names:
                try:
                    val = results[v].metric(step, m)
                except KeyError:
                    val = None
                p = pct_change(m, bval, val) if (bval is not None and val is not None) else None
                row += f"{fmt_value(val)} {fmt_pct(p)}".rjust(cell_w)
                if has_pub[v]:
                    pv = figures.get(v, {}).get(step, {}).get(m)
                    row += (fmt_value(float(pv)) if isinstance(pv, (int, float)) else "").rjust(pub_w)
            lines.append(row)
    lines.append("")
    lines.append(f"Percentages compare each variant with {names[0]}; for times, I/O, scans and misses a positive")
    lines.append("figure is a gain (100 - new*100/base), as mmtests' compare-kernels shows it.")
    return "\n".join(lines)
