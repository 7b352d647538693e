#!/usr/bin/env python3
"""ct57: what was in vda's ring when virtio_queue_rq() found it full. Over a trace_loop_path.py raw trace:
a vda request issued again before it completes had its earlier dispatch fail (virtblk_add_req() -ENOSPC:
blk_mq_start_request() traces block_rq_issue before the ring is tried); its last issue is the dispatch
that entered the ring. At each failed dispatch: the requests in the ring (last issue done, not completed),
how many, their KiB, and the failing request's KiB. The ring has 256 descriptors and this VM's virtio1 has
no VIRTIO_RING_F_INDIRECT_DESC, so a request takes its segments + 2 of them; 128 tags (queue_depth =
num_free / 2). Fewer than 128 in the ring at a failure: the descriptors, not the tags, ran out.

    python3 lab/validation/ct57/inflight.py RAW
"""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyse import load, RQ, pct  # noqa: E402

VDA = (254, 0)


def main():
    for raw in sys.argv[1:]:
        evs = []
        for t, name, comm, pid, cpu, rest in load(raw, VDA):
            if name in ("block_rq_issue", "block_rq_complete"):
                m = RQ.match(rest)
                if m and (int(m.group(1)), int(m.group(2))) == VDA and int(m.group(6)) > 0:
                    evs.append((t, name == "block_rq_issue", int(m.group(5)), int(m.group(6)), m.group(3)))
        # pass 1: each issue's fate (the last issue before a completion succeeds)
        last_issue = {}
        ok = set()
        issues = collections.defaultdict(list)
        for i, (t, iss, sec, n, rw) in enumerate(evs):
            if iss:
                issues[sec].append(i)
            else:
                if issues[sec]:
                    ok.add(issues[sec][-1])
                issues[sec] = []
        ring = {}
        fails = []
        for i, (t, iss, sec, n, rw) in enumerate(evs):
            if iss and i in ok:
                ring[sec] = n
            elif iss:
                fails.append((len(ring), sum(ring.values()) // 2, n // 2, "R" in rw))
            else:
                ring.pop(sec, None)
        nf = len(fails)
        print(f"{raw}: vda requests {sum(1 for e in evs if e[1])} issues, {len(ok)} dispatched, {nf} failed dispatches")
        if nf:
            print(f"  at a failed dispatch, requests in the ring: {pct([f[0] for f in fails])}; KiB in the ring: "
                  f"{pct([f[1] for f in fails])}; the failing request's KiB: {pct([f[2] for f in fails])}")
            print(f"  ring holding >= 64 requests at a failure: {sum(f[0] >= 64 for f in fails)}; holding <= 4: "
                  f"{sum(f[0] <= 4 for f in fails)}; reads failing: {sum(f[3] for f in fails)}")
        print(f"  requests in the ring at any dispatch: max {max_ring(evs, ok)}")


def max_ring(evs, ok):
    ring, mx = set(), 0
    for i, (t, iss, sec, n, rw) in enumerate(evs):
        if iss and i in ok:
            ring.add(sec)
            mx = max(mx, len(ring))
        elif not iss:
            ring.discard(sec)
    return mx


if __name__ == "__main__":
    main()
