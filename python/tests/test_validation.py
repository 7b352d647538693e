"""The validation set: the engine against recorded real-kernel runs (scenarios/validation/),
and every seed scenario against its published figures. Each scenario declares its targets
in [published.checks]; this holds the engine to all of them."""

import glob
import os

import pytest

import memtwin
from memtwin.published import evaluate

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENARIOS = sorted(glob.glob(os.path.join(ROOT, "scenarios", "seed*.toml")) + glob.glob(os.path.join(ROOT, "scenarios", "validation", "*.toml")))
WITH_TARGETS = [p for p in SCENARIOS if memtwin.load(p).published.get("checks")]
RECORDED = [p for p in SCENARIOS if memtwin.load(p).doc.table("validation") is not None]

# Known disagreements with the recorded real runs, each with what causes it. The test fails
# when a metric leaves tolerance that is not listed here, and when a listed one comes back
# within tolerance (then remove it from this list).
KNOWN_OUT = {
    # Host kernel 6.18 reads ext4 files into large folios (memory.stat pgpgin counts one
    # charge per folio: 36409 charges for 691k pages read in a 1 GiB run, about 19 pages per
    # folio) and readahead ramps up folio orders; the engine has order-0 pages only
    # (ARCHITECTURE.md). Since readahead batches are locked from the moment their pages are
    # added (as in the kernel), the engine re-reads 4.3x here, as Debian's 6.1 (order-0 ext4)
    # does in QEMU, where the host's 6.18 re-reads 2.7x (716.5 MB). Tried 2026-11-22: an image
    # made with `mkfs.ext4 -O encrypt` keeps 6.18's ext4 on 4 KiB folios (memory.stat pgpgin
    # 32921 charges for a 128 MiB file, against 390 without), and then this run reads 1.166 GB
    # against the engine's 1.148 GB (-1.5%). Not adopted yet: with that image the host finds
    # directory 2 already clean at host-dir-eviction's "clean 2" step and drops all of it (the
    # engine drops none), 11 new disagreements whose cause is not found (a DONTNEED right after
    # writing 20 files on either image drops nothing, measured the same day).
    ("host-tight-ra8192.toml", "default", "cat", "read_bytes"),
    # Same cause suspected (reclaim frees whole large folios of directory 1): the engine
    # predicts grep re-reads 18.0 MB at X = 20 without cleaning where the kernel re-read
    # 21.0 MB (with cleaning both read 21.0 MB since dirty pages are now rotated as
    # lru_deactivate_file() does). On 6.1 in QEMU the same step agrees (-9.7%).
    ("host-dir-eviction.toml", "keep-20", "grep data 1/*", "read_bytes"),
    # fadvise(DONTNEED) on directory 2 right after cp (dirty pages): in the TCG guest a third of
    # the pages are written back (QEMU's throttle lets a burst of bps/10 through) before the
    # invalidation walk reaches them and are dropped (usage 41.9 -> 29.3 MB at X = 20); the
    # engine's writeback takes the device's time and drops none. Re-run with write_bw = 10M,
    # the guest drops none either (resident stays 10240 pages): an emulation timing artifact.
    # No QEMU setting makes the device faithful here: without bps-write-max the write bucket
    # holds bps/10 (40 MB at 400M, more than directory 2's 20 or 28 MB, so its writeback is not
    # throttled at all); QEMU refuses a bps-write-max below bps-write, and with one the bucket
    # is max x max-length >= 1 s of bandwidth; and the throttle runs on the host's real-time
    # clock (QEMU_CLOCK_REALTIME) while the TCG CPUs run many times slower than real time.
    ("qemu61-dir-eviction.toml", "clean-20", "clean 2", "memcg.usage_bytes"),
    ("qemu61-dir-eviction.toml", "clean-20", "clean 2", "resident_pages"),
    ("qemu61-dir-eviction.toml", "clean-28", "clean 2", "memcg.usage_bytes"),
    ("qemu61-dir-eviction.toml", "clean-28", "clean 2", "resident_pages"),
}


def test_there_is_a_validation_set():
    names = [os.path.basename(p) for p in SCENARIOS]
    assert "dying-cgroups-6.1-qemu.toml" in names
    assert sum(n.startswith("list-lru-6.1-qemu") for n in names) == 4
    assert sum(n.startswith("host-") for n in names) == 7
    assert sum(n.startswith("qemu61-") for n in names) == 7


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: os.path.relpath(p, ROOT))
def test_recorded_real_runs_agree_within_tolerance(path):
    from memtwin.validate import validate_file

    rows, outcomes, skipped = validate_file(path, None, True, out=lambda *_: None)
    assert rows, "nothing was compared"
    name = os.path.basename(path)
    out = {(name, r.variant, r.step, r.metric) for r in rows if not r.ok}
    known = {k for k in KNOWN_OUT if k[0] == name}
    assert out - known == set(), f"new disagreements: {sorted(out - known)}"
    assert known - out == set(), f"now within tolerance, remove from KNOWN_OUT: {sorted(known - out)}"


@pytest.mark.parametrize("path", WITH_TARGETS, ids=lambda p: os.path.relpath(p, ROOT))
def test_every_declared_target_is_met(path):
    scn = memtwin.load(path)
    variants = [v for v, _ in scn.variants()] or [None]
    results = {v or "default": memtwin.run(scn, variant=v) for v in variants}
    outcomes = evaluate(scn.published, results, path)
    assert outcomes, "the scenario declares no targets"
    missed = [f"{o.name}: {o.detail}" for o in outcomes if not o.ok]
    assert not missed, "\n".join(missed)
