#!/usr/bin/env python3
"""Pages a real program's runs add to the page cache, by file, in a tight memcg (issue 18's trace
validation: which files a tight limit makes the kernel read again; lab/validation/trace-programs.md,
"2026-11-29").

    flock /tmp/memtwin-host.lock python3 lab/validation/trace_program_inodes.py --limit SIZE \\
        --trace T.mtt --comm NAME -- CMD [ARGS...]

Runs `memtwin measure --limit SIZE --trace T.mtt -- CMD` (root; the trace's files dropped first)
while a tracefs instance of its own records filemap:mm_filemap_add_to_page_cache for tasks named
NAME (the readahead and faults the program runs itself), and prints as JSON the measurement's
read bytes and major faults and the folios added per file (the trace's files by path, others by
device:inode). A folio of any order is one event (a kernel whose tracepoint has no order= still
counts; --runs then stops with an error, as on any tracepoint line the tool cannot read). With --runs, also the runs of pages added
together per file of the trace: [first page, end page) of each stretch of consecutive additions
(a readahead or read-around window, or the part of it that was not cached), in the order they
were added. The instance and its tracefs mount are removed on every exit path.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)

import tracefs_instance  # noqa: E402

# order= is optional: kernels before the folio's order was added to the tracepoint print none (Debian's 6.1
# source and 6.18 have it)
ADD = re.compile(r"mm_filemap_add_to_page_cache: dev (\d+):(\d+) ino (\w+) pfn=\w+ ofs=(\d+)(?: order=(\d+))?")


def parse(lines, names, want_runs):
    """(folios added per file, runs of pages added per file of the trace) from the tracepoint's
    lines. A line of the tracepoint that ADD does not read, or (with want_runs, which needs each
    folio's size) one without order=, ends the tool with the fix rather than dropping the event."""
    added = Counter()
    runs = {}
    for line in lines:
        if "mm_filemap_add_to_page_cache:" not in line:
            continue
        m = ADD.search(line)
        if not m:
            sys.exit(f"trace_program_inodes: a mm_filemap_add_to_page_cache line this tool cannot read: {line.strip()}\n"
                     "  fix: update ADD in lab/validation/trace_program_inodes.py to this kernel's tracepoint format")
        key = (int(m.group(1)), int(m.group(2)), int(m.group(3), 16))
        added[names.get(key, f"{key[0]}:{key[1]}:{key[2]}")] += 1
        if want_runs and key in names:
            if m.group(5) is None:
                sys.exit("trace_program_inodes: --runs needs the folio's order, and this kernel's "
                         f"mm_filemap_add_to_page_cache has no order=: {line.strip()}\n"
                         "  fix: drop --runs (the folio counts need no order), or run on a kernel whose tracepoint has it (6.1's and 6.18's do)")
            first = int(m.group(4)) >> 12
            end = first + (1 << int(m.group(5)))
            rs = runs.setdefault(names[key], [])
            if rs and rs[-1][1] == first:
                rs[-1][1] = end
            else:
                rs.append([first, end])
    return added, runs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", required=True, metavar="SIZE")
    ap.add_argument("--trace", required=True, metavar="T.mtt", help="the program's trace: its files are dropped first, and named in the output")
    ap.add_argument("--comm", required=True, help="the program's task name (comm), e.g. sqlite3")
    ap.add_argument("--runs", action="store_true", help="also print the runs of consecutive pages added per file of the trace")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = ap.parse_args(argv[:cut])
    cmd = argv[cut + 1:]
    if not cmd:
        sys.exit("trace_program_inodes: give the command after --")
    if os.geteuid() != 0:
        sys.exit("trace_program_inodes: run it as root (memtwin measure and a trace instance)")
    if not re.fullmatch(r"[\w.+-]{1,15}", a.comm):
        sys.exit(f"trace_program_inodes: --comm {a.comm}: a task name of 1-15 letters, digits, . + - or _")
    from memtwin import trace
    with trace.Reader(a.trace) as r:
        paths = [f["path"] for f in r.header["files"]]
    names = {}
    for p in paths:
        try:
            st = os.stat(p)
        except OSError:
            continue
        names[(os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)] = p
    with tempfile.TemporaryDirectory(prefix="memtwin-proginodes-") as work:
        raw = os.path.join(work, "trace.txt")
        j = os.path.join(work, "m.json")
        flt = f'comm == "{a.comm}"'
        with tracefs_instance.recording(work, "memtwin-proginodes", {"filemap/mm_filemap_add_to_page_cache": flt}, raw, 65536,
                                        tool="trace_program_inodes"):
            r = subprocess.run([sys.executable, "-m", "memtwin.cli", "measure", "--limit", a.limit, "--trace", a.trace,
                                "--out", j, "--"] + cmd, env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")),
                               stdout=subprocess.DEVNULL, timeout=1800)
            if r.returncode != 0:
                sys.exit(f"trace_program_inodes: memtwin measure failed (exit {r.returncode})")
        with open(raw, errors="replace") as f:
            added, runs = parse(f, names, a.runs)
        with open(j) as f:
            v = json.load(f)["variants"]["default"]
    print(json.dumps({"command": cmd, "limit": a.limit, "read_bytes": v["totals"]["read_bytes"],
                      "major_faults": v["real"]["rusage"]["major_faults"],
                      "folios_added_by_file": dict(added.most_common()),
                      **({"runs_by_file": runs} if a.runs else {})}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
