"""The twin's copy (task 0) and hog (task 1) in hog 1, from a HOG23_DBG run's stderr (twin-io-debug.patch):
IO lines (dir class pages now dispatched done has_hw_queue) and Q lines (task t_start clock sys runq iowait
cpu_stretch pc). Prints the copy's reads: when each MiB of its first 21 MiB left the throttle and completed, and
the three tasks' CPU, run-queue wait and I/O wait at the clock nearest 60 ms and at the hog's step end."""
import sys
ios, qs = [], []
for l in open(sys.argv[1]):
    p = l.split()
    if p[0] == 'IO':
        ios.append((p[1], p[2], int(p[3]), int(p[4]), int(p[5]), int(p[6])))
    elif p[0] == 'Q':
        qs.append([int(x) for x in p[1:]])
tot, mark = 0, 1
print("copy's reads (MiB: submitted, left the throttle, completed; ms)")
for d, c, pg, now, disp, done in ios:
    if d != 'Read' or now > 130e6:
        continue
    tot += pg
    if tot * 4096 >= mark * (1 << 20):
        if mark in (1, 5, 10, 15, 19, 20, 21):
            print(f"  {mark:2} MiB: {now/1e6:8.3f} {disp/1e6:8.3f} {done/1e6:8.3f}")
        mark += 1
end = None
prev = None
for q in qs:
    if q[0] == 1:
        if q[7] >= 2 and prev is not None and prev[7] < 2 and end is None:
            end = q[2]
        prev = q
for at, what in ((60e6, "at ~60 ms"), (end, f"at the hog's hog 1 end ({end/1e6:.1f} ms)")):
    print(what + ":")
    for ti, name in ((0, 'copy'), (1, 'hog'), (2, 'probe')):
        c = [q for q in qs if q[0] == ti and q[2] <= at]
        if c:
            c = c[-1]
            print(f"  {name:5} clock {c[2]/1e6:7.1f} ms: CPU {c[3]/1e6:6.1f}, run-queue wait {c[4]/1e6:5.1f}, I/O wait {c[5]/1e6:6.1f} ms")
