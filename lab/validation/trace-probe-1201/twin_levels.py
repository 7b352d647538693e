#!/usr/bin/env python3
"""The twin's six runs of a pending host-stall scenario (boot seed R-1, recording R's host costs): step-end file/dirty/
writeback/anon/usage. PYTHONPATH=$PWD/python python3 THIS NAME"""
import json, sys
sys.path.insert(0, 'python')
from memtwin import api, validate
name = sys.argv[1]
path = f'scenarios/validation-pending/{name}.toml'
MiB = 1 << 20
for r in range(1, 7):
    real = json.load(open(f'scenarios/validation-pending/real/{name}-v669h{r}.json'))['variants']['default']
    sets = [f'kernel.boot_seed={r-1}'] + validate.recorded_host_cost(real, path)
    res = api.run(path, sets=sets).raw
    for s in res['steps']:
        m = s['metrics']
        print(r, s['name'], 'el %.2f' % m['elapsed_s'], 'file %.1f dirty %.1f wb %.1f anon %.1f usage %.1f' % (
            m['memcg.file_bytes'] / MiB, m['memcg.dirty_bytes'] / MiB, m['memcg.writeback_bytes'] / MiB, m['memcg.anon_bytes'] / MiB,
            m['memcg.usage_bytes'] / MiB), flush=True)
