//! memtwin's engine: a page-by-page model of Linux memory management.
//!
//! Modules are named after the kernel files whose behaviour they model; each public
//! function's documentation names the kernel function it stands for. The engine is pure: it
//! reads nothing and writes nothing but what it is given, and the same scenario and seed
//! always give the same result. See ARCHITECTURE.md at the repository root for the path of
//! one simulated read through these modules.
#![warn(missing_docs)]

pub mod blk_throttle;
pub mod blkdev;
pub mod cgroup;
pub mod compaction;
pub mod dcache;
pub mod delayacct;
pub mod fadvise;
pub mod fair;
pub mod filemap;
pub mod flex_proportions;
pub mod huge_memory;
pub mod fs;
pub mod hostcal;
pub mod invariants;
pub mod kernel;
pub mod list_lru;
pub mod lru_gen;
pub mod madvise;
pub mod memcontrol;
pub mod memory;
pub mod mlock;
pub mod msync;
pub mod oom_kill;
pub mod metrics;
pub mod mm_types;
pub mod mmzone;
pub mod page_alloc;
pub mod page_writeback;
pub mod profile;
pub mod psi;
pub mod readahead;
pub mod rmap;
pub mod scenario;
pub mod slab;
pub mod sched;
pub mod shmem;
pub mod swap;
pub mod timer;
pub mod trace;
pub mod swapfile;
pub mod swap_slots;
pub mod zswap;
pub mod truncate;
pub mod types;
pub mod vmscan;
pub mod vcpu_stall;
pub mod vmstat;
pub mod workingset;
pub mod xarray;

pub use scenario::{Document, Scenario, ScenarioError, ScenarioErrors};
pub use sched::{simulate, Interrupted, RunError, SimResult, Simulation, TraceStats};
#[cfg(test)]
mod unit_tests;
