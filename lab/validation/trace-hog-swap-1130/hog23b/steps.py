#!/usr/bin/env python3
"""hog23b: the steps of host-stall-hog-swap recordings (elapsed, schedstat, pswpout/pswpin, whether folios were
scanned, folio_scan_s, folios_skipped) and the run-queue sampler's record. usage: steps.py TRACED.json ..."""
import json, sys
for f in sys.argv[1:]:
    d=json.load(open(f))
    for v in d['variants'].values():
        print(f)
        for s in v['steps']:
            m=s['metrics']
            print('  %-6s %-6s elapsed %7.3f run_s %.3f run_delay_s %.3f pswpout %6s pswpin %6s folios %-5s scan_s %s skipped %s' % (s['task'], s['name'], m['elapsed_s'], s['sched']['run_s'], s['sched']['run_delay_s'], m.get('vmstat.pswpout'), m.get('vmstat.pswpin'), 'folios' in s, s.get('folio_scan_s'), (s.get('folios_skipped') or '-')[:34]))
        print('   sampler', v['real']['machine'].get('runq_sampler'))
