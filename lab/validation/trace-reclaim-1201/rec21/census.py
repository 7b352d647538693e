"""rec21: how many failing on-CPU memcg reclaims the runner's reclaim calibration (hostcal.reclaim_call_ns) caught in
ONE read of its 128 MiB file, over every host recording that carries it (scenarios/*/real/*.json and /work/quiet/),
each distinct host_cost counted once: per host kernel boot, the light read's count (reclaims_timed) and the full
read's (reclaims_counted), from the figure or from the 'too few' reason. Usage (from the worktree):
python3 lab/validation/trace-reclaim-1201/rec21/census.py > lab/validation/trace-reclaim-1201/rec21/census.txt"""
import collections
import glob
import json
import re
import statistics


def host_costs(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == "host_cost" and isinstance(v, dict):
                yield v
            else:
                yield from host_costs(v)
    elif isinstance(o, list):
        for v in o:
            yield from host_costs(v)


seen, by = set(), collections.defaultdict(list)
for f in sorted(glob.glob("scenarios/*/real/*.json") + glob.glob("/work/quiet/**/*.json", recursive=True)):
    try:
        d = json.load(open(f))
    except (OSError, ValueError):
        continue
    for hc in host_costs(d):
        key = json.dumps(hc, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        if "reclaim_reads" in hc:
            continue  # rec21's repeated reads: not one read
        if "reclaims_timed" in hc:
            t, c = hc["reclaims_timed"], hc["reclaims_counted"]
        else:
            m = re.search(r"\((\d+) timed, (\d+) counted", (hc.get("unavailable") or {}).get("reclaim_call_ns", ""))
            if not m:
                continue
            t, c = int(m[1]), int(m[2])
        by[hc.get("kernel", "?")].append((t, c))
for k, v in sorted(by.items()):
    T, C = [a for a, _ in v], [b for _, b in v]
    print(f"{k}: {len(v)} recordings; light read (timed) median {statistics.median(T)} [{min(T)}-{max(T)}], "
          f"full read (counted) median {statistics.median(C)} [{min(C)}-{max(C)}]; fewer than 3 in either {sum(a < 3 or b < 3 for a, b in v)} "
          f"(timed {sum(a < 3 for a in T)}, counted {sum(b < 3 for b in C)}); fewer than 5 in either {sum(a < 5 or b < 5 for a, b in v)}")
    print("  timed:  ", dict(sorted(collections.Counter(T).items())))
    print("  counted:", dict(sorted(collections.Counter(C).items())))
