"""bias55: the twin's side of ra_cycles.py. Runs the engine (built with bias55-experiments.patch, which is
bias21-experiments.patch plus the trace, MEMTWIN_B55_TRACE=1) as validate runs recording i of a set (bias21/runsim.py's inputs:
validate.one_window_kind and set_run_sets, boot seed i), keeps the engine's tracefs-like events of pass 1 and
writes them as a tracefs raw text that lab/validation/ra_cycles.py reads unchanged.

    PYTHONPATH=$PWD/python python3 lab/validation/bias55/twin_raw.py NAME TAG I OUT.txt

Events are written at the engine's clock (ns), sorted by time (a bio's block_bio_queue is emitted at its
submission with the time blk-throttle releases it; its requests' issue and completion likewise).
"""
import glob, json, os, subprocess, sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..'))


def child(name, tag, i):
    sys.path.insert(0, os.path.join(ROOT, 'python'))
    from memtwin import validate as V
    from memtwin.api import load, run
    path = os.path.join(ROOT, f'scenarios/validation-pending/{name}.toml')
    scn = load(path)
    d = os.path.dirname(path)
    n = len(glob.glob(f'{d}/real/{name}-{tag}*.json'))
    reals = [json.load(open(f'{d}/real/{name}-{tag}{k}.json'))['variants']['default'] for k in range(1, n + 1)]
    given = V.one_window_kind(reals)
    sets = V.set_run_sets(i, given[i], scn.doc.plan(None, []), path)
    sets += [x for x in os.environ.get('B55_SETS', '').split(';') if x]  # experiments only
    s = run(scn, variant=None, sets=sets).to_json()
    print(json.dumps({'sim': s['steps'], 'real': reals[i]['steps'], 'sets': [str(x) for x in sets]}))


def main():
    if sys.argv[1] == '--child':
        return child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    name, tag, i, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    env = dict(os.environ, MEMTWIN_B55_TRACE='1')
    env.pop('MEMTWIN_B21_TRACE', None)
    p = subprocess.run([sys.executable, __file__, '--child', name, tag, str(i)], env=env, capture_output=True, text=True)
    if p.returncode:
        sys.exit(p.stderr[-3000:])
    ev = []
    for line in p.stderr.splitlines():
        if line.startswith('BIAS21'):
            break  # pass 1's end
        if line.startswith('K '):
            _k, t, rest = line.split(' ', 2)
            ev.append((int(t), len(ev), rest))
    # complete_together (blkdev/mod.rs submit_class_segs): a read's folios unlock at its completion batch's
    # end, the latest own completion of the batch's reads; block_rq_complete is moved there, so the raw text's
    # completions are the twin's unlocks (--own keeps the requests' own transfers).
    if '--own' not in sys.argv:
        import re
        # Each read's requests are emitted (block_rq_issue, block_rq_complete at their own times) just before
        # its twin_batch line (submit_class_segs): a request belongs to the batch of the next twin_batch line
        # after it in emission order (ct56; matching by sector instead put a request re-read later in the
        # pass, after a restart, in that later read's batch).
        end, pending, of = {}, [], {}
        for k, (t, n, rest) in enumerate(ev):
            if rest.startswith('twin_batch:'):
                g = re.search(r"batch=(\d+) done=(\d+)", rest)
                b, d = int(g.group(1)), int(g.group(2))
                end[b] = max(end.get(b, 0), d)
                for j in pending:
                    of[j] = b
                pending = []
            elif rest.startswith('block_rq_complete:') and ' R' in rest.split('()')[0]:
                pending.append(k)
        moved = []
        for k, (t, n, rest) in enumerate(ev):
            if rest.startswith('twin_batch:'):
                continue
            if k in of:
                t = max(t, end[of[k]])
            moved.append((t, n, rest))
        ev = moved
    ev.sort()
    with open(out, 'w') as f:
        for t, _n, rest in ev:
            f.write(f"            twin-1000    [000] .....  {t / 1e9:.9f}: {rest}\n")
    json.dump(json.loads(p.stdout.strip().splitlines()[-1]), open(out + '.json', 'w'))


if __name__ == '__main__':
    main()
