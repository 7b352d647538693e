"""bias21: run the engine as validate does (recording i's inputs, boot seed i: validate.set_run_sets and
one_window_kind) and write the engine's steps beside the recording's, for counter comparisons.

    PYTHONPATH=$PWD/python python3 lab/validation/bias21/runsim.py NAME TAG OUT.json [i,j,...]
"""
import json, sys, os, glob
ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'python'))
from memtwin import validate as V
from memtwin.api import load, run
name, tag, out = sys.argv[1], sys.argv[2], sys.argv[3]
idx = [int(x) for x in sys.argv[4].split(',')] if len(sys.argv) > 4 else None
path = os.path.join(ROOT, f'scenarios/validation-pending/{name}.toml')
scn = load(path)
d = os.path.dirname(path)
n = len(glob.glob(f'{d}/real/{name}-{tag}*.json'))
recs = [json.load(open(f'{d}/real/{name}-{tag}{i}.json')) for i in range(1, n+1)]
reals = [r['variants']['default'] for r in recs]
plan = scn.doc.plan(None, [])
given = V.one_window_kind(reals)
res = []
for i in (idx if idx is not None else range(n)):
    sets = V.set_run_sets(i, given[i], plan, path)
    s = run(scn, variant=None, sets=sets).to_json()
    res.append({'i': i, 'sim': s['steps'], 'real': reals[i]['steps']})
json.dump(res, open(out, 'w'))
