import sys
def ranges(xs):
    xs=sorted(xs); out=[]
    for x,n in xs:
        if out and out[-1][1]==x: out[-1][1]=x+n
        else: out.append([x,x+n])
    return " ".join(f"{a}-{b}" for a,b in out)
cur=None; fresh=[]; read=0; stale=0; lines=[]
pass_no=1; last_s=-1
for ln in open(sys.argv[1]):
    t=ln.split()
    if t[0]=='S':
        if cur: print(f"{cur} read={read} fresh_evicted={sum(n for _,n in fresh)} [{ranges(fresh)}] | {' '.join(lines)}")
        cur=f"S t={int(t[1])/1e6:.2f}ms idx={t[2]}"; fresh=[]; read=0; lines=[]
    elif t[0]=='E':
        if t[4]=='1': fresh.append((int(t[2]),int(t[3])))
    elif t[0]=='B':
        read+=int(t[3])-int(t[2])
        late=int(t[4])-int(t[1])
        lines.append(f"B{t[2]}-{t[3]}" + (f"(+{late/1e6:.1f}ms)" if late>0 else ""))
    elif t[0]=='A':
        lines.append(f"A@{t[2]}o{t[3]}->{t[5]}+{t[6]}")
    elif t[0] in 'FDOX':
        lines.append(t[0]+"@"+t[2])
    elif t[0]=='W':
        pass
print(f"{cur} read={read} fresh_evicted={sum(n for _,n in fresh)} [{ranges(fresh)}] | {' '.join(lines)}")
