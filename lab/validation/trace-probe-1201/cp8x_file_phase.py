#!/usr/bin/env python3
"""The memcg A file level over host-stall-cp8x-p64m's copy, read and write phases: the kernel's (jbd23's 10 ms samples,
lab/validation/trace-wbt-reader-1130b/host-stall-cp8x-p64m-wb{1,3,4}.csv.xz; run in that directory) and the twin's
(/tmp/p23/twin-cp8x-series-R.csv, 100 ms, written by twin_cp8x_series.py without its 10 ms setting)."""
import lzma, csv, glob
q = lambda v, x: v[int(x * (len(v) - 1))]
def show(tag, vals):
    v = sorted(vals)
    print(f"{tag:28s} n {len(v):4d} file MiB p10 {q(v,.1):6.1f} p25 {q(v,.25):6.1f} p50 {q(v,.5):6.1f} p75 {q(v,.75):6.1f} p90 {q(v,.9):6.1f} mean {sum(v)/len(v):6.1f}")
for w in ('wb1', 'wb3', 'wb4'):
    rows = [r for r in csv.DictReader(lzma.open(f'host-stall-cp8x-p64m-{w}.csv.xz', 'rt')) if r['source'].endswith('/A')]
    pts = [(float(r['t']), int(r['cache_kB']) / 1024, int(r['rss_kB']) / 1024, int(r['dirty_kB']) + int(r['writeback_kB'])) for r in rows]
    i0 = next(i for i, p in enumerate(pts) if p[3] > 0)
    # the copy's end: the last sample with anon (the probe's rounds go on until the copy ends) before the flat tail
    i1 = max(i for i, p in enumerate(pts) if p[2] > 0)
    show(f"kernel {w} write phase", [p[1] for p in pts[i0:i1 + 1]])
    show(f"kernel {w} read phase", [p[1] for p in pts[:i0] if p[1] > 1])
for f in sorted(glob.glob('/tmp/p23/twin-cp8x-series-*.csv')):
    rows = list(csv.DictReader(open(f)))
    wr = [float(r['sda:write_bytes']) for r in rows]
    i0 = next(i for i, x in enumerate(wr) if x > 0)
    i1 = next((i for i in range(i0, len(wr)) if wr[i] >= 1 << 30), len(wr) - 1)
    show("twin " + f.split('-')[-1][:-4] + " write phase", [float(r['/A:file_bytes']) / 2**20 for r in rows[i0:i1 + 1]])
    show("twin " + f.split('-')[-1][:-4] + " read phase", [float(r['/A:file_bytes']) / 2**20 for r in rows[:i0] if float(r['/A:file_bytes']) > 1 << 20])
