"""The zipf object trace of README's libCacheSim comparison, in libCacheSim's oracleGeneral format
(zstd): `python3 lab/make_zipf_oracle.py OUT.oracleGeneral.zst [OBJECTS REQUESTS ALPHA SEED]`
(defaults 20000 400000 0.8 18; every object 4096 bytes; 1000 requests a second)."""

import sys

import numpy as np
import zstandard

out = sys.argv[1]
n, r, a, seed = (int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])) if len(sys.argv) > 5 else (20000, 400000, 0.8, 18)
rng = np.random.default_rng(seed)
p = np.arange(1, n + 1, dtype=float) ** -a
p /= p.sum()
ids = rng.choice(n, size=r, p=p) + 1
rec = np.zeros(r, dtype=np.dtype([("t", "<u4"), ("id", "<u8"), ("size", "<u4"), ("next", "<i8")]))
rec["t"] = np.arange(r) // 1000
rec["id"] = ids
rec["size"] = 4096
rec["next"] = -1
with open(out, "wb") as f:
    f.write(zstandard.ZstdCompressor(level=3).compress(rec.tobytes()))
print(f"{out}: {r} requests of {len(np.unique(ids))} objects")
