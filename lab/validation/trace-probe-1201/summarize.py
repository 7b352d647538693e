#!/usr/bin/env python3
"""Summarize probe_round.bt output (bt.out) of one or more trace directories: per round wall, on-CPU,
run-queue wait, interrupts, the pcp refills/drains and the profile samples; slow rounds (wall above 1.12x
the median, as the twin's flat rounds vs the kernel's spread) against the others. Usage: summarize.py DIR..."""
import collections
import statistics as st
import sys


def parse(path):
    rounds, prof = [], collections.defaultdict(collections.Counter)
    for line in open(path):
        f = line.split()
        if not f:
            continue
        if f[0] == "R":
            d = {"n": int(f[1])}
            i = 2
            while i < len(f):
                k = f[i]
                if k == "pcp":
                    d["drain"], d["refill"], d["zl"] = int(f[i + 1]), int(f[i + 2]), int(f[i + 3]); i += 4
                elif k == "recl":
                    d["recl_n"], d["recl_us"] = int(f[i + 1]), int(f[i + 2]); i += 3
                elif k == "kw":
                    d["kw_n"], d["kw_us"] = int(f[i + 1]), int(f[i + 2]); i += 3
                else:
                    d[k] = int(f[i + 1]); i += 2
            rounds.append(d)
        elif f[0] == "P":
            prof[int(f[1])][f[2]] += 1
    return rounds, prof


GROUPS = {"clear_page_erms": "clear_page", "user": "user"}


def group(fn):
    if fn in GROUPS:
        return GROUPS[fn]
    if fn in ("unmap_page_range", "free_unref_folios", "free_pages_and_swap_cache", "__free_one_page", "free_pcppages_bulk",
              "zap_pte_range", "tlb_finish_mmu", "folios_put_refs", "__mem_cgroup_uncharge_folios", "uncharge_batch",
              "__tlb_batch_free_encoded_pages", "free_frozen_page_commit", "unmap_vmas", "release_pages", "tlb_flush_mmu"):
        return "munmap-side"
    return "fault-side/other"


def main(dirs):
    for d in dirs:
        rounds, prof = parse(d + "/bt.out")
        rounds = rounds[1:-1]  # the first round faults the runner's first use; the last may end with the step
        if not rounds:
            continue
        med = st.median(r["wall_us"] for r in rounds)
        medcpu = st.median(r["oncpu_us"] for r in rounds)
        print(f"== {d}: {len(rounds)} rounds, median wall {med/1000:.2f} ms, median on-CPU {medcpu/1000:.2f} ms")
        slow = [r for r in rounds if r["wall_us"] > 1.12 * med]
        fast = [r for r in rounds if r["wall_us"] <= 1.12 * med]
        keys = ["wall_us", "oncpu_us", "runq_us", "sleep_us", "irq_us", "sirq_us", "ntick", "nipi", "mig", "other_us",
                "drain", "refill", "zl", "flush", "recl_n", "tlb", "mmap_us", "munmap_us"]
        if "kw_n" in rounds[0]:
            keys += ["kw_n", "kw_us", "wq"]
        if "pfn_mean" in rounds[0]:
            keys += ["pages", "in_prev"]
        print(f"{'':10s}" + "".join(f"{k[:9]:>10s}" for k in keys))
        for name, rs in (("fast", fast), ("slow", slow)):
            if rs:
                print(f"{name+' '+str(len(rs)):10s}" + "".join(f"{st.median(r.get(k, 0) for r in rs):10.0f}" for k in keys))
        # on-CPU vs off-CPU share of the slow rounds' excess over the median
        if slow:
            ex = sum(r["wall_us"] - med for r in slow)
            exc = sum(r["oncpu_us"] - medcpu for r in slow)
            print(f"slow rounds' excess wall over the median {ex/1000:.1f} ms, of it on-CPU excess {exc/1000:.1f} ms,"
                  f" run-queue {sum(r['runq_us'] for r in slow)/1000:.1f} ms, asleep {sum(r['sleep_us'] for r in slow)/1000:.1f} ms")
        # profile by group, per round normalised: samples a round
        for name, rs in (("fast", fast), ("slow", slow)):
            c = collections.Counter()
            for r in rs:
                for fn, k in prof.get(r["n"], {}).items():
                    c[group(fn)] += k
            tot = sum(c.values())
            if tot:
                print(f"profile {name}: " + ", ".join(f"{g} {v/len(rs):.2f}/round ({100*v/tot:.0f}%)" for g, v in c.most_common()))
        # on-CPU time distribution among the rounds with no run-queue wait and no sleep
        clean = [r for r in rounds if r["runq_us"] == 0 and r["sleep_us"] == 0]
        if clean:
            cs = sorted(r["oncpu_us"] for r in clean)
            q = lambda p: cs[min(len(cs) - 1, int(p * len(cs)))]
            print(f"rounds never off the CPU: {len(clean)}; their on-CPU us p10 {q(.1)} p50 {q(.5)} p90 {q(.9)} p99 {q(.99)} max {cs[-1]}")
        # sequence: on-CPU time in order (ms), for runs of slow rounds
        print("on-CPU ms in order:", " ".join(f"{r['oncpu_us']/1000:.1f}" for r in rounds))


if __name__ == "__main__":
    main(sys.argv[1:])
