#!/usr/bin/env python3
"""bias55 experiment (not a fix): the twin's per-pass median read_bytes against the set's at validate's inputs
(twin_raw.py's child: recording i's sets, boot seed i), with the scenario as is and with B55_SETS given
(e.g. devices.sda.complete_together=false).

    PYTHONPATH=$PWD/python python3 lab/validation/bias55/exp_ct.py NAME TAG
"""
import glob, json, os, statistics, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(here, '..', '..', '..'))
name, tag = sys.argv[1], sys.argv[2]
n = len(glob.glob(f'{ROOT}/scenarios/validation-pending/real/{name}-{tag}*.json'))
for label, extra in (('as is', ''), ('B55_SETS=' + os.environ.get('B55_SETS', ''), os.environ.get('B55_SETS', ''))):
    if label.endswith('=') and not extra:
        continue
    sim, real = [], []
    for i in range(n):
        env = dict(os.environ, B55_SETS=extra)
        env.pop('MEMTWIN_B55_TRACE', None)
        out = subprocess.run([sys.executable, f'{here}/twin_raw.py', '--child', name, tag, str(i)], env=env,
                             capture_output=True, text=True, check=True).stdout
        d = json.loads(out.strip().splitlines()[-1])
        sim.append([s['metrics']['read_bytes'] / 1e6 for s in d['sim']])
        real.append([s['metrics']['read_bytes'] / 1e6 for s in d['real']])
    ps = []
    for p in range(len(sim[0])):
        ms, mr = statistics.median(r[p] for r in sim), statistics.median(r[p] for r in real)
        ps.append(f"pass {p + 1} {ms:.0f}/{mr:.0f} MB {100 * (ms / mr - 1):+.1f}%")
    print(f"{name} {tag} {label}: " + "; ".join(ps))
