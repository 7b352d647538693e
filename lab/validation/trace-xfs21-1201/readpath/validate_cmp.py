"""xfs21b: validate --recorded outputs before/after (files DIR/{before,after}-NAME.txt, DIR the first argument, /tmp/xfs21b-val
if none; tcg21 ran it on /tmp/tcg21/val): the files whose output moved and the rows whose status moved."""
import glob, os, re, sys
DIR = sys.argv[1] if len(sys.argv) > 1 else "/tmp/xfs21b-val"
rows = {}
def parse(p):
    out = {}
    var = ""
    for line in open(p):
        if line.startswith("variant "): var = line.split()[1].rstrip(":")
        m = re.match(r"^(\S.*?)\s{2,}(\S+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(\S+) \(([^)]*)\)\s+(.*?)\s(ok|OUT|out|known_out|known)\s*$", line)
        if m:
            out[(var, m.group(1), m.group(2))] = (m.group(6), m.group(8))
    tail = [l.strip() for l in open(p) if "within tolerance" in l or "outside" in l or "known" in l.lower()][-1:]
    return out, tail
n = 0
for a in sorted(glob.glob(os.path.join(DIR, "after-*.txt"))):
    b = a.replace("after-", "before-")
    if not os.path.exists(b): continue
    n += 1
    A, ta = parse(a); B, tb = parse(b)
    if open(a).read() == open(b).read(): continue
    ch = [(k, B.get(k), A.get(k)) for k in sorted(set(A) | set(B)) if (B.get(k) or (0, 0))[1] != (A.get(k) or (0, 0))[1]]
    nb = sum(1 for v in B.values() if v[1] == "ok"); na = sum(1 for v in A.values() if v[1] == "ok")
    print(os.path.basename(a)[6:-4], f"ok rows {nb}/{len(B)} -> {na}/{len(A)}", "|", tb, "->", ta)
    for k, x, y in ch:
        print("    STATUS", k, x, "->", y)
print("compared", n)
