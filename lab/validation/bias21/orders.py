import json, sys, re, statistics as st
for name in sys.argv[1:]:
    res = json.load(open(f'lab/validation/bias21/out/{name}.json'))
    lines = [l for l in open(f'lab/validation/bias21/out/{name}.err') if l.startswith('BIAS21')]
    tw = {}
    for j, l in enumerate(lines):
        m = re.match(r'BIAS21 "pass (\d)" add \[([^\]]*)\] del \[([^\]]*)\]', l)
        p = int(m.group(1)) - 1
        tw.setdefault(p, []).append([int(x) for x in m.group(2).split(',')])
    print(name)
    for p in range(3):
        kern = [[r['real'][p]['folio_events']['added'].get(str(o), 0) for o in range(12)] for r in res]
        km = [st.median(x[o] for x in kern) for o in range(10)]
        tm = [st.median(x[o] for x in tw[p]) for o in range(10)]
        print(f' pass {p+1} folios  order: ' + ' '.join(f'{o:>7}' for o in range(10)))
        print('   kernel          ' + ' '.join(f'{x:>7.0f}' for x in km), f' pages {sum(km[o]*(1<<o) for o in range(10)):.0f}')
        print('   twin            ' + ' '.join(f'{x:>7.0f}' for x in tm), f' pages {sum(tm[o]*(1<<o) for o in range(10)):.0f}')
        print('   kernel pages MB ' + ' '.join(f'{km[o]*(1<<o)*4096/1e6:>7.0f}' for o in range(10)))
        print('   twin pages MB   ' + ' '.join(f'{tm[o]*(1<<o)*4096/1e6:>7.0f}' for o in range(10)))
