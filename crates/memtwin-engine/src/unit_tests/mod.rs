//! Unit tests that hold the engine to the kernel's behaviour, one file per engine module.
//!
//! Each test builds a small scenario written as TOML in the test, then either steps it through
//! [`Simulation`] and inspects `sim.kernel`, or drives [`Kernel`] functions directly where
//! that pins the behaviour down more precisely. Every scenario-level test ends by checking
//! the conservation invariants ([`Kernel::check_invariants`]).

mod blk_throttle;
mod blkdev;
mod boost;
mod cgroup;
mod vmscan_balance;
mod dcache;
mod delayacct;
mod elevator;
mod wbt;
mod fadvise;
mod fair;
mod filemap;
mod fs;
mod hostcal;
mod huge_memory;
mod list_lru;
mod madvise;
mod lru_gen;
mod memory;
mod memcontrol;
mod mlock;
mod page_writeback;
mod page_alloc;
mod sched_stats;
mod readahead;
mod rmap;
mod sched;
mod shmem;
mod swap;
mod swapfile;
mod swap_slots;
mod timer;
mod vcpu_stall;
mod vmscan;
mod sched_wakee;
mod sched_placement;
mod workingset;
mod xarray;
mod xarray_multi;
mod zswap;

use crate::kernel::Kernel;
use crate::mm_types::pg;
use crate::mmzone::LruList;
use crate::readahead::FileRaState;
use crate::types::{InodeId, MemcgId, PageId, PAGE_SIZE};
use crate::{Document, Simulation};

/// A simulation of the scenario written in `toml`.
pub(crate) fn sim(toml: &str) -> Simulation {
    let doc = Document::from_toml("unit-test.toml", toml).unwrap_or_else(|e| panic!("{e}"));
    let scn = doc.resolve(None, &[]).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(&scn)
}

/// Step `sim` to the end, calling `each` after every step. Returns the number of steps.
pub(crate) fn run_with(sim: &mut Simulation, mut each: impl FnMut(&Simulation)) -> usize {
    let mut n = 0;
    while sim.step() {
        n += 1;
        each(sim);
    }
    n
}

/// Step `sim` to the end.
pub(crate) fn run(sim: &mut Simulation) -> usize {
    run_with(sim, |_| {})
}

/// The first step of `res` named `step`, run by `task` (by any task when `None`).
pub(crate) fn step_of<'a>(res: &'a crate::SimResult, task: Option<&str>, step: &str) -> &'a crate::metrics::StepResult {
    res.steps
        .iter()
        .find(|s| s.name == step && task.is_none_or(|t| s.task == t))
        .unwrap_or_else(|| panic!("no step {}/{step}", task.unwrap_or("*")))
}

/// The metric `name` of step `st`.
pub(crate) fn metric_in(st: &crate::metrics::StepResult, name: &str) -> f64 {
    st.metrics.iter().find(|(m, _)| m == name).unwrap_or_else(|| panic!("no metric {name} in step {}", st.name)).1
}

/// The metric `name` of the steps named `step`, summed (a step an op names in a `repeat`
/// runs once per round); panics when there is no such step.
pub(crate) fn step_metric(res: &crate::SimResult, step: &str, name: &str) -> f64 {
    step_of(res, None, step);
    res.steps.iter().filter(|s| s.name == step).map(|s| metric_in(s, name)).sum()
}

/// The metric `name` of the first step named `step` that task `task` ran.
pub(crate) fn task_metric(res: &crate::SimResult, task: &str, step: &str, name: &str) -> f64 {
    metric_in(step_of(res, Some(task), step), name)
}

/// Pages charged to `m` and its descendants for page cache: the page counter less the pages
/// their dentries and inodes (slab) take.
/// Bytes of page-cache tree nodes charged to `m`.
pub(crate) fn xa_node_bytes(k: &Kernel, m: MemcgId) -> u64 {
    let n = k.mappings.iter().flat_map(|x| x.xa_nodes()).filter(|(_, n)| n.charged == m).count() as u64
        + k.mappings.iter().flat_map(|x| x.xa.shift6_nodes()).filter(|n| n.charged == m).count() as u64;
    n * crate::slab::RADIX_TREE_NODE_SIZE
}

pub(crate) fn page_usage(k: &Kernel, m: MemcgId) -> u64 {
    let mut sub = vec![];
    k.memcgs.subtree(m, &mut sub);
    k.memcgs.get(m).counter.usage - sub.iter().map(|c| k.memcgs.get(*c).kmem_pages).sum::<u64>()
}

/// Assert the engine's conservation invariants.
pub(crate) fn assert_invariants(k: &Kernel) {
    if let Err(e) = k.check_invariants() {
        panic!("invariant broken: {e}");
    }
}

/// The memcg of cgroup `path`.
pub(crate) fn memcg(sim: &Simulation, path: &str) -> MemcgId {
    sim.memcg(path)
        .unwrap_or_else(|| panic!("no cgroup {path}"))
}

/// The inode of file `path`.
pub(crate) fn inode(sim: &Simulation, path: &str) -> InodeId {
    sim.inode(path).unwrap_or_else(|| panic!("no file {path}"))
}

/// `read()` pages `first..first + n` of `inode` on a newly opened file with
/// `POSIX_FADV_RANDOM`, from a task in `memcg`: exactly the pages asked for are read, and
/// each of them is marked accessed once.
pub(crate) fn read_pages(k: &mut Kernel, inode: InodeId, first: u32, n: u32, memcg: MemcgId) {
    let mut ra = FileRaState::new(32);
    ra.random = true;
    let got = k
        .filemap_read(
            inode,
            first as u64 * PAGE_SIZE,
            n as u64 * PAGE_SIZE,
            &mut ra,
            memcg,
        )
        .expect("read failed");
    assert_eq!(got, n as u64 * PAGE_SIZE);
}

/// The page cached at `index` of `inode`.
pub(crate) fn page_at(k: &Kernel, inode: InodeId, index: u32) -> PageId {
    k.mappings[inode.idx()]
        .lookup(index)
        .unwrap_or_else(|| panic!("page {index} of inode {} is not cached", inode.0))
}

/// The LRU list `page` is on, if any.
pub(crate) fn lru_of(k: &Kernel, page: PageId) -> Option<LruList> {
    let p = &k.pages[page];
    p.test(pg::LRU).then(|| LruList::from_u8(p.lru()))
}

/// Size of `list` in the lruvec of `memcg`.
pub(crate) fn lru_size(k: &Kernel, memcg: MemcgId, list: LruList) -> u64 {
    k.memcg_lru_size(memcg, list)
}

/// Isolate the page at `index` of `inode` from its LRU list and evict it, as
/// `shrink_folio_list()` does with a clean page it decided to reclaim in limit reclaim of the
/// page's own memcg (after its `lru_add_drain()`: a page still in the CPU's `lru_add` batch
/// goes onto its list first).
pub(crate) fn isolate_and_evict(k: &mut Kernel, inode: InodeId, index: u32) {
    k.lru_add_drain();
    let p = page_at(k, inode, index);
    let v = k.folio_lruvec(p);
    k.lruvecs[v].del(&mut k.pages, &mut k.lru_stats, p);
    let target = if k.pages[p].memcg == MemcgId::NONE {
        MemcgId::ROOT
    } else {
        k.pages[p].memcg
    };
    k.evict(p, target);
}
