#!/usr/bin/env python3
"""hog23b: the host recordings by how many tasks they ran, whether a task had steps in sequence, and whether
their steps hold `folios` (the runner's folio scan at every step's end before folio_scan_blocked()).
usage (from the worktree's root): python3 lab/validation/trace-hog-swap-1130/hog23b/affected_sets.py"""
import json, glob, collections, os
rows = collections.defaultdict(collections.Counter)
for f in sorted(glob.glob('python/memtwin/scenarios/**/real/*.json', recursive=True)):
    try:
        d = json.load(open(f))
    except Exception:
        continue
    vs = d.get('variants', {})
    if not isinstance(vs, dict):
        continue
    for v, res in vs.items():
        if res.get('real', {}).get('on') != 'host':
            continue
        steps = res.get('steps', [])
        tasks = collections.Counter(s['task'] for s in steps)
        key = (('multi-task' if len(tasks) > 1 else 'one task') + (', steps in sequence' if any(n > 1 for n in tasks.values()) else '')
               + (', scanned' if any('folios' in s for s in steps) else ', no scan'))
        rows[key][os.path.basename(f).rsplit('-', 1)[0]] += 1
for k, c in sorted(rows.items()):
    print(f'{k}: {sum(c.values())} recorded variants of {len(c)} scenarios')
    print('   ', ', '.join(f'{s} ({n})' for s, n in sorted(c.items())))
