"""Seed 001 reproduced: 10k memcgs and 10k tmpfs mounts on 2 nodes, as `free` sees them.

Muchun Song's "Optimize list lru memory consumption" (v6, Feb 2022, merged in 5.18). The cover
letter's table of `free`'s used memory: 24464 MB without the series, 21957 MB after patch 1,
6895 MB after patch 10, 4367 MB after patch 12 (MB read as MiB: 1 MB = 1024 kB).

The tolerances are the issue's, written here on purpose rather than read from the scenario's
[published.checks], so that editing the scenario cannot loosen them."""

from __future__ import annotations

from pathlib import Path

import pytest

import memtwin

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "scenarios" / "seed001-list-lru.toml"

STEP = "10k memcgs, 10k mounts"
VARIANTS = ["without", "patch1", "patch10", "patch12"]
PUBLISHED_USED_MB = {"without": 24464, "patch1": 21957, "patch10": 6895, "patch12": 4367}
PUBLISHED_SAVED_MB = [2507, 15062, 2528]  # between consecutive rows of the table
KB_PER_MB = 1024
REL_TOL = 0.15
# kmem ids 0..=10000 grow memcg_nr_cache_ids to clamp(2 (id + 1), 4, 65535) whenever one does
# not fit: 4, 10, 22, ..., 6142, then 12286 for id 6142.
NR_CACHE_IDS = 12286
HOST_BYTES_MAX = 512 << 20


@pytest.fixture(scope="module")
def runs():
    return {v: memtwin.run(SEED, variant=v) for v in VARIANTS}


def used_kb(r) -> float:
    return r.metric(STEP, "free.used_kB")


def test_the_scenario_is_the_seed():
    scn = memtwin.load(SEED)
    assert scn.name == "seed001-list-lru"
    assert [v for v, _ in scn.variants()] == VARIANTS


@pytest.mark.parametrize("variant", VARIANTS)
def test_setup(variant, runs):
    r = runs[variant]
    assert (r.info["profile"], r.info["cgroup"]) == ("linux-5.17", "v2")
    assert r.raw["nr_errors"] == 0, r.raw["errors"]
    assert list(r.steps.index) == [STEP]
    # 10k memcgs under /test, and /test itself.
    assert r.metric(STEP, "cgroup.nr_descendants") == 10001
    # 10k mounts and the booted system's 40 superblocks.
    assert r.metric(STEP, "list_lru.superblocks") == 10040


@pytest.mark.parametrize("variant", VARIANTS)
def test_used_memory_is_within_15_percent_of_the_seed(variant, runs):
    got = used_kb(runs[variant])
    want = PUBLISHED_USED_MB[variant] * KB_PER_MB
    assert abs(got - want) / want <= REL_TOL, (variant, got, want, got / want - 1)


@pytest.mark.parametrize("i", range(3))
def test_each_step_of_the_series_saves_what_the_seed_reports(i, runs):
    a, b = VARIANTS[i], VARIANTS[i + 1]
    saved = used_kb(runs[a]) - used_kb(runs[b])
    want = PUBLISHED_SAVED_MB[i] * KB_PER_MB
    assert abs(saved - want) / want <= REL_TOL, (a, b, saved / KB_PER_MB, PUBLISHED_SAVED_MB[i])


def test_the_published_savings_are_the_differences_of_the_published_rows():
    used = [PUBLISHED_USED_MB[v] for v in VARIANTS]
    assert [x - y for x, y in zip(used, used[1:])] == PUBLISHED_SAVED_MB


@pytest.mark.parametrize("variant", VARIANTS)
def test_memcg_nr_cache_ids(variant, runs):
    assert runs[variant].metric(STEP, "list_lru.nr_cache_ids") == NR_CACHE_IDS


def test_the_series_shrinks_list_lrus_at_every_step(runs):
    kb = [runs[v].metric(STEP, "list_lru.kB") for v in VARIANTS]
    assert kb == sorted(kb, reverse=True) and len(set(kb)) == 4, kb


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_run_stays_cheap(variant, runs):
    """Eager layouts are computed, never allocated: 10k memcgs x 10k mounts must not cost the
    host gigabytes."""
    host = runs[variant].engine["host_bytes"]
    assert 0 < host < HOST_BYTES_MAX, host
