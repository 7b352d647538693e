"""What the QEMU guest runner's own task processes cost the guest (memtwin_guest.c run_task()).

`python3 measure.py toml N > tasks-N.toml` writes the scenario: a 512M Debian 6.1 guest (the
throttle scenarios' machine), N tasks in one memcg, each reading a 1M file with 128K reads (so
each has the read buffer a reader has) then sleeping 6 s, all started at once; at the end of the
first `hold` step to end every task is still alive, its buffers touched.
`python3 measure.py summary RUN.json...` prints, per recording: the guest's MemFree before the
tasks fork (real.machine.node_mem_kB_at_start), and at that step end MemFree, AnonPages and Cached,
the drop of MemFree per task, and the @@TASKMEM figures the runner reports (new runner only).
Recorded with `flock /tmp/memtwin-qemu.lock memtwin real tasks-N.toml --on qemu --json RUN.json`
(one run per hold of the lock); results in README.md.
"""
import json
import os
import sys

TOML = '''# lab/measurements/guest-runner-memory/measure.py toml {n}
[scenario]
name = "runner-memory-{n}"
description = "{n} idle tasks after a 1M read: what the guest runner's task processes take"
seed = 0

[machine]
ram = "512M"
kernel_reserved = "58152K"
boot_used = "35412K"
cpus = 2

[kernel]
profile = "linux-6.1"
cgroup = "v2"

[devices.sda]
read_bw = "200M"
write_bw = "200M"
read_ahead_kb = 128

[files."/data/f"]
size = "1M"

[cgroups.t]
'''

TASK = '''
[tasks.t{i}]
cgroup = "t"
ops = [
  {{ op = "read", file = "/data/f", bufsize = "128K", step = "read" }},
  {{ op = "sleep", duration = "6s", step = "hold" }},
]
'''


def toml(n: int) -> str:
    return TOML.format(n=n) + "".join(TASK.format(i=i) for i in range(n))


def summary(paths: list) -> None:
    print("| run | tasks | MemFree at fork kB | MemFree kB | AnonPages kB | Cached kB | MemFree drop/task kB | runner_memory | load |")
    print("|---|---|---|---|---|---|---|---|---|")
    for p in paths:
        with open(p) as f:
            v = json.load(f)["variants"]["default"]
        real = v["real"]
        start = real["machine"]["node_mem_kB_at_start"]["0"]["MemFree"]
        holds = [s for s in v["steps"] if s["name"] == "hold"]
        first = min(holds, key=lambda s: s["window_s"][1])
        m = first["metrics"]
        n = len({s["task"] for s in v["steps"]})
        rm = real["machine"].get("runner_memory")
        rms = "-" if not rm else f"obuf {rm['obuf_bytes']} rbuf {rm['rbuf_bytes']} grown {rm['grown_bytes']}"
        print(f"| {os.path.basename(p)} | {n} | {start} | {m['meminfo.MemFree_kB']} | {m['meminfo.AnonPages_kB']} | {m['meminfo.Cached_kB']} "
              f"| {(start - m['meminfo.MemFree_kB']) / n:.0f} | {rms} | {real['loadavg'][0]} |")


if __name__ == "__main__":
    if sys.argv[1:2] == ["toml"]:
        sys.stdout.write(toml(int(sys.argv[2])))
    elif sys.argv[1:2] == ["summary"]:
        summary(sys.argv[2:])
    else:
        sys.exit("usage: measure.py toml N | summary RUN.json...")
