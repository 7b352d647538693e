#!/usr/bin/env python3
"""Replay the read bios of a blk_notes.py trace (blk-throttle's own log, throtl21) through the engine's rule
(blk_throttle.rs `ThrotlGrp::throtl_bio`, ported in throtl_replay.py) at the kernel's own jiffies, and compare
bio by bio: held or let go, the release jiffy, and the bytes dispatched in the slice (`bdisp`) the kernel logged
when it held a bio against the rule's.

    python3 blk_replay.py BLKTRACE[.xz] [--bps 524288000] [--rows] [--trim-all]

--trim-all: the engine's pre-v6.15 trim (every whole slice) instead of 6.18's (the check that the comparison can fail).

Submissions: a read bio the submitter queued itself (blk tracer action Q, not a kworker) went at once; a bio
blk-throttle held is logged at its submission ("throtl [R] bio. bdisp= sz="; its Q comes from kthrotld when
released). The trace clock is mapped to jiffies by the notes that carry `jiffies=` (the tick phase and the
first jiffy that fit them all; printed with how many notes it misses by a jiffy).
"""
import lzma
import re
import sys
import collections
import statistics

sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
import throtl_replay as T  # noqa: E402

LINE = re.compile(r"^\s*(.+?)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+):\s+7,(\d+)\s+(.*)$")


def load(path):
    op = lzma.open if path.endswith(".xz") else open
    ev = []
    with op(path, "rt") as f:
        for line in f:
            m = LINE.match(line)
            if m:
                comm, pid, ts, _minor, rest = m.groups()
                ev.append((round(float(ts) * 1e9), comm, int(pid), rest))
    return ev


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    bps = 524288000
    trim_all = "--trim-all" in sys.argv
    if "--bps" in sys.argv:
        bps = int(sys.argv[sys.argv.index("--bps") + 1])
        args = [a for a in args if a != str(bps)]
    for path in args:
        ev = load(path)
        # jiffies from the notes: ts = a + JNS * (j - j0) + x with 0 <= x < JNS
        marks = [(t, int(re.search(r"jiffies=(\d+)", r).group(1))) for t, c, p, r in ev if "jiffies=" in r]
        j0 = marks[0][1]
        lo = max(t - T.JNS * (j - j0) - T.JNS + 1 for t, j in marks)
        hi = min(t - T.JNS * (j - j0) for t, j in marks)
        a = (lo + hi) // 2 if lo <= hi else hi
        miss = sum(1 for t, j in marks if (t - a) // T.JNS + j0 != j)
        to_j = lambda t: (t - a) // T.JNS + j0  # noqa: E731
        # ns on a clock whose jiffies are the kernel's: jiffy j starts at j * JNS
        to_ns = lambda t: (t - a) + j0 * T.JNS  # noqa: E731
        subs = []  # (ts, bytes, held by the kernel, kernel bdisp when held)
        rel_k = []  # kernel release jiffies of held bios, in order
        last_sched = None
        for t, comm, pid, rest in ev:
            p = rest.split()
            if "throtl [R] bio." in rest:
                kv = dict(x.split("=") for x in p if "=" in x)
                # bdisp of the first bio held (nothing queued before it): the state the rule decided on
                subs.append((t, int(kv["sz"]), True, int(kv["bdisp"]) if kv["queued"].split("/")[0] == "0" else None))
            elif len(p) >= 5 and p[0] == "Q" and "R" in p[1] and p[3] == "+":
                if comm.startswith("kworker"):
                    rel_k.append(to_j(t))
                else:
                    subs.append((t, int(p[4]) * 512, False, None))
        g = T.Grp(trim_all)
        conf = collections.Counter()
        dj, dbd = [], []
        rel_t = []
        rows = []
        for t, b, held, kbd in subs:
            bd_before, ss_before = g.bd, g.ss
            r = g.bio(b, to_ns(t), bps)
            tw = r > to_ns(t)
            conf[(held, tw)] += 1
            if held:
                rel_t.append(r // T.JNS)
                if kbd is not None:
                    dbd.append(kbd - bd_before)
            rows.append((t, b, held, kbd, tw, r // T.JNS, bd_before, ss_before))
        for k, tt in zip(rel_k, rel_t):
            dj.append(k - tt)
        print(f"{path}: {len(marks)} notes with jiffies, clock mapped ({miss} off by a jiffy); {len(subs)} read bios "
              f"({sum(1 for s in subs if s[2])} held by the kernel)")
        print(f"  kernel held / rule held: both {conf[(True, True)]}, kernel only {conf[(True, False)]}, "
              f"rule only {conf[(False, True)]}, neither {conf[(False, False)]}")
        c = collections.Counter(dj)
        print("  release jiffy (kthrotld's Q), kernel minus rule (held bios in order):", sorted(c.items()))
        c = collections.Counter(dbd)
        print("  bdisp when the first bio of a hold met the limit, kernel minus rule (bytes: holds):", sorted(c.items()))
        if "--rows" in sys.argv:
            for t, b, held, kbd, tw, rj, bd, ss in rows:
                print(f"  j={to_j(t)} {b:9d} {'K' if held else '.'}{'T' if tw else '.'} rule_release_j={rj} "
                      f"rule_bd={bd} kernel_bd={kbd} rule_ss={ss}")


if __name__ == "__main__":
    main()
