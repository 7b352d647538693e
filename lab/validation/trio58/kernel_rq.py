#!/usr/bin/env python3
"""trio58: the kernel's loop read requests by size (ct57's r1/r2 raw traces, block_rq_issue on 7,0).

The loop queue keeps BLK_MAX_SEGMENTS (128) and max_sectors_kb 1280 (2560 sectors); a readahead bio of order-0
folios is at most BIO_MAX_VECS (256) pages. So a loop read request of exactly 1024 sectors is 128 pages in 128
segments (no two pages physically adjacent, or a bio's end), 1025-2048 sectors of order-0 pages holds some
adjacent pages (bvec_try_merge_page() merged them), 2560 is max_sectors (large folios: few segments). The
tracepoint has no nr_phys_segments, so this is bytes per request only.

    python3 lab/validation/trio58/kernel_rq.py lab/validation/ct57/r1/raw.txt.xz ...
"""
import collections
import lzma
import re
import sys

RQ = re.compile(r"block_rq_issue: 7,0 (\S+) (\d+) \(\S*\) (\d+) \+ (\d+)")
CLASSES = [("<512", lambda n: n < 512), ("512", lambda n: n == 512), ("513-1023", lambda n: 512 < n < 1024),
           ("1024", lambda n: n == 1024), ("1025-1279", lambda n: 1024 < n < 1280),
           ("1280-2047", lambda n: 1280 <= n < 2048), ("2048", lambda n: n == 2048),
           ("2049-2559", lambda n: 2048 < n < 2560), ("2560", lambda n: n == 2560)]


def main():
    for path in sys.argv[1:]:
        c, b = collections.Counter(), collections.Counter()
        with lzma.open(path, "rt") as f:
            for line in f:
                m = RQ.search(line)
                if not m or "R" not in m.group(1) or "W" in m.group(1):
                    continue
                n = int(m.group(4))
                k = next(name for name, test in CLASSES if test(n))
                c[k] += 1
                b[k] += n * 512
        tot, totb = sum(c.values()), sum(b.values())
        print(f"{path}: {tot} loop read requests, {totb / 1e6:.0f} MB (whole trace: the runner's calibration reads too)")
        for name, _ in CLASSES:
            print(f"  {name:>10} sectors: {c[name]:5d} requests {b[name] / 1e6:7.1f} MB ({100 * b[name] / totb:4.1f}%)")


if __name__ == "__main__":
    main()
