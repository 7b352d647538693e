import sys, collections
for f in sys.argv[1:]:
    p = 0; c = collections.defaultdict(collections.Counter)
    for l in open(f):
        if l.startswith('BIAS21'):
            p += 1; continue
        if l.startswith('T '):
            k = l.split()[1]
            if k in ('seq', 'ctx', 'big', 'rnd'): c[p % 3][k] += 1
    for q in (0, 1, 2):
        x = c[q]; n = x['seq'] + x['ctx'] + x['big']
        print(f, 'pass', q + 1, dict(x), f"ctx share {(x['ctx'] + x['big']) / n:.2f}")
