//! Dentries and inodes of files (fs/dcache.c, fs/inode.c, fs/super.c's shrinker).
//!
//! Each file has at most one dentry and one in-memory inode, allocated by the first task that
//! looks it up (`stat`, `open`, `create`) and charged to that task's memcg (`SLAB_ACCOUNT`:
//! bytes, rounded into whole pages of the memcg's page counter, as the objcg byte stock
//! does). While no one holds the file open, a disk file's dentry and inode sit on their
//! superblock's `s_dentry_lru`/`s_inode_lru` — memcg-aware list_lrus, so the first insert
//! by a memcg allocates its list in the lazy layouts. The superblock shrinker
//! (`super_cache_scan()`), run from `shrink_slab()` during reclaim of that memcg, frees the
//! oldest unused pairs whose file has no page cache left. tmpfs dentries are pinned
//! (`d_make_persistent()`) and never on an LRU.

use crate::kernel::Kernel;
use crate::memcontrol::MemcgState;
use crate::profile::{CREATE_CACHES, DENTRY_SLAB, SHMEM_INODE_SLAB};
use crate::types::{InodeId, MemcgId, PAGE_SIZE};

/// `sizeof(struct ext4_inode_info)` in its slab cache (about 1.1 KB in 5.x and 6.1;
/// estimate from the 6.1 layout, rounded to the cache's alignment).
pub const DISK_INODE_SLAB: u64 = 1096;
/// `SHRINK_BATCH`: shrinkers scan in batches of 128.
pub const SHRINK_BATCH: u64 = 128;
/// `DEFAULT_SEEKS`: the cost to recreate an object, which scales scanning down.
pub const DEFAULT_SEEKS: u64 = 2;

/// The dentry and inode of a file, when cached.
#[derive(Clone, Copy, Debug, Default)]
pub struct DentryState {
    /// A dentry and an inode are allocated.
    pub cached: bool,
    /// The memcg they are charged to.
    pub memcg: Option<MemcgId>,
    /// The memcg whose list of the superblock's LRUs they are on (the charged memcg, or the
    /// ancestor its lists were reparented to at offline).
    pub lru_memcg: Option<MemcgId>,
    /// Open references (`d_lockref`); on the LRU only at 0.
    pub refs: u32,
    /// On the superblock's dentry and inode LRUs.
    pub on_lru: bool,
}

impl Kernel {
    /// Slab bytes of a file's dentry and inode.
    fn dentry_inode_bytes(&self, inode: InodeId) -> u64 {
        DENTRY_SLAB + if self.inodes[inode.idx()].is_shmem() { SHMEM_INODE_SLAB } else { DISK_INODE_SLAB }
    }

    /// `obj_cgroup_charge()` of `bytes` of slab to `memcg`: whole pages go to its page
    /// counter as the bytes add up. Returns false if the charge failed (the allocation then
    /// fails with ENOMEM).
    pub fn memcg_kmem_charge(&mut self, memcg: MemcgId, bytes: u64) -> bool {
        self.memcg_kmem_charge_gfp(memcg, bytes, true)
    }

    /// `obj_cgroup_charge()` as `memcg_kmem_charge()`, reclaiming only if `may_reclaim`.
    pub fn memcg_kmem_charge_gfp(&mut self, memcg: MemcgId, bytes: u64, may_reclaim: bool) -> bool {
        if memcg == MemcgId::ROOT || memcg == MemcgId::NONE {
            return true;
        }
        let m = &self.memcgs.memcgs[memcg.idx()];
        let need = (m.kmem_bytes + bytes).div_ceil(PAGE_SIZE).saturating_sub(m.kmem_pages);
        if need > 0 {
            if self.try_charge_memcg(memcg, need, may_reclaim).is_err() {
                return false;
            }
            self.memcgs.memcgs[memcg.idx()].kmem_pages += need;
        }
        let m = &mut self.memcgs.memcgs[memcg.idx()];
        m.kmem_bytes += bytes;
        // The charge's reclaim may have freed slab of this memcg meanwhile (buffer heads,
        // tree nodes): whole pages beyond what the bytes need go back.
        let keep = m.kmem_bytes.div_ceil(PAGE_SIZE);
        if m.kmem_pages > keep {
            let extra = m.kmem_pages - keep;
            m.kmem_pages = keep;
            self.memcgs.counter_uncharge(memcg, extra);
        }
        true
    }

    /// `obj_cgroup_uncharge()`: give `bytes` back; whole pages leave the page counter.
    pub fn memcg_kmem_uncharge(&mut self, memcg: MemcgId, bytes: u64) {
        if memcg == MemcgId::ROOT || memcg == MemcgId::NONE {
            return;
        }
        self.reclaim_walk_dirty(memcg);
        let m = &mut self.memcgs.memcgs[memcg.idx()];
        m.kmem_bytes -= bytes;
        let keep = m.kmem_bytes.div_ceil(PAGE_SIZE);
        let drop = m.kmem_pages - keep;
        m.kmem_pages = keep;
        if drop > 0 {
            self.memcgs.counter_uncharge(memcg, drop);
        }
        let m = &self.memcgs.memcgs[memcg.idx()];
        if m.state == MemcgState::Dying && m.counter.usage == 0 {
            self.mem_cgroup_try_free(memcg);
        }
    }

    /// The superblock a file lives on: the mount with the longest matching path, else its
    /// device's file system.
    pub fn sb_of(&self, inode: InodeId) -> usize {
        let ino = &self.inodes[inode.idx()];
        let by_mount = self
            .superblocks
            .iter()
            .enumerate()
            .filter(|(_, sb)| sb.path.starts_with('/') && !sb.path.starts_with("/dev/"))
            .filter(|(_, sb)| ino.path.starts_with(&format!("{}/", sb.path.trim_end_matches('/'))))
            .max_by_key(|(_, sb)| sb.path.len())
            .map(|(i, _)| i);
        by_mount
            .or_else(|| {
                let dev = ino.dev?;
                let name = format!("/dev/{}", self.devices[dev.idx()].name);
                self.superblocks.iter().position(|sb| sb.path == name)
            })
            .unwrap_or(0)
    }

    /// `d_alloc()` + `iget()`/`new_inode()`: give `inode` a dentry and an inode charged to
    /// `memcg`, if it has none. Returns false when the memcg could not be charged (ENOMEM).
    pub fn d_instantiate(&mut self, inode: InodeId, memcg: MemcgId) -> bool {
        if self.inodes[inode.idx()].dentry.cached {
            return true;
        }
        if self.superblocks.is_empty() {
            // No file system at all (hand-built kernels in tests): nothing to cache.
            return true;
        }
        let sb = self.sb_of(inode);
        self.inodes[inode.idx()].sb = sb;
        let bytes = self.dentry_inode_bytes(inode);
        if !self.memcg_kmem_charge(memcg, bytes) {
            return false;
        }
        self.memcg_kmem_touch_caches(memcg, 1, CREATE_CACHES);
        // d_alloc() and alloc_inode_sb() allocate with the superblock's list_lrus in hand.
        let owner_lru = if memcg == MemcgId::NONE { MemcgId::ROOT } else { memcg };
        self.memcg_list_lru_alloc(sb, false, owner_lru);
        self.memcg_list_lru_alloc(sb, true, owner_lru);
        self.kmem.slab += bytes;
        self.kmem.file_objects_slab += bytes;
        let owner = if memcg == MemcgId::NONE { MemcgId::ROOT } else { memcg };
        if self.profile.memcg_kmem.slab_objects_pin && owner != MemcgId::ROOT {
            self.memcgs.memcgs[owner.idx()].kmem_pins += 1;
        }
        self.inodes[inode.idx()].dentry = DentryState { cached: true, memcg: Some(owner), lru_memcg: Some(owner), refs: 0, on_lru: false };
        true
    }

    /// `dget()` on open: a file in use leaves the LRUs.
    pub fn dget(&mut self, inode: InodeId) {
        if self.inodes[inode.idx()].dentry.on_lru {
            self.d_lru_del(inode);
        }
        self.inodes[inode.idx()].dentry.refs += 1;
    }

    /// `dput()` on close: an unused disk file's dentry and inode go on their superblock's
    /// LRUs (`d_lru_add()`, `inode_add_lru()`); tmpfs ones stay pinned.
    pub fn dput(&mut self, inode: InodeId) {
        let d = &mut self.inodes[inode.idx()].dentry;
        d.refs = d.refs.saturating_sub(1);
        if d.refs > 0 || !d.cached || d.on_lru || self.inodes[inode.idx()].is_shmem() {
            return;
        }
        let (sb, memcg) = (self.inodes[inode.idx()].sb, self.inodes[inode.idx()].dentry.lru_memcg.unwrap_or(MemcgId::ROOT));
        self.list_lru_add(sb, false, memcg);
        self.list_lru_add(sb, true, memcg);
        self.inodes[inode.idx()].dentry.on_lru = true;
        self.superblocks[sb].unused.push_back(inode);
        self.memcgs.memcgs[memcg.idx()].lru_objects += 1;
        self.reclaim_walk_dirty(memcg);
    }

    fn d_lru_del(&mut self, inode: InodeId) {
        let (sb, memcg) = (self.inodes[inode.idx()].sb, self.inodes[inode.idx()].dentry.lru_memcg.unwrap_or(MemcgId::ROOT));
        self.list_lru_del(sb, false, memcg);
        self.list_lru_del(sb, true, memcg);
        self.inodes[inode.idx()].dentry.on_lru = false;
        self.memcgs.memcgs[memcg.idx()].lru_objects -= 1;
        // The superblock's `unused` queue is cleaned lazily by the shrinker.
    }

    /// `dentry_kill()` + `evict()`: free an unused file's dentry and inode.
    fn d_free(&mut self, inode: InodeId) {
        let bytes = self.dentry_inode_bytes(inode);
        self.d_lru_del(inode);
        let memcg = self.inodes[inode.idx()].dentry.memcg.unwrap_or(MemcgId::ROOT);
        self.inodes[inode.idx()].dentry = DentryState::default();
        self.kmem.slab -= bytes;
        self.kmem.file_objects_slab -= bytes;
        if self.profile.memcg_kmem.slab_objects_pin && memcg != MemcgId::ROOT {
            self.memcgs.memcgs[memcg.idx()].kmem_pins -= 1;
        }
        self.memcg_kmem_uncharge(memcg, bytes);
    }

    /// `shrink_slab()` for `memcg` at `priority`: every superblock's shrinker
    /// (`super_cache_count()`/`super_cache_scan()` -> `prune_dcache_sb()`) scans
    /// `(freeable >> priority) * 4 / DEFAULT_SEEKS` of the memcg's unused dentries, in
    /// batches of `SHRINK_BATCH`, and frees those whose file has no page cache.
    #[inline]
    pub fn shrink_slab_sb(&mut self, memcg: MemcgId, priority: u32) -> u64 {
        // Nothing on the memcg's lists: no call (reclaim's walk visits every memcg).
        if self.memcgs.get(memcg).lru_objects == 0 {
            return 0;
        }
        self.shrink_slab_sb_listed(memcg, priority)
    }

    /// [`Kernel::shrink_slab_sb`] of a memcg with unused dentries on some list.
    #[inline(never)]
    fn shrink_slab_sb_listed(&mut self, memcg: MemcgId, priority: u32) -> u64 {
        let kid = self.memcgs.get(memcg).kmem_id.unwrap_or(crate::list_lru::ROOT_KID);
        let mut freed = 0;
        for sb in 0..self.superblocks.len() {
            let freeable = self.superblocks[sb].dentry_lru.items.get(&kid).copied().unwrap_or(0);
            if freeable == 0 {
                continue;
            }
            let mut budget = ((freeable >> priority) * 4 / DEFAULT_SEEKS).min(freeable);
            if budget == 0 {
                continue;
            }
            budget = budget.div_ceil(SHRINK_BATCH) * SHRINK_BATCH;
            let mut scanned = 0;
            let mut rotated = std::collections::VecDeque::new();
            while scanned < budget {
                let Some(ino) = self.superblocks[sb].unused.pop_front() else { break };
                let d = self.inodes[ino.idx()].dentry;
                if !d.on_lru || self.inodes[ino.idx()].sb != sb {
                    continue; // stale entry
                }
                if d.lru_memcg.unwrap_or(MemcgId::ROOT) != memcg {
                    rotated.push_back(ino);
                    continue;
                }
                scanned += 1;
                self.cpu(self.cost.scan_page);
                if self.mappings[ino.idx()].nrpages > 0 {
                    // Its page cache keeps the inode: referenced, rotated (`LRU_ROTATE`).
                    rotated.push_back(ino);
                    continue;
                }
                self.d_free(ino);
                freed += 1;
            }
            let sbq = &mut self.superblocks[sb].unused;
            while let Some(i) = rotated.pop_back() {
                sbq.push_front(i);
            }
        }
        freed
    }

    /// At offline (`memcg_reparent_list_lrus()`), the memcg's unused dentries and inodes go
    /// to its parent's lists; from 5.9 on (objcg reparenting) their charges follow, before
    /// 5.9 they stay charged to — and pin — the dying memcg.
    pub fn dcache_reparent(&mut self, memcg: MemcgId, parent: MemcgId) {
        let move_charges = !self.profile.memcg_kmem.slab_objects_pin;
        let mut moved_bytes = 0;
        let mut moved_lru = 0;
        for i in 0..self.inodes.len() {
            let shmem = self.inodes[i].dev.is_none();
            let d = &mut self.inodes[i].dentry;
            if !d.cached {
                continue;
            }
            if d.lru_memcg == Some(memcg) {
                d.lru_memcg = Some(parent);
                moved_lru += d.on_lru as u64;
            }
            if move_charges && d.memcg == Some(memcg) {
                d.memcg = Some(parent);
                moved_bytes += DENTRY_SLAB + if shmem { SHMEM_INODE_SLAB } else { DISK_INODE_SLAB };
            }
        }
        self.memcgs.memcgs[memcg.idx()].lru_objects -= moved_lru;
        self.memcgs.memcgs[parent.idx()].lru_objects += moved_lru;
        self.reclaim_walk_dirty(parent);
        self.memcg_kmem_reparent(memcg, parent, moved_bytes);
    }

    /// The page cache's tree nodes charged to an offlined memcg: from 5.9 on (objcg
    /// reparenting, as for dentries and inodes) their charges move to the parent; before,
    /// they stay charged to — and pin — the dying memcg.
    pub fn xa_nodes_reparent(&mut self, memcg: MemcgId, parent: MemcgId) {
        if !self.profile.account_xa_nodes || self.profile.memcg_kmem.slab_objects_pin {
            return;
        }
        let mut moved = 0u64;
        for m in &mut self.mappings {
            for node in m.xa.nodes_mut() {
                if node.charged == memcg {
                    node.charged = parent;
                    moved += 1;
                }
            }
        }
        self.memcg_kmem_reparent(memcg, parent, moved * crate::slab::RADIX_TREE_NODE_SIZE);
    }

    /// Move `moved_bytes` of slab charges from `memcg` to `parent` (`obj_cgroup` reparenting):
    /// whole pages leave the child's counter and join the parent's.
    fn memcg_kmem_reparent(&mut self, memcg: MemcgId, parent: MemcgId, moved_bytes: u64) {
        if moved_bytes == 0 {
            return;
        }
        self.reclaim_walk_dirty(memcg);
        let m = &mut self.memcgs.memcgs[memcg.idx()];
        let pages = m.kmem_pages;
        m.kmem_bytes -= moved_bytes;
        m.kmem_pages = m.kmem_bytes.div_ceil(PAGE_SIZE);
        let keep = m.kmem_pages;
        self.memcgs.counter_uncharge(memcg, pages - keep);
        if parent != MemcgId::ROOT {
            // Merging bytes into the parent's stock never needs more pages than the child
            // held, so the parent stays within its limit.
            let p = &mut self.memcgs.memcgs[parent.idx()];
            let old = p.kmem_pages;
            p.kmem_bytes += moved_bytes;
            p.kmem_pages = p.kmem_bytes.div_ceil(PAGE_SIZE);
            let add = p.kmem_pages - old;
            self.memcgs.counter_charge(parent, add);
        }
    }
}
