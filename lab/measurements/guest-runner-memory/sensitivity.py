"""Do the passing qemu validation scenarios depend on the guest runner's old per-task memory?

Recordings made before guest9 (2026-11-29 evening) carry PER_TASK_KB of the runner's own memory a
task (memtwin_guest.c run_task()'s 8 MiB output and 1 MiB read buffer, touched after boot_used was
taken, charged to no memcg). This writes a copy of each named scenario with that memory added to
`[machine] boot_used` (tasks x PER_TASK_KB; boot_used is 0 where a scenario has none) into OUTDIR,
with OUTDIR/real a link to the recordings, for `memtwin validate --recorded OUTDIR/*.toml`: a
scenario that passes both as it is and with the overhead does not depend on it. A check only: the
scenarios themselves keep their boot_used.

python3 sensitivity.py OUTDIR PER_TASK_KB SCENARIO.toml...
"""
import os
import re
import sys
import tomllib


def main(argv: list) -> int:
    out, per_kb, paths = argv[1], int(argv[2]), argv[3:]
    os.makedirs(out, exist_ok=True)
    for p in paths:
        with open(p, "rb") as f:
            doc = tomllib.load(f)
        n = len(doc.get("tasks", {}))
        text = open(p).read()
        m = re.search(r'(?m)^boot_used = "(\d+)K"$', text)
        if m:
            text = text[:m.start()] + f'boot_used = "{int(m.group(1)) + n * per_kb}K"' + text[m.end():]
        else:
            text = re.sub(r"(?m)^\[machine\]$", f'[machine]\nboot_used = "{n * per_kb}K"', text, count=1)
        with open(os.path.join(out, os.path.basename(p)), "w") as f:
            f.write(text)
    link = os.path.join(out, "real")
    if not os.path.exists(link):
        os.symlink(os.path.abspath(os.path.join(os.path.dirname(paths[0]), "real")), link)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
