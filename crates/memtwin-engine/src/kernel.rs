//! The simulated kernel's state: one struct holding every subsystem's data, as the kernel's
//! globals and per-node structures would. Each mm/ file of the kernel becomes a module of this
//! crate that adds an `impl Kernel` block with the functions of that file, so a call chain in
//! the engine reads like the kernel's (`filemap_read` -> `page_cache_sync_ra` ->
//! `filemap_add_folio` -> `mem_cgroup_charge` -> `try_to_free_mem_cgroup_pages` -> ...).

use crate::blkdev::BlockDevice;
use crate::filemap::AddressSpace;
use crate::fs::Inode;
use crate::memcontrol::{CgroupVersion, MemcgTree};
use crate::mm_types::PageArena;
use crate::mmzone::Lruvec;
use crate::page_alloc::Zone;
use crate::profile::{CpuCost, KernelProfile, Policies};
use crate::types::{InodeId, MemcgId, Nanos};
use crate::vmstat::VmStat;

/// I/O done on behalf of the running context (`/proc/<pid>/io` read_bytes/write_bytes).
#[derive(Clone, Copy, Debug, Default)]
pub struct IoAcct {
    /// Bytes this context caused to be read from block devices.
    pub read_bytes: u64,
    /// Bytes this context caused to be written to block devices.
    pub write_bytes: u64,
    /// Pages found in the page cache.
    pub hits: u64,
    /// Pages not found in the page cache.
    pub misses: u64,
}

/// The whole simulated kernel.
#[derive(Debug)]
pub struct Kernel {
    /// The kernel era being modelled.
    pub profile: KernelProfile,
    /// Seed mechanisms switched on.
    pub policies: Policies,
    /// CPU cost table.
    pub cost: CpuCost,
    /// The virtual clock of the context that is running (a task during its syscall, or kswapd).
    pub now: Nanos,
    /// System CPU time accumulated by the running context.
    pub sys_ns: Nanos,
    /// Time the running context spent waiting for I/O.
    pub iowait_ns: Nanos,
    /// I/O accounting of the running context.
    pub io: IoAcct,
    /// `mem_map`: every page frame.
    pub pages: PageArena,
    /// One lruvec per memcg (one node); index = memcg index. Uncharged pages sit on the root's.
    pub lruvecs: Vec<Lruvec>,
    /// The memory cgroup hierarchy.
    pub memcgs: MemcgTree,
    /// The page cache of each inode; index = inode index.
    pub mappings: Vec<AddressSpace>,
    /// Files.
    pub inodes: Vec<Inode>,
    /// Directories (fs.rs): `/` first, parents before their children.
    pub dirs: Vec<crate::fs::Directory>,
    /// Directory paths to ids, for path lookup (`lookup_fast()` of the walk, in spirit).
    pub dir_index: std::collections::BTreeMap<String, crate::types::DirId>,
    /// Block devices.
    pub devices: Vec<BlockDevice>,
    /// The one memory zone of the one node (issue: zones and nodes come with the allocator).
    pub zone: Zone,
    /// /proc/vmstat and /proc/meminfo counters.
    pub vmstat: VmStat,
    /// Pages charged while some memcg was above memory.high during the running syscall
    /// (`current->memcg_nr_pages_over_high`).
    pub nr_pages_over_high: u64,
    /// kswapd's own CPU time.
    pub kswapd_ns: Nanos,
    /// Set while kswapd is the running context.
    pub in_kswapd: bool,
    /// Inodes with dirty pages, oldest first (the bdi's `b_dirty` list).
    pub dirty_inodes: Vec<InodeId>,
    /// Scratch list for memcg iteration, kept to avoid allocating in reclaim.
    pub(crate) scratch_memcgs: Vec<MemcgId>,
    /// The `shadow_nodes` list_lru, one list per memcg (index = memcg index).
    pub shadow_nodes: Vec<crate::workingset::ShadowNodeList>,
    /// Where the last shared-iterator limit-reclaim walk of each target stopped
    /// (`mz->iter.position`), index = target memcg; `MemcgId::NONE` = at the start.
    pub reclaim_iter: Vec<MemcgId>,
    /// Mounted file systems, each with its two memcg-aware list_lrus.
    pub superblocks: Vec<crate::list_lru::SuperBlock>,
    /// `nr_cpu_ids`: possible CPUs, each with a copy of every percpu allocation.
    pub nr_cpu_ids: u32,
    /// NUMA nodes (`nr_node_ids`).
    pub nr_nodes: u32,
    /// Kernel memory outside the page cache: /proc/meminfo `Percpu` and `Slab`.
    pub kmem: crate::slab::KmemStat,
    /// Page accesses simulated (hits + misses + writes), for the benchmark.
    pub page_events: u64,
}

impl Kernel {
    /// A kernel with `ram_pages` of RAM of which `reserved_pages` are taken by the kernel itself.
    pub fn new(profile: KernelProfile, policies: Policies, version: CgroupVersion, ram_pages: u64, reserved_pages: u64) -> Kernel {
        let managed = ram_pages.saturating_sub(reserved_pages);
        let zone = Zone::new(managed, &profile);
        Kernel {
            profile,
            policies,
            cost: CpuCost::reference(),
            now: 0,
            sys_ns: 0,
            iowait_ns: 0,
            io: IoAcct::default(),
            pages: PageArena::with_capacity(0),
            lruvecs: vec![Lruvec::default()],
            memcgs: MemcgTree::new(version),
            mappings: vec![],
            inodes: vec![],
            dirs: vec![crate::fs::Directory::root()],
            dir_index: [("/".to_string(), crate::types::DirId::ROOT)].into_iter().collect(),
            devices: vec![],
            zone,
            vmstat: VmStat::default(),
            nr_pages_over_high: 0,
            kswapd_ns: 0,
            in_kswapd: false,
            dirty_inodes: vec![],
            scratch_memcgs: vec![],
            shadow_nodes: vec![Default::default()],
            reclaim_iter: vec![MemcgId::NONE],
            kmem: Default::default(),
            superblocks: vec![],
            nr_cpu_ids: 1,
            nr_nodes: 1,
            page_events: 0,
        }
    }

    /// Spend `ns` of system CPU time in the running context.
    #[inline(always)]
    pub fn cpu(&mut self, ns: u64) {
        self.now += ns;
        self.sys_ns += ns;
    }

    /// Block the running context until `t` (I/O wait).
    #[inline]
    pub fn wait_until(&mut self, t: Nanos) {
        if t > self.now {
            self.iowait_ns += t - self.now;
            self.now = t;
        }
    }

    /// `mem_cgroup_lruvec()`: index of the lruvec a page charged to `memcg` lives on.
    /// Uncharged pages live on the root memcg's lruvec.
    #[inline(always)]
    pub fn lruvec_of(&self, memcg: MemcgId) -> usize {
        if memcg == MemcgId::NONE {
            0
        } else {
            memcg.idx()
        }
    }

    /// Pages resident in the page cache.
    pub fn nr_file_pages(&self) -> u64 {
        self.vmstat.nr_file_pages
    }

    /// Host memory held by the simulation's per-page structures (page arena and page-cache
    /// slots), for the bytes-per-resident-page benchmark.
    pub fn host_bytes(&self) -> usize {
        self.pages.host_bytes()
            + self.mappings.iter().map(|m| m.host_bytes()).sum::<usize>()
            + self.shadow_nodes.iter().map(|l| l.nodes.capacity() * 12).sum::<usize>()
    }
}
