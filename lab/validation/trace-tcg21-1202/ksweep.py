"""tcg21: the twin of a QEMU scenario (SCN, default the bw100 one) at given speed inputs, MB, system time,
pgscan - pgsteal and failcnt a pass. Each argument is one run: K (uniform cpu_slowdown) or CODE/COPY (split),
optionally @DISK (devices.sda.read_bw) and :SEED (kernel.boot_seed).
python3 ksweep.py 50 14/49 30/30@200M ..."""
import os, sys
from memtwin.api import load, run
f = os.environ.get("SCN", "scenarios/validation/qemu61-xfs-seq-tight-256m-ra8192-bw100.toml")
scn = load(f)
for a in sys.argv[1:]:
    a, _, seed = a.partition(":")
    a, _, disk = a.partition("@")
    code, _, copy = a.partition("/")
    sets = [f"machine.cpu_slowdown={code}"] + ([f"machine.copy_slowdown={copy}"] if copy else [])
    if disk: sets.append(f"devices.sda.read_bw={disk}")
    if seed: sets.append(f"kernel.boot_seed={seed}")
    res = run(scn, sets=sets).to_json()
    out = []
    for s in res["steps"]:
        m = s["metrics"]
        out.append(f"{m['read_bytes']/1e6:.2f} MB {m['sys_s']:.2f} s {m['memcg.pgscan']-m['memcg.pgsteal']} {m['memcg.failcnt']}")
    print(a + ("@" + disk if disk else "") + (":" + seed if seed else ""), "|", " | ".join(out), flush=True)
