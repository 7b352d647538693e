import sys, collections
W = float(sys.argv[2]) if len(sys.argv) > 2 else 0.25
B = collections.defaultdict(collections.Counter)
last = {}
for line in open(sys.argv[1]):
    p = line.split()
    if not p: continue
    t = int(p[1]) / 1e9; b = int(t / W)
    c = B[b]
    if p[0] == 'BAL':
        c['n'] += 1; c[p[4]] += 1; c['prio'] += int(p[3][1:])
        i = p.index('sz'); sz = list(map(int, p[i+1:i+5]))
        j = p.index('nr'); nr = [int(x.strip('[],')) for x in p[j+1:j+5]]
        for k in range(4): c['nr%d' % k] += nr[k]
        d = p.index('dirty')
        last[b] = (sz, int(p[d+1]), int(p[d+3]), p[8], p[9])
    elif p[0] == 'SA':
        c['Ascan'] += int(p[2]); c['Arecl'] += int(p[3]); c['Apo'] += int(p[4][2:]); c['Aact'] += int(p[5][3:])
    elif p[0] == 'SF':
        c['Fscan'] += int(p[2]); c['Frecl'] += int(p[3]); c['Fact'] += int(p[4][3:]); c['Fud'] += int(p[5][2:])
print(' t    calls File Fract Equal Anon prio | nrIA nrAA nrIF nrAF | Ascan Arecl Apo Aact | Fscan Frecl Fact | last sizes IA AA IF AF dirty wb costs')
for b in sorted(B):
    c = B[b]; n = c['n'] or 1
    l = last.get(b, ([0]*4, 0, 0, '', ''))
    print(f"{b*W:5.2f} {c['n']:6} {c['File']:5} {c['Fract']:5} {c['Equal']:5} {c['Anon']:4} {c['prio']/n:4.1f} | {c['nr0']:6} {c['nr1']:5} {c['nr2']:6} {c['nr3']:5} | {c['Ascan']:6} {c['Arecl']:6} {c['Apo']:6} {c['Aact']:5} | {c['Fscan']:6} {c['Frecl']:6} {c['Fact']:5} | {l[0]} {l[1]} {l[2]} {l[3]} {l[4]}")
