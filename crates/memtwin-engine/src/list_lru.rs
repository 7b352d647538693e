//! Memcg-aware list_lrus (mm/list_lru.c) and the superblocks that own them (fs/super.c).
//!
//! Every superblock registers two memcg-aware list_lrus, `s_dentry_lru` and `s_inode_lru`
//! (`alloc_super()`). How much memory a list_lru needs for memcgs depends on the era's layout
//! (`ListLruLayout`), the seed-001 series (Muchun Song, merged in 5.18):
//!
//! - `Eager` (before the series): per list_lru and per node a `list_lru_memcg` array of
//!   `memcg_nr_cache_ids` pointers (kvmalloc) and one `list_lru_one` (kmalloc-32) per index,
//!   all allocated up front and resized for every list_lru when a new kmem id does not fit;
//! - `Transposed` (after patch 1): one pointer array per list_lru, and per index one
//!   `list_lru_per_memcg` holding a `list_lru_one` for every node;
//! - `LazyArray` (after patch 10): the per-memcg entries are allocated on the first insert by
//!   that memcg (and its ancestors), the pointer array stays;
//! - `Lazy` (after patch 12, v5.18): an xarray indexed by kmem id replaces the array.
//!
//! Eager layouts are computed, never allocated: memory = list_lrus x f(N, nodes), so 10k
//! memcgs x 10k mounts costs nothing to simulate.

use crate::kernel::Kernel;
use crate::slab::{kmalloc_size, kvmalloc_size};
use crate::types::MemcgId;
use std::collections::BTreeMap;

/// The list_lru memory layout of a kernel era (see the module documentation).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ListLruLayout {
    /// Before the seed-001 series.
    Eager,
    /// After its patch 1.
    Transposed,
    /// After its patch 10.
    LazyArray,
    /// After its patch 12 (v5.18 on).
    Lazy,
}

/// The list_lru index of objects charged to no memcg (the root's own list, `-1` in the
/// kernel); kmem ids of memcgs start at 0.
pub const ROOT_KID: u32 = u32::MAX;

/// `sizeof(struct list_lru_one)`: a list head and a long count.
pub const LIST_LRU_ONE: u64 = 24;
/// `sizeof(struct list_lru_node)`, cache-line aligned.
pub const LIST_LRU_NODE: u64 = 64;
/// `struct rcu_head` heading the pointer array and the per-memcg entry.
pub const RCU_HEAD: u64 = 16;
/// An xarray node (`radix_tree_node` cache object) covering 64 indices.
pub const XA_NODE: u64 = 576;
/// Slab of one tmpfs superblock and its mount: `super_block` (kmalloc-2k), `shmem_sb_info`
/// (kmalloc-192), the root inode and dentry, `struct mount` (320-byte objects, 25 to an 8 KiB
/// slab: 328), `mountpoint` (kmalloc-64), the device name (kmalloc-16); the two list_lrus'
/// node arrays are counted by `account_list_lrus`. pahole on 5.17 and 6.1, slab footprints
/// from /proc/slabinfo on 6.1.
pub const SUPERBLOCK_SLAB: u64 =
    2048 + 192 + crate::profile::SHMEM_INODE_SLAB + crate::profile::DENTRY_SLAB + 328 + 64 + 16 + MOUNT_OTHER_SLAB;
/// Slab a mount adds that no structure above accounts for, measured: on Debian 6.1 in QEMU,
/// /proc/slabinfo grows by 2 `vmap_area` objects (64 B) and 28 `radix_tree_node` objects
/// (584 B) per 500 tmpfs mounts. Their allocation sites are not identified (likely percpu
/// chunk areas and the mount-id IDR). The list_lru validation scenarios use the same
/// measurement, so for this part they are not independent evidence.
pub const MOUNT_OTHER_SLAB: u64 = 2 * 64 + 584 * 28 / 500;
/// The mount point directory a mount needs (`mkdir`): a dentry and an inode on the parent
/// file system (tmpfs sizes).
pub const MOUNTPOINT_SLAB: u64 = crate::profile::DENTRY_SLAB + crate::profile::SHMEM_INODE_SLAB;
/// Percpu of a superblock and its mount, per CPU: `sb_writers` (3 x 4), `mnt_pcp` (8) and
/// shmem's `used_blocks` counter (4).
pub const SUPERBLOCK_PERCPU: u64 = 24;

/// One memcg-aware list_lru.
#[derive(Clone, Debug, Default)]
pub struct ListLru {
    /// Items per kmem id (`ROOT_KID` for the root's own list).
    pub items: BTreeMap<u32, u64>,
    /// Kmem ids with a per-memcg entry allocated (lazy layouts only).
    pub entries: BTreeMap<u32, ()>,
    /// Xarray nodes the `Lazy` layout's `xa` needs for `entries`: how many distinct
    /// 64-index ranges they fall in (kept by [`ListLru::insert_entry`] and
    /// [`ListLru::remove_entry`], so that accounting does not walk every memcg).
    pub entry_nodes: u64,
}

impl ListLru {
    /// Whether any kmem id of `k`'s 64-index xarray node other than `k` has an entry.
    fn node_has_other(&self, k: u32) -> bool {
        let lo = k & !63;
        let hi = lo | 63;
        self.entries.range(lo..=hi).any(|(&e, _)| e != k)
    }

    /// `xa_store()` of a per-memcg entry for kmem id `k`; whether it was new.
    pub fn insert_entry(&mut self, k: u32) -> bool {
        if self.entries.contains_key(&k) {
            return false;
        }
        if !self.node_has_other(k) {
            self.entry_nodes += 1;
        }
        self.entries.insert(k, ());
        true
    }

    /// `xa_erase()` of kmem id `k`'s entry; whether there was one.
    pub fn remove_entry(&mut self, k: u32) -> bool {
        if self.entries.remove(&k).is_none() {
            return false;
        }
        if !self.node_has_other(k) {
            self.entry_nodes -= 1;
        }
        true
    }
}

/// A mounted file system instance.
#[derive(Clone, Debug)]
pub struct SuperBlock {
    /// Mount point.
    pub path: String,
    /// File-system type (`tmpfs`, `ext4`, ...).
    pub fs: String,
    /// `s_dentry_lru`.
    pub dentry_lru: ListLru,
    /// `s_inode_lru`.
    pub inode_lru: ListLru,
    /// Unused cached files, oldest first (the order of `s_dentry_lru`); stale entries are
    /// skipped by the shrinker.
    pub unused: std::collections::VecDeque<crate::types::InodeId>,
    /// A tmpfs superblock's `huge=` (`shmem_sb_info.huge`, mm/shmem.c).
    pub shmem_huge: crate::shmem::ShmemHuge,
}

impl Kernel {
    fn lazy(&self) -> bool {
        matches!(self.profile.list_lru_layout, ListLruLayout::LazyArray | ListLruLayout::Lazy)
    }

    /// Bytes (slab, vmalloc) of one list_lru's memcg-independent part plus what the eager
    /// layouts allocate for `n` kmem ids.
    pub fn list_lru_fixed_bytes(&self, n: u64) -> (u64, u64) {
        let nodes = self.nr_nodes as u64;
        let node_array = kmalloc_size(nodes * LIST_LRU_NODE);
        match self.profile.list_lru_layout {
            ListLruLayout::Eager => {
                let (s, v) = kvmalloc_size(RCU_HEAD + 8 * n);
                (node_array + nodes * (s + n * kmalloc_size(LIST_LRU_ONE)), nodes * v)
            }
            ListLruLayout::Transposed => {
                let (s, v) = kvmalloc_size(RCU_HEAD + 8 * n);
                (node_array + s + n * kmalloc_size(RCU_HEAD + nodes * LIST_LRU_ONE), v)
            }
            ListLruLayout::LazyArray => {
                let (s, v) = kvmalloc_size(RCU_HEAD + 8 * n);
                (node_array + s, v)
            }
            ListLruLayout::Lazy => (node_array, 0),
        }
    }

    /// Bytes of one lazily allocated per-memcg entry (`list_lru_per_memcg`).
    pub fn list_lru_entry_bytes(&self) -> u64 {
        kmalloc_size(RCU_HEAD + self.nr_nodes as u64 * LIST_LRU_ONE)
    }

    /// Recompute the kernel-memory total of every list_lru from the layout's formula and the
    /// lazily allocated entries.
    pub fn account_list_lrus(&mut self) {
        let nr_lrus = 2 * self.superblocks.len() as u64;
        let (s, v) = self.list_lru_fixed_bytes(self.memcgs.nr_cache_ids as u64);
        let mut slab = nr_lrus * s;
        if self.lazy() {
            let entry = self.list_lru_entry_bytes();
            for sb in &self.superblocks {
                for lru in [&sb.dentry_lru, &sb.inode_lru] {
                    slab += lru.entries.len() as u64 * entry;
                    if self.profile.list_lru_layout == ListLruLayout::Lazy {
                        slab += lru.entry_nodes * XA_NODE;
                    }
                }
            }
        }
        let (slab, other) = if self.profile.kmalloc_large_in_slab { (slab + nr_lrus * v, 0) } else { (slab, nr_lrus * v) };
        self.kmem.slab = self.kmem.slab - self.kmem.list_lru_slab + slab;
        self.kmem.other = self.kmem.other - self.kmem.list_lru_other + other;
        self.kmem.list_lru_slab = slab;
        self.kmem.list_lru_other = other;
    }

    /// `memcg_update_all_list_lrus()`: a new kmem id does not fit; every list_lru's arrays
    /// grow to `new` entries (`memcg_nr_cache_ids`, which never shrinks).
    pub fn memcg_update_all_list_lrus(&mut self, new: u32) {
        if new > self.memcgs.nr_cache_ids {
            self.memcgs.nr_cache_ids = new;
            self.account_list_lrus();
        }
    }

    /// `alloc_super()` + `prealloc_shrinker()`: mount a file system at `path`, with its two
    /// memcg-aware list_lrus and its memcg-aware shrinker, plus the superblock's own objects
    /// (see `SUPERBLOCK_SLAB`, `SUPERBLOCK_PERCPU`).
    pub fn mount(&mut self, path: &str, fs: &str) {
        self.superblocks.push(SuperBlock {
            path: path.to_string(),
            fs: fs.to_string(),
            dentry_lru: ListLru::default(),
            inode_lru: ListLru::default(),
            unused: Default::default(),
            shmem_huge: Default::default(),
        });
        self.kmem.superblock_slab += SUPERBLOCK_SLAB;
        self.kmem.slab += SUPERBLOCK_SLAB;
        let pc = self.pcpu_alloc(SUPERBLOCK_PERCPU);
        self.kmem.superblock_percpu += pc;
        self.account_list_lrus();
        self.account_shrinker_info();
    }

    /// `mkdir` of a mount point on the parent file system: a dentry and an inode.
    pub fn mkdir_mountpoint(&mut self) {
        self.kmem.superblock_slab += MOUNTPOINT_SLAB;
        self.kmem.slab += MOUNTPOINT_SLAB;
    }

    /// Bytes of one memcg's per-node shrinker state for `s` memcg-aware shrinkers
    /// (`expand_shrinker_info()`), as (slab, other) after kvmalloc.
    pub fn shrinker_info_bytes(&self, s: u64) -> (u64, u64) {
        let longs = s.div_ceil(64);
        let size = match self.profile.memcg_kmem.shrinker_info {
            crate::profile::ShrinkerInfo::Map => 16 + 8 * longs,
            crate::profile::ShrinkerInfo::WithDeferred => 32 + 8 * 64 * longs + 8 * longs,
        };
        kvmalloc_size(size)
    }

    /// Recompute the shrinker state every allocated memcg (root, online and dying) keeps per
    /// node, for the current number of memcg-aware shrinkers (superblocks + the shadow-node
    /// shrinker).
    pub fn account_shrinker_info(&mut self) {
        let shrinkers = self.superblocks.len() as u64 + 1;
        let (s, o) = self.shrinker_info_bytes(shrinkers);
        let (s, o) = if self.profile.kmalloc_large_in_slab { (s + o, 0) } else { (s, o) };
        let per = self.nr_nodes as u64 * self.memcgs.nr_allocated;
        self.kmem.slab = self.kmem.slab - self.kmem.shrinker_slab + per * s;
        self.kmem.other = self.kmem.other - self.kmem.shrinker_other + per * o;
        self.kmem.shrinker_slab = per * s;
        self.kmem.shrinker_other = per * o;
    }

    /// `memcg_list_lru_alloc()` (5.18+, called when `memcg` allocates an object destined for
    /// one of superblock `sb`'s list_lrus — `kmem_cache_alloc_lru()`, `alloc_inode_sb()`):
    /// in lazy layouts, allocate the per-memcg entry of that list_lru for the memcg and every
    /// ancestor that lacks one. Eager layouts have them all already.
    pub fn memcg_list_lru_alloc(&mut self, sb: usize, inode: bool, memcg: MemcgId) {
        if !self.lazy() {
            return;
        }
        let mut grew = false;
        let mut cur = Some(memcg);
        while let Some(m) = cur {
            if let Some(k) = self.memcgs.get(m).kmem_id {
                let s = &mut self.superblocks[sb];
                let lru = if inode { &mut s.inode_lru } else { &mut s.dentry_lru };
                grew |= lru.insert_entry(k);
            }
            cur = self.memcgs.get(m).parent;
        }
        if grew {
            self.account_list_lrus();
        }
    }

    /// `list_lru_add()` of an object charged to `memcg` on superblock `sb`'s dentry
    /// (`inode = false`) or inode list (its entry exists: see `memcg_list_lru_alloc`).
    pub fn list_lru_add(&mut self, sb: usize, inode: bool, memcg: MemcgId) {
        self.memcg_list_lru_alloc(sb, inode, memcg);
        let kid = self.memcgs.get(memcg).kmem_id.unwrap_or(ROOT_KID);
        let s = &mut self.superblocks[sb];
        let lru = if inode { &mut s.inode_lru } else { &mut s.dentry_lru };
        *lru.items.entry(kid).or_insert(0) += 1;
    }

    /// `list_lru_del()`: an object of `memcg` leaves superblock `sb`'s dentry or inode list.
    pub fn list_lru_del(&mut self, sb: usize, inode: bool, memcg: MemcgId) {
        let kid = self.memcgs.get(memcg).kmem_id.unwrap_or(ROOT_KID);
        let s = &mut self.superblocks[sb];
        let lru = if inode { &mut s.inode_lru } else { &mut s.dentry_lru };
        if let Some(n) = lru.items.get_mut(&kid) {
            *n -= 1;
            if *n == 0 {
                lru.items.remove(&kid);
            }
        }
    }

    /// `memcg_reparent_list_lrus()` at offline: the memcg's items move to its parent's list,
    /// and in lazy layouts its entries are freed.
    pub fn memcg_reparent_list_lrus(&mut self, memcg: MemcgId) {
        let Some(kid) = self.memcgs.get(memcg).kmem_id else { return };
        let parent_kid = self.memcgs.get(memcg).parent.and_then(|p| self.memcgs.get(p).kmem_id).unwrap_or(ROOT_KID);
        let mut changed = false;
        for sb in &mut self.superblocks {
            for lru in [&mut sb.dentry_lru, &mut sb.inode_lru] {
                if let Some(n) = lru.items.remove(&kid) {
                    *lru.items.entry(parent_kid).or_insert(0) += n;
                }
                changed |= lru.remove_entry(kid);
            }
        }
        if changed {
            self.account_list_lrus();
        }
    }
}
