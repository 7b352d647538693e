"""Summary of every traced measure here (bt-N: first pass, kept without its page-cache add/delete, map_pages and other memcg events, bt2-N: with TLB flushes and migrations,
bt3-N: sqlite3 pinned to one CPU): the measure's read bytes and memcg pgmajfault, sqlite3's major
faults by file (memcg event 24 = PGMAJFAULT after a filemap fault; lib = libsqlite3.so.0.8.6,
inode 326791; db = /var/tmp/mtval/db.sqlite), how many of them were the scan's hottest pages
(libsqlite3 page 300, the database's page 1), mmap_miss as page_cache_async_ra() saw it, and
sqlite3's migrations (bt2/bt3 only). Usage: python3 summarize.py > summary.txt"""
import collections, glob, gzip, re
DB, LIB = 2162691, 326791
def key(p):
    m = re.match(r"bt(\d?)-(\d+)\.txt\.gz", p)
    return (int(m.group(1) or 1), int(m.group(2)))
print("file        load(1m)  read_MB  pgmajfault | maj: db lib other | lib300 db1 | max mmap_miss | migrations")
for path in sorted(glob.glob("bt*-*.txt.gz"), key=key):
    lines = gzip.open(path, "rt").read().split("\n")
    load = lines[0].split()[1]
    maj = collections.Counter(); hot = collections.Counter(); last = idx = None
    mmiss = []; mig = "-" if path.startswith("bt-") else 0; meas = None
    for l in lines:
        f = l.split()
        if not f: continue
        if f[0] == "F": last, idx = int(f[2]), int(f[3])
        elif f[0] == "E" and f[2] == "24":
            maj["db" if last == DB else "lib" if last == LIB else "other"] += 1
            if (last, idx) == (LIB, 300): hot["lib300"] += 1
            if (last, idx) == (DB, 1): hot["db1"] += 1
        elif f[0] == "A": mmiss.append(int(f[7]))
        elif f[0] == "G": mig += 1
        elif f[0] == "measure": meas = eval(l.split(" ", 1)[1])
    lost = sum(int(l.split()[1]) for l in lines if l.startswith("Lost"))
    print(f"{path:11s} {load:>8s} {meas['read_bytes']/1e6:8.1f} {meas['memcg.pgmajfault']:11d} | {maj['db']:6d} {maj['lib']:3d} {maj['other']:5d} |"
          f" {hot['lib300']:6d} {hot['db1']:3d} | {max(mmiss) if mmiss else '-':>13} | {mig}" + (f"  (bpftrace lost {lost} events)" if lost else ""))
