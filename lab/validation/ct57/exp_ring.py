#!/usr/bin/env python3
"""ct57 experiment: the twin's per-pass median read_bytes against a recording set's at validate's inputs
(bias55/twin_raw.py's child: recording i's sets, boot seed i), for each variant of extra sets. The ring is an
input (`[devices.X] ring_descriptors`, 0/absent: none), not given by any scenario: this measures what giving it
would do.

    PYTHONPATH=$PWD/python python3 lab/validation/ct57/exp_ring.py NAME TAG 'LABEL=SET;SET' ...

e.g. 'as is=' 'msegs=devices.sda.max_segments=128'
     'ring=devices.sda.max_segments=128;devices.sda.ring_descriptors=256'
"""
import concurrent.futures
import glob
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..', '..'))
TWIN = os.path.join(HERE, '..', 'bias55', 'twin_raw.py')


def one(name, tag, i, extra):
    env = dict(os.environ, B55_SETS=extra)
    env.pop('MEMTWIN_B55_TRACE', None)
    out = subprocess.run([sys.executable, TWIN, '--child', name, tag, str(i)], env=env, capture_output=True, text=True,
                         check=True).stdout
    d = json.loads(out.strip().splitlines()[-1])
    return ([s['metrics']['read_bytes'] / 1e6 for s in d['sim']], [s['metrics']['read_bytes'] / 1e6 for s in d['real']])


def main():
    name, tag = sys.argv[1], sys.argv[2]
    n = len(glob.glob(f'{ROOT}/scenarios/validation-pending/real/{name}-{tag}*.json'))
    for arg in sys.argv[3:]:
        label, extra = arg.split('=', 1)
        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            res = list(ex.map(lambda i: one(name, tag, i, extra), range(n)))
        sim = [r[0] for r in res]
        real = [r[1] for r in res]
        ps = []
        for p in range(len(sim[0])):
            ms, mr = statistics.median(r[p] for r in sim), statistics.median(r[p] for r in real)
            ps.append(f"pass {p + 1} {ms:.0f}/{mr:.0f} MB {100 * (ms / mr - 1):+.1f}%")
        print(f"{name} {tag} {label} [{extra}]: " + "; ".join(ps), flush=True)


if __name__ == '__main__':
    main()
