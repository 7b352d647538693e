#!/usr/bin/env python3
"""hog23: the kernel-mode CPU samples (prof.bt, 1999 Hz) of host-stall-hog-swap's three tasks, by task and by
category of the sampled kernel stack, in windows from the tasks' common wake-up (cfs23/runnable.py's find_tasks()
and classify()): usage prof_first.py BT_OUT [--windows 0,60,120,WINDOW_MS]."""
import sys, collections, os
sys.path.insert(0, os.environ.get("CFS23", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cfs23")))
import runnable

CATS = [("swap-out/reclaim", ("shrink_", "try_to_free", "reclaim", "pageout", "swap_writeout", "__swap_writepage", "folio_referenced", "isolate_")),
        ("swap-in", ("swap_read", "swapin", "do_swap_page", "swap_cluster_readahead", "read_swap_cache")),
        ("memcg charge", ("charge", "try_charge", "memcg")),
        ("page alloc/free", ("alloc_pages", "rmqueue", "free_pages", "free_unref", "__folio_alloc", "get_page_from_freelist", "folios_put", "release_pages")),
        ("page clear/copy", ("clear_page", "copy_user", "copy_page", "_copy_to_user", "_copy_from_user", "rep_movs", "memcpy", "copyout", "copyin")),
        ("readahead/filemap read", ("filemap_", "page_cache_ra", "readahead", "read_pages", "ext4_mpage_readpages")),
        ("write path", ("ext4_da_write", "generic_perform_write", "ext4_buffered_write", "balance_dirty", "jbd2", "ext4_journal", "block_write")),
        ("block/throttle", ("blk_", "submit_bio", "bio_", "throtl", "loop_")),
        ("fault/mm", ("handle_mm_fault", "do_anonymous", "do_user_addr_fault", "__handle_mm_fault", "zap_", "unmap_", "mmap", "munmap", "vma")),
        ("sched/irq", ("schedule", "__schedule", "irq", "softirq", "finish_task_switch", "ttwu", "try_to_wake_up"))]

def cat(stack):
    for name, keys in CATS:
        if any(k in f for f in stack for k in keys):
            return name
    return "other: " + (stack[0] if stack else "?")

def main():
    path = sys.argv[1]
    wins = [float(x) for x in sys.argv[sys.argv.index("--windows") + 1].split(",")] if "--windows" in sys.argv else [0, 60, 120, 300]
    ev = runnable.load(path)
    start, pids = runnable.find_tasks(ev)
    names, _ = runnable.classify(ev, pids, start)
    byp = {v: k for k, v in names.items()}
    samples = []
    cur = None
    for line in open(path):
        if line.startswith("P "):
            p = line.split()
            cur = [int(p[1]), int(p[2]), []]
            samples.append(cur)
        elif cur is not None and line.startswith("        ") and line.strip():
            cur[2].append(line.strip().split("+")[0])
        elif line.strip():
            cur = None
    print(f"# {path}: start {start} ns; " + ", ".join(f"{k} pid {v}" for k, v in names.items()) + f"; {len(samples)} samples in all")
    for a, b in zip(wins, wins[1:]):
        t0, t1 = start + a * 1e6, start + b * 1e6
        print(f"\n## {a:.0f}-{b:.0f} ms: samples (1999 Hz: 0.5 ms each) by task and category")
        for task in ("copy", "hog", "probe"):
            c = collections.Counter(cat(s[2]) for s in samples if s[1] == names[task] and t0 <= s[0] < t1)
            n = sum(c.values())
            print(f"  {task:5} {n:4} samples ({n / 1.999:.1f} ms): " + ", ".join(f"{k} {v}" for k, v in c.most_common(8)))

main()
