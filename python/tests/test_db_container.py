"""scenarios/db-container-mmap.toml (issue 20): the database container sized with and without swap.

The scenario's swap area is there for every variant; memory.swap.max 0 (the base) is a container
without swap, where the anonymous buffers are not reclaimable (mm/vmscan.c `get_scan_count()`,
6.1: `can_reclaim_anon_pages()` -> `mem_cgroup_get_nr_swap_pages()` is 0, SCAN_FILE), and the
swap-* variants allow 256M (mm/memcontrol.c `__mem_cgroup_try_charge_swap()`, 6.1: a swap slot is
charged to the memcg's memory.swap.max), so reclaim at swappiness 60 swaps the idle buffers out."""

from pathlib import Path

import memtwin

SCN = Path(__file__).resolve().parents[2] / "scenarios" / "db-container-mmap.toml"


def _total(r, metric):
    return sum(v for v in r.steps[metric] if v == v)  # NaN-free sum over the steps


def test_the_swap_variant_swaps_and_the_no_swap_one_does_not():
    noswap = memtwin.run(SCN, variant="limit-384M")
    swap = memtwin.run(SCN, variant="swap-384M")
    assert _total(noswap, "vmstat.pswpout") == 0
    assert _total(noswap, "vmstat.pswpin") == 0
    assert noswap.steps["memcg.swap_bytes"].max() == 0
    assert _total(swap, "vmstat.pswpout") > 0
    # the hot 64M of buffers, touched every serve round, come back in (swap_readpage())
    assert _total(swap, "vmstat.pswpin") > 0
    # memory.swap.max 256M holds the memcg's swap charge
    assert 0 < swap.steps["memcg.swap_bytes"].max() <= 256 << 20
    # where the working set stops fitting: 384M without swap is below the hot set plus the
    # buffers (448M) and thrashes the mapped file; with swap the idle buffers leave and the
    # hot set fits (engine 2026-11-30: 208,034 vs 61,097 major faults)
    assert _total(swap, "vmstat.pgmajfault") < _total(noswap, "vmstat.pgmajfault") / 2


def test_zswap_variant_compresses_in_front_of_the_swap():
    z = memtwin.run(SCN, variant="zswap-384M")
    # zswap_frontswap_store() (6.1) takes every page: 1 KiB of random bytes compresses to fit
    # the pool, which stays below max_pool_percent 20 of 8G, so nothing reaches the device
    assert _total(z, "vmstat.zswpout") > 0
    assert _total(z, "vmstat.zswpin") > 0
    assert _total(z, "vmstat.pswpout") == 0


def test_swap_max_0_is_the_container_without_swap():
    with_area = memtwin.run(SCN, variant="limit-512M")
    without = memtwin.run(SCN, variant="limit-512M", sets=["machine.swap=0"])
    for m in ("elapsed_s", "read_bytes", "vmstat.pgmajfault", "vmstat.workingset_refault_file"):
        assert list(with_area.steps[m]) == list(without.steps[m]), m


def test_output_is_deterministic():
    a = memtwin.run(SCN, variant="swap-512M")
    b = memtwin.run(SCN, variant="swap-512M")
    assert _total(a, "vmstat.pswpout") > 0
    assert a.raw == b.raw
