import re,sys
def parse(p):
    rows={}
    for l in open(p):
        m=re.match(r'^(hog \d|copy|probe)\s+(\S+)\s+(\S+)\s+(\S+)\s+([-+]\S+(?: \([-+][\d.]+%\))?)\s+(\S.*?)\s+(ok|OUT)\s*$',l)
        if m:
            st,met,sim,real,diff,tol,v=m.groups()
            pct=re.search(r'\(([-+][\d.]+%)\)',diff)
            rows[(st,met)]=(sim,real,pct.group(1) if pct else diff.strip(),v)
    return rows
b=parse(sys.argv[1]); a=parse(sys.argv[2])
print(len(b),len(a), "out before", sum(v[3]=="OUT" for v in b.values()), "after", sum(v[3]=="OUT" for v in a.values()))
for k in a:
    if b[k][3]=="OUT" or a[k][3]=="OUT" or (len(sys.argv)>3):
        print(f"{k[0]:6} {k[1]:18} before {b[k][0]:>12} vs {b[k][1]:>12} {b[k][2]:>9} {b[k][3]:3} | after {a[k][0]:>10} vs {a[k][1]:>10} {a[k][2]:>9} {a[k][3]}")
