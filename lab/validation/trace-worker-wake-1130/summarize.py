"""Summarize lab/validation/trace_worker_wake.bt outputs (eevdf23): for each run, the scenario's
reader (the python3 task with the most kworker wake-ups it made), where the unbound kworkers it
woke went (its own CPU / the kworker's previous CPU), wake_affine_weight()'s prediction and
wake_wide(), and the same for every other waker. Usage: python3 summarize.py DIR..."""
import re
import sys
from collections import Counter, defaultdict

KW = re.compile(r"^@kw\[(\d+), (\d), (\d), (\d), (\d), (\d+)(?:, (\d))?\]: (\d+)$")


def summarize(d):
    rows = []
    for line in open(f"{d}/bt.out"):
        m = KW.match(line.strip())
        if m:
            waker, on_wcpu, on_prev, pred, idle, run_on, wide, n = m.groups()
            rows.append((int(waker), int(on_wcpu), int(on_prev), int(pred), int(idle), int(run_on), None if wide is None else int(wide), int(n)))
    by_waker = defaultdict(Counter)
    for waker, on_wcpu, on_prev, pred, idle, run_on, wide, n in rows:
        c = by_waker[waker]
        c["n"] += n
        c["on_waker_cpu"] += n * on_wcpu
        c["on_prev"] += n * on_prev
        c["prev_is_waker_cpu"] += n * (pred == 0)
        c["pred_this"] += n * (pred == 1)
        c["pred_this_went_prev"] += n * (pred == 1 and on_prev == 1 and on_wcpu == 0)
        c["prev_idle"] += n * (idle & 1)
        if wide is not None:
            c["wide"] += n * wide
            c["wide_known"] += n
    load = " / ".join(open(f"{d}/{f}").read().split()[0] for f in ("load-start.txt", "load.txt"))
    py = [w for w in by_waker if w != 0]
    reader = max(py, key=lambda w: by_waker[w]["n"]) if py else None
    total = Counter()
    for c in by_waker.values():
        total.update(c)
    out = [f"{d} (loadavg {load})"]
    for name, c in (("reader", by_waker.get(reader, Counter())), ("all wakers", total)):
        n = c["n"] or 1
        wide = f", wake_wide() {c['wide']}/{c['wide_known']}" if c["wide_known"] else ""
        out.append(f"  {name}: {c['n']} kworker wake-ups, onto the waker's CPU {c['on_waker_cpu']} ({100 * c['on_waker_cpu'] / n:.0f}%), "
                   f"onto prev_cpu {c['on_prev']} ({100 * c['on_prev'] / n:.1f}%), prev_cpu was the waker's {c['prev_is_waker_cpu']}, "
                   f"wake_affine_weight() would take the waker's CPU {c['pred_this']} (went to prev_cpu {c['pred_this_went_prev']}), prev_cpu idle {c['prev_idle']}{wide}")
    return "\n".join(out)


if __name__ == "__main__":
    for d in sys.argv[1:]:
        print(summarize(d))
