#!/usr/bin/env python3
"""orders60 experiment: the twin's per-pass median read_bytes against a recording set's (validate's inputs:
twin_charges.py's child, recording i's sets and boot seed i), with env overrides of the scratch build's
costs (O60_EVICT, O60_SCAN: ns; orders60-scratch.patch).

    python3 lab/validation/orders60/exp.py NAME TAG 'LABEL=ENV=V,ENV=V' ...   (e.g. 'as is=' 'evict2x=O60_EVICT=1060')"""
import concurrent.futures, glob, json, os, statistics, subprocess, sys
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..', '..'))

def one(name, tag, i, env):
    e = dict(os.environ, **env)
    e.pop('O60', None)
    out = subprocess.run([sys.executable, os.path.join(HERE, 'twin_charges.py'), '--child', name, tag, str(i)], env=e,
                         capture_output=True, text=True, check=True, cwd=ROOT).stdout
    d = json.loads(out.strip().splitlines()[-1])
    return [s['read_bytes'] / 1e6 for s in d['sim']], [s['read_bytes'] / 1e6 for s in d['real']]

def main():
    name, tag = sys.argv[1], sys.argv[2]
    n = len(glob.glob(f'{ROOT}/scenarios/validation-pending/real/{name}-{tag}*.json'))
    for arg in sys.argv[3:]:
        label, spec = arg.split('=', 1)
        env = dict(kv.split('=') for kv in spec.split(',') if kv)
        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            res = list(ex.map(lambda i: one(name, tag, i, env), range(n)))
        ps = []
        for p in range(len(res[0][0])):
            ms, mr = statistics.median(r[0][p] for r in res), statistics.median(r[1][p] for r in res)
            ps.append(f"pass {p + 1} {ms:.0f}/{mr:.0f} MB {100 * (ms / mr - 1):+.1f}%")
        print(f"{name} {tag} {label} [{spec}]: " + "; ".join(ps), flush=True)

if __name__ == '__main__':
    main()
