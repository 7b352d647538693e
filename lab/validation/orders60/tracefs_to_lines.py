#!/usr/bin/env python3
"""orders60: trace_light.py's raw tracefs text -> the twin's line format (P/A/F/RB/RE/D/S, ns) for one pid (the
reader: the pid that reclaimed most in memcg reclaims, unless --pid), so analyse_light.py twin reads both.
    python3 tracefs_to_lines.py RAW [--pid N] > LINES"""
import collections, re, sys
raw = sys.argv[1]
pid = int(sys.argv[sys.argv.index('--pid') + 1]) if '--pid' in sys.argv else None
pat = re.compile(r'^\s*(.+)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): (\w+): (.*)$')
if pid is None:
    c = collections.Counter()
    for line in open(raw):
        m = pat.match(line)
        if m and m.group(4) == 'mm_vmscan_memcg_reclaim_begin':
            c[int(m.group(2))] += 1
    pid = c.most_common(1)[0][0]
    print(f"# reader pid {pid} ({c.most_common(3)})", file=sys.stderr)
rb = None
def kv(s):
    return dict(x.split('=', 1) for x in s.split() if '=' in x)
for line in open(raw):
    m = pat.match(line)
    if not m or int(m.group(2)) != pid:
        continue
    t = int(round(float(m.group(3)) * 1e9))
    ev, rest = m.group(4), m.group(5)
    d = kv(rest)
    if ev == 'mm_page_alloc':
        print(f"P {t} {int(d['pfn'], 16)} {d['order']} 0")
    elif ev == 'mm_page_free':
        print(f"F {t} {int(d['pfn'], 16)} {d['order']}")
    elif ev == 'mm_filemap_add_to_page_cache':
        print(f"A {t} {int(d['ofs']) // 4096} {d['order']} {int(d['pfn'], 16)}")
    elif ev == 'mm_filemap_delete_from_page_cache':
        print(f"D {t} {int(d['ofs']) // 4096} {d['order']} {int(d['pfn'], 16)}")
    elif ev == 'mm_vmscan_memcg_reclaim_begin':
        rb = t
        print(f"RB {t} 0 0")
    elif ev == 'mm_vmscan_memcg_reclaim_end' and rb is not None:
        print(f"RE {t} {t - rb} {d['nr_reclaimed']} 0")
    elif ev == 'mm_vmscan_lru_shrink_inactive':
        print(f"S {t} {d['nr_scanned']} {d['nr_reclaimed']} {d['priority']} 0")
