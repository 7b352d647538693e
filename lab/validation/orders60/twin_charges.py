#!/usr/bin/env python3
"""orders60: the twin's per-charge lines (orders60-scratch.patch, O60=1) for recording I of a set, as validate runs
it (bias55/twin_raw.py's child: validate.one_window_kind and set_run_sets, boot seed I).

    python3 lab/validation/orders60/twin_charges.py NAME TAG I OUT.txt [SET;SET]
    (the scratch build's package: a copy of python/ with the scratch .so, in $O60PY, default /tmp/o60py)

OUT.txt: the engine's lines (P/A/F/RB/RE/S/D, engine clock ns) and a last line 'J <json>' of the steps."""
import glob, json, os, subprocess, sys
ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..'))
PY = os.environ.get('O60PY', '/tmp/o60py')


def child(name, tag, i, extra):
    sys.path.insert(0, PY)
    from memtwin import validate as V
    from memtwin.api import load, run
    assert V.__file__.startswith(PY), V.__file__
    path = os.path.join(ROOT, f'scenarios/validation-pending/{name}.toml')
    scn = load(path)
    d = os.path.dirname(path)
    n = len(glob.glob(f'{d}/real/{name}-{tag}*.json'))
    reals = [json.load(open(f'{d}/real/{name}-{tag}{k}.json'))['variants']['default'] for k in range(1, n + 1)]
    given = V.one_window_kind(reals)
    sets = V.set_run_sets(i, given[i], scn.doc.plan(None, []), path) + [x for x in extra.split(';') if x]
    s = run(scn, variant=None, sets=sets).to_json()
    print(json.dumps({'sim': [{'name': x['name'], 'read_bytes': x['metrics']['read_bytes'], 'elapsed_s': x['metrics']['elapsed_s']}
                              for x in s['steps']],
                      'real': [{'name': x['name'], 'read_bytes': x['metrics']['read_bytes'], 'at_s': x.get('at_s')}
                               for x in reals[i]['steps']]}))


if __name__ == '__main__':
    if sys.argv[1] == '--child':
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] if len(sys.argv) > 5 else '')
        sys.exit(0)
    name, tag, i, out = sys.argv[1:5]
    extra = sys.argv[5] if len(sys.argv) > 5 else ''
    p = subprocess.run([sys.executable, __file__, '--child', name, tag, i, extra], env=dict(os.environ, O60='1'),
                       capture_output=True, text=True, cwd=ROOT)
    if p.returncode:
        sys.exit(p.stderr[-3000:])
    with open(out, 'w') as f:
        for line in p.stderr.splitlines():
            if line[:2] in ('P ', 'A ', 'F ', 'RB', 'RE', 'S ', 'D '):
                f.write(line + '\n')
        f.write('J ' + p.stdout.strip().splitlines()[-1] + '\n')
