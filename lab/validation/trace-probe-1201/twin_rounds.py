#!/usr/bin/env python3
"""The twin's probe rounds (latency_samples_ms) of a pending host-stall scenario at recording R's host costs.
PYTHONPATH=$PWD/python python3 THIS NAME R"""
import json, sys, statistics as st
sys.path.insert(0, 'python')
from memtwin import api, validate
name = sys.argv[1]; r = int(sys.argv[2]) if len(sys.argv) > 2 else 1
path = f'scenarios/validation-pending/{name}.toml'
real = json.load(open(f'scenarios/validation-pending/real/{name}-v669h{r}.json'))['variants']['default']
sets = [f'kernel.boot_seed={r-1}'] + validate.recorded_host_cost(real, path)
res = api.run(path, sets=sets).raw
steps = res['steps']
for s in steps:
    if s['name'] == 'probe':
        L = s.get('latency_samples_ms') or s.get('metrics', {}).get('latency_samples_ms')
        print(sets)
        print('twin rounds', len(L), 'q2 %.2f' % st.median(L))
        print(' '.join('%.1f' % x for x in L))
    else:
        print(s['name'], {k: v for k, v in s['metrics'].items() if 'file' in k or 'dirty' in k or 'writeback' in k})
