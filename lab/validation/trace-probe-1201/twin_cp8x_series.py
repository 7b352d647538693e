#!/usr/bin/env python3
"""The twin's host-stall-cp8x-p64m run at recording R's host costs and boot seed R-1 with the series every 10 ms
(report.sample_interval; the outputs do not move with it): the steps' step-end file and anon, the series into
/tmp/p23/twin10-cp8x-R.csv. Run from the repository root: PYTHONPATH=$PWD/python python3 THIS R"""
import json, sys
sys.path.insert(0, 'python')
from memtwin import api, validate
name = 'host-stall-cp8x-p64m'; path = f'scenarios/validation-pending/{name}.toml'
r = int(sys.argv[1])
real = json.load(open(f'scenarios/validation-pending/real/{name}-v669h{r}.json'))['variants']['default']
sets = [f'kernel.boot_seed={r-1}', 'report.sample_interval="10ms"'] + validate.recorded_host_cost(real, path)
res = api.run(path, sets=sets)
for s in res.raw['steps']:
    m = s['metrics']
    print(r, s['name'], 'elapsed', m['elapsed_s'], 'file', m['memcg.file_bytes'] / 2**20, 'anon', m['memcg.anon_bytes'] / 2**20)
res.series.to_csv(f'/tmp/p23/twin10-cp8x-{r}.csv')
