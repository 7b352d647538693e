import os, sys, time, statistics
def sched():
    with open("/proc/thread-self/schedstat") as f:
        a = f.read().split()
    return int(a[1]), int(a[2])
def spin(ns):
    t = time.perf_counter_ns() + ns
    while time.perf_counter_ns() < t: pass
def run(gap_us, n, mode):
    r1, w1 = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.sched_setaffinity(0, {1})
        os.close(r1)
        time.sleep(0.05)
        for i in range(n):
            if mode == "sleep":
                time.sleep(gap_us / 1e6)
            else:
                spin(gap_us * 1000)
            os.write(w1, b"x")
        os._exit(0)
    os.close(w1)
    os.sched_setaffinity(0, {0})
    per = []
    d0, c0 = sched()
    prev = d0
    for i in range(n):
        os.read(r1, 1)
        d, c = sched()
        per.append(d - prev); prev = d
    d1, c1 = sched()
    os.waitpid(pid, 0)
    os.close(r1)
    per.sort()
    return (d1 - d0) / max(1, c1 - c0), c1 - c0, per[len(per)//2], per[int(len(per)*0.9)], statistics.mean(per)
for mode in ("sleep", "spin"):
    for g in (20, 50, 100, 200, 500, 1000, 2000, 5000):
        n = max(200, min(2000, int(0.5e6 / g)))
        m, c, med, p90, mean = run(g, n, mode)
        print(f"{mode:5} gap {g:5} us n {n:5} switches {c:5} mean/switch {m/1e3:7.2f} us  per-wake median {med/1e3:6.2f} p90 {p90/1e3:7.2f} mean {mean/1e3:7.2f}")
