import os, sys, time, statistics
U = "/sys/devices/system/cpu/cpu0/cpuidle/state1/usage"
def sched():
    with open("/proc/thread-self/schedstat") as f:
        a = f.read().split()
    return int(a[1]), int(a[2])
def usage():
    with open(U) as f: return int(f.read())
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
                t = time.perf_counter_ns() + gap_us * 1000
                while time.perf_counter_ns() < t: pass
            os.write(w1, b"x")
        os._exit(0)
    os.close(w1)
    os.sched_setaffinity(0, {0})
    halted, busy = [], []
    d, c = sched(); u = usage()
    for i in range(n):
        os.read(r1, 1)
        d2, c2 = sched(); u2 = usage()
        if c2 > c:  # it slept and was switched in
            (halted if u2 > u else busy).append(d2 - d)
        d, c, u = d2, c2, usage()
    os.waitpid(pid, 0); os.close(r1)
    return halted, busy
def q(xs, p):
    xs = sorted(xs); return xs[min(len(xs)-1, int(len(xs)*p))] / 1e3 if xs else float('nan')
for mode in ("sleep", "spin"):
    for g in (20, 50, 100, 200, 500, 1000, 2000, 5000):
        n = max(200, min(2000, int(0.5e6 / g)))
        h, b = run(g, n, mode)
        print(f"{mode:5} gap {g:5}us n {n:5} | halted-before {len(h):5}: med {q(h,.5):6.2f} p90 {q(h,.9):7.2f} mean {statistics.mean(h)/1e3 if h else float('nan'):7.2f} | not halted {len(b):5}: med {q(b,.5):6.2f} p90 {q(b,.9):7.2f} mean {statistics.mean(b)/1e3 if b else float('nan'):7.2f}")
