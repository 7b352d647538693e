"""`python3 -m memtwin.kernelbuild_check`: every patch series of kernel/patches/ applies to Debian's
linux-source-6.1 with `patch --dry-run`, alone and all together in name order (CI; see .ci/run).
Only the files the patches touch are unpacked from the tarball, into a temporary directory."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile

from memtwin import kernelbuild
from memtwin.real import RealError


def touched(series: list) -> set:
    out = set()
    for name in series:
        for f in kernelbuild.patch_files(name):
            with open(f) as fh:
                out.update(m.group(1) for m in re.finditer(r"^\+\+\+ b/(\S+)", fh.read(), re.M))
    return out


def check(out=print) -> int:
    series = kernelbuild.available_patches()
    if not series:
        out("no patch series in kernel/patches")
        return 1
    files = sorted(touched(series))
    with tempfile.TemporaryDirectory(prefix="memtwin-src-") as tmp:
        r = subprocess.run(["tar", "xf", kernelbuild.SOURCE_TARBALL, "-C", tmp, "--strip-components=1"]
                           + ["linux-source-6.1/" + f for f in files], capture_output=True, text=True)
        if r.returncode != 0:
            out(f"tar could not unpack {', '.join(files)} from {kernelbuild.SOURCE_TARBALL}: {r.stderr.strip()[-300:]}")
            return 1
        bad = 0
        for combo in [[s] for s in series] + [series]:
            try:
                n = len(kernelbuild.dry_run(combo, tmp))
                out(f"ok    {' + '.join(combo)}: {n} patch(es) apply to {kernelbuild.SOURCE_PACKAGE} {kernelbuild.source_version()}")
            except RealError as e:
                bad += 1
                out(f"FAIL  {' + '.join(combo)}: {e}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(check())
