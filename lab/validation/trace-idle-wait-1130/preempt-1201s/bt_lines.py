"""The bpftrace line formats summarize_bound.py (bound.bt) and summarize_preempt.py (wakers3.bt) read, and the
task roles both take from them (pre23, issue 23).

A line is a letter and its fields, split on white space; `@wr[PID]: N` / `@rdn[PID]: N` are the maps printed at
the end (bytes asked of write, read calls, per task); `F T PARENT CHILD` a fork at T. Each script names the other
letters it reads and how many fields (the letter included) a well-formed line of each has: a line of another length
(cut off at the end of a trace, or interleaved) is passed over."""
import collections
import lzma
import re

MAP = re.compile(r"@(wr|rdn)\[(\d+)\]: (\d+)")


def parse(path, shapes):
    """(wr, rdn, (forks, fork_time), lines) of a bt.out: `wr`/`rdn` {pid: n}; `forks` [(parent, child)] in order,
    `fork_time` {child: ns}; `lines` {letter: [fields after the letter, ...]} for each letter of `shapes`
    ({letter: field count}), in the trace's order. A path ending in .xz is read through lzma (bt.out kept xz-compressed)."""
    wr, rdn, forks, ft = {}, {}, [], {}
    lines = {k: [] for k in shapes}
    for line in (lzma.open(path, "rt") if path.endswith(".xz") else open(path)):
        f = line.split()
        if not f:
            continue
        m = MAP.match(line)
        if m:
            {"wr": wr, "rdn": rdn}[m.group(1)][m.group(2)] = int(m.group(3))
        elif f[0] == "F" and len(f) == 4:
            forks.append((f[2], f[3]))
            ft[f[3]] = int(f[1])
        elif f[0] in shapes and len(f) == shapes[f[0]]:
            lines[f[0]].append(f[1:])
    return wr, rdn, (forks, ft), lines


def roles(wr, rdn, forks, kids_only):
    """(runner, writer, sampler, reader) pids: the runner forked the most; the writer asked the most bytes of write, the
    sampler made the most read calls (with `kids_only`, among the runner's children only); the reader is the runner's
    child forked nearest the writer (the two task processes are forked together)."""
    parents = collections.Counter(p for p, c in forks[0])
    runner = parents.most_common(1)[0][0]
    kids = [c for p, c in forks[0] if p == runner]
    writer = max((p for p in wr if p != runner and (p in kids or not kids_only)), key=lambda p: wr[p])
    sampler = max((p for p in rdn if p not in (runner, writer) and (p in kids or not kids_only)), key=lambda p: rdn[p])
    ft = forks[1]
    reader = min((c for c in kids if c not in (writer, sampler)), key=lambda c: abs(ft[c] - ft[writer]))
    return runner, writer, sampler, reader
