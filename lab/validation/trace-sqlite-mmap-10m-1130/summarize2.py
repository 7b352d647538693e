"""Per traced measure (bt2-N.txt): sqlite3's major faults by file (libsqlite3 = inode 326791, the
database = its inode), its TLB flushes by reason (0 task switch, 2 local shootdown, 3 local MM
shootdown, 1 remote shootdown, 4 remote IPI send), context switches, migrations, CPUs it ran on."""
import collections, glob, gzip, re, sys
DB, LIB = 2162691, 326791
for path in sorted(glob.glob(sys.argv[1] if len(sys.argv) > 1 else "bt2-*.txt.gz"), key=lambda p: int(re.findall(r"\d+", p)[-1])):
    lines = gzip.open(path, "rt").read().split("\n")
    maj = collections.Counter(); flush = collections.Counter(); fullflush = collections.Counter()
    sw = mig = 0; cpus = collections.Counter(); last = None; meas = ""
    for l in lines:
        f = l.split()
        if not f: continue
        if f[0] == "F": last = int(f[2]); cpus[f[4]] += 1
        elif f[0] == "E": maj["db" if last == DB else "lib" if last == LIB else "other"] += 1
        elif f[0] == "T":
            flush[int(f[3])] += 1
            if int(f[4]) == -1: fullflush[int(f[3])] += 1
        elif f[0] == "W" and f[3].startswith("sqlite3>"): sw += 1
        elif f[0] == "G": mig += 1
        elif f[0] == "measure": meas = l
    print(path, lines[0], meas)
    print("   majfaults", dict(maj), "flushes by reason", dict(sorted(flush.items())), "full", dict(sorted(fullflush.items())), "switches out", sw, "migrations", mig, "fault cpus", dict(cpus))
