//! The page cache of each file and the buffered read and write paths (mm/filemap.c).
//!
//! An [`AddressSpace`] holds one slot per page of the file in an xarray ([`crate::xarray`]):
//! empty, a resident page, or a shadow entry left by reclaim (see [`crate::workingset`]).
//! Its 64-slot nodes exist only where entries are, so a mapping costs the host memory in
//! proportion to its resident pages and shadow entries, not to the file's size.

use crate::delayacct::StallKind;
use crate::kernel::Kernel;
use crate::memcontrol::ChargeError;
use crate::mm_types::pg;
use crate::readahead::FileRaState;
use crate::profile::BUFFER_HEAD_SLAB;
use crate::slab::RADIX_TREE_NODE_SIZE;
use crate::types::{pages_for, InodeId, MemcgId, Nanos, PageId, PAGE_SIZE};
use crate::vmstat::VmEvent;

pub use crate::xarray::{Slot, XaNode, XA_CHUNK_SHIFT};
use crate::xarray::{XArray, XA_CHUNK_SIZE};

/// A read request in flight: pages `start..end` are locked until `done`.
#[derive(Copy, Clone, Debug)]
pub struct Inflight {
    /// First page index.
    pub start: u32,
    /// One past the last page index.
    pub end: u32,
    /// Completion time of its own transfer (`end_page_read()` unlocks the pages then, or
    /// with its batch: `BlockDevice::read_batch_done()`).
    pub done: Nanos,
    /// The device's completion batch it joined (`BlockDevice::read_batch()`; 0: none).
    pub batch: u64,
}

/// `BIO_MAX_VECS` (include/linux/bio.h; `BIO_MAX_PAGES` before 5.12): the most segments a bio
/// holds, one per folio a file system's readahead adds to it (`bio_max_segs()`).
pub const BIO_MAX_VECS: u32 = 256;

/// `struct address_space`.
#[derive(Clone, Debug, Default)]
pub struct AddressSpace {
    /// `i_pages`.
    pub xa: XArray,
    /// One past the highest index an insert was ever prepared for: no entry lies at or
    /// beyond it (bounds the scans of writeback).
    pub extent: u64,
    /// The last shadow-list generation given to one of the mapping's nodes ([`XaNode::gen`]).
    pub gen_seq: u32,
    /// `nrpages`: resident pages.
    pub nrpages: u64,
    /// Shadow entries held (`nr_shadows` in older kernels' `nrexceptional`).
    pub nrshadows: u64,
    /// Dirty pages (`PAGECACHE_TAG_DIRTY` count).
    pub nrdirty: u64,
    /// No page below this index is dirty: where a search for dirty pages may start (what the
    /// xarray's dirty tag gives the kernel's `filemap_get_folios_tag()`).
    pub dirty_hint: u32,
    /// `inode->dirtied_when`: when the inode went from clean to dirty (`__mark_inode_dirty()`
    /// sets it only then); kupdate writeback writes it once it is older than
    /// `dirty_expire_interval`.
    pub dirtied_when: crate::types::Nanos,
    /// Read requests not yet known to be complete.
    pub inflight: Vec<Inflight>,
    /// `i_mmap`: the file VMAs mapping this file (rmap.rs).
    pub i_mmap: Vec<crate::memory::VmaId>,
    /// `mapping_max_folio_order()`: the largest folio its page cache takes (0: order-0 pages
    /// only), from its file system and the era ([`Kernel::mapping_set_folio_order`]).
    pub max_order: u8,
}

impl AddressSpace {
    /// The slot of page `index` (`xa_load()`).
    #[inline(always)]
    pub fn slot(&self, index: u32) -> Slot {
        self.xa.get(index)
    }

    /// Replace the entry of an occupied slot (`xas_store()` over an existing entry, as
    /// migration does).
    pub fn replace_slot(&mut self, index: u32, slot: Slot) {
        self.xa.store(index, slot);
    }

    /// The node of 64-slot range `chunk`, if it is allocated (`xas_load()` to shift 0, the
    /// `xa_node` the kernel's workingset code reaches through `xas.xa_node`).
    #[inline(always)]
    pub fn node(&self, chunk: u32) -> Option<&XaNode> {
        self.xa.leaf_id(chunk).map(|id| self.xa.node(id))
    }

    /// The node of 64-slot range `chunk`, if it is allocated, to change.
    #[inline(always)]
    pub fn node_mut(&mut self, chunk: u32) -> Option<&mut XaNode> {
        self.xa.leaf_id(chunk).map(|id| self.xa.node_mut(id))
    }

    /// Every allocated node as (range, occupancy), in no particular order (what
    /// `xas_for_each()` visits, for the reparenting and invariant walks).
    pub fn xa_nodes(&self) -> impl Iterator<Item = (u32, &XaNode)> {
        self.xa.leaves()
    }

    /// The first index of `from..=last` holding an entry (a page or a shadow), `xa_find()`.
    #[inline]
    pub fn next_entry(&self, from: u32, last: u32) -> Option<u32> {
        self.xa.next_entry(from, last)
    }

    /// The entries of `first..=last` as (index, slot), in index order (`xa_for_each_range()`).
    pub fn entries(&self, first: u32, last: u32) -> impl Iterator<Item = (u32, Slot)> + '_ {
        let mut from = Some(first);
        std::iter::from_fn(move || {
            let i = self.next_entry(from?, last)?;
            from = i.checked_add(1);
            Some((i, self.slot(i)))
        })
    }

    /// `filemap_get_folio()` without side effects.
    #[inline(always)]
    pub fn lookup(&self, index: u32) -> Option<PageId> {
        self.slot(index).as_page()
    }

    fn ensure(&mut self, index: u32) {
        self.extent = self.extent.max(index as u64 + 1);
    }

    /// The newest in-flight read covering `index`: its own completion and its device batch
    /// (`Kernel::read_done()` gives when it is complete).
    pub fn inflight_done(&self, index: u32) -> Option<(Nanos, u64)> {
        self.inflight.iter().rev().find(|r| r.start <= index && index < r.end).map(|r| (r.done, r.batch))
    }

    /// Whether the mapping's only entry (page or shadow) is at index 0: the xarray then keeps
    /// it in its head, with no tree node.
    #[inline(always)]
    pub fn head_only(&self) -> bool {
        self.nrpages + self.nrshadows == 1 && self.slot(0) != Slot::EMPTY
    }

    /// The tree nodes an insert at `index` needs that the mapping has not got: the node of the
    /// 64-slot range of `index`, unless the entry will be alone at index 0 (kept in the head);
    /// and range 0's node, when a lone entry at index 0 stops being alone (`xas_expand()`).
    #[inline(always)]
    pub fn xa_nodes_needed(&self, index: u32) -> (bool, bool) {
        let entries = self.nrpages + self.nrshadows;
        // One lookup of the range's leaf for its slot and its occupancy.
        let leaf = self.xa.leaf_id(index >> XA_CHUNK_SHIFT);
        let occupied = leaf.is_some_and(|id| self.xa.slot(id, index % XA_CHUNK_SIZE as u32) != Slot::EMPTY);
        let after = entries + !occupied as u64;
        let head_only_after = after == 1 && index == 0;
        let empty = leaf.is_none_or(|id| {
            let n = self.xa.node(id);
            n.pages == 0 && n.shadows == 0
        });
        let need_chunk = empty && !head_only_after;
        let need_zero = self.head_only() && !head_only_after;
        (need_chunk, need_zero)
    }

    /// Host bytes of this mapping.
    pub fn host_bytes(&self) -> usize {
        self.xa.host_bytes()
            + self.inflight.capacity() * std::mem::size_of::<Inflight>()
    }
}

/// Why `filemap_add_large_folio()` failed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AddError {
    /// A page already lies in the folio's range (`-EEXIST`).
    Exists,
    /// No frames, or the charge failed (`-ENOMEM`).
    NoMem,
    /// The charge's reclaim ended the task's quantum ([`crate::sched::Resched`]): nothing was
    /// added; the caller goes on from here at the task's wake-up.
    Again,
}

/// Why a syscall failed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IoError {
    /// The memcg (or the machine) could not make room: the task is OOM-killed.
    Oom,
    /// A restartable charge's sleep ended the task's quantum ([`ChargeError::Again`]).
    Again,
    /// Readahead's `__GFP_NORETRY` page allocation failed ([`crate::page_alloc::Gfp::readahead`],
    /// `filemap_alloc_folio()` returned NULL): no OOM kill, the readahead loop stops.
    NoPage,
}

impl From<ChargeError> for IoError {
    fn from(e: ChargeError) -> Self {
        match e {
            ChargeError::Oom { .. } => IoError::Oom,
            ChargeError::Again => IoError::Again,
        }
    }
}

/// [`Kernel::read_pages`]'s bio from `start` while its folios are order-0 pages, up to `end`:
/// each present page is locked until its read completes and marked fresh (`PG_locked`, the
/// engine's `FRESH`), an empty index skipped, each taking one of the bio's vecs. Returns
/// the index it stopped at (`end`, or a page of a large folio) and the vecs taken. Counts into
/// `segs` the physically contiguous runs the pages make after the frame `last` (updated): a page
/// whose frame follows the last one is merged into its bvec (`bvec_try_merge_page()`).
#[inline(always)]
fn lock_order0_run(m: &AddressSpace, pages: &mut crate::mm_types::PageArena, start: u32, end: u32, segs: &mut u64, last: &mut u32) -> (u32, u32) {
    let mut i = start;
    while i < end {
        // The pages of one narrow leaf read from its slots, the leaf found once (issue 17);
        // the same steps as the look-up of each below.
        if let Some(slots) = m.xa.leaf_id(i >> XA_CHUNK_SHIFT).and_then(|id| m.xa.narrow_slots(id)) {
            let stop = end.min(((i >> XA_CHUNK_SHIFT) + 1) << XA_CHUNK_SHIFT);
            while i < stop {
                if let Some(p) = Slot(slots[(i & (crate::xarray::XA_CHUNK_SIZE as u32 - 1)) as usize] as u64).as_page() {
                    let page = &mut pages[p];
                    if page.flags & (pg::HEAD | pg::TAIL) != 0 {
                        return (i, i - start);
                    }
                    page.flags |= pg::LOCKED | pg::FRESH;
                    *segs += (p.0 != last.wrapping_add(1)) as u64;
                    *last = p.0;
                }
                i += 1;
            }
            continue;
        }
        if let Some(p) = m.lookup(i) {
            let page = &mut pages[p];
            if page.flags & (pg::HEAD | pg::TAIL) != 0 {
                break;
            }
            page.flags |= pg::LOCKED | pg::FRESH;
            // bvec_try_merge_page(): a page whose frame follows the bio's last one joins its bvec.
            *segs += (p.0 != last.wrapping_add(1)) as u64;
            *last = p.0;
        }
        i += 1;
    }
    (i, i - start)
}

impl Kernel {
    /// Register a file of `size` bytes on device `dev` (an inode and its empty mapping) in the
    /// directory of its path.
    pub fn create_inode(&mut self, path: &str, size: u64, dev: Option<crate::types::DevId>, uid: u32, mode: u32) -> InodeId {
        let pages = pages_for(size).max(1);
        let disk_base = dev.map(|d| self.devices[d.idx()].alloc_extent(pages)).unwrap_or(0);
        self.inodes.push(crate::fs::Inode {
            path: path.into(),
            size,
            dev,
            disk_base,
            uid,
            mode,
            exists: true,
            sb: 0,
            dentry: Default::default(),
            parent: crate::types::DirId::ROOT,
        });
        self.mappings.push(AddressSpace::default());
        self.mappings.last_mut().expect("pushed").xa.set_size_hint(pages_for(size));
        let id = InodeId(self.inodes.len() as u32 - 1);
        self.d_add_file(id);
        self.mapping_set_folio_order(id);
        id
    }

    /// `mapping_set_large_folios()` / `mapping_set_folio_order_range()` as the file system
    /// does it when it sets up a regular file's inode (`xfs_setup_inode()`,
    /// `ext4_set_inode_mapping_order()`): the era's largest order for the file system the file
    /// lives on (its mount, else the root file system of its device), 0 on tmpfs and where the
    /// era has none ([`crate::profile::LargeFolios`]).
    pub fn mapping_set_folio_order(&mut self, inode: InodeId) {
        let lf = self.profile.large_folios;
        if !lf.any() || self.inodes[inode.idx()].is_shmem() || self.superblocks.is_empty() {
            return;
        }
        let sb = &self.superblocks[self.sb_of(inode)];
        let order = match sb.fs.as_str() {
            "xfs" => lf.xfs,
            "ext4" if sb.path.starts_with("/dev/") && self.root_fs_order0 => 0,
            "ext4" => lf.ext4,
            "btrfs" => lf.btrfs,
            _ => 0,
        };
        self.mappings[inode.idx()].max_order = order;
    }

    /// `filemap_add_folio()`: allocate a frame, charge it to `memcg`, insert it at `index`
    /// (consulting a shadow entry there with `workingset_refault()`) and put it on the LRU.
    /// `may_reclaim = false` is a `__GFP_NORETRY` charge (readahead's from 4.8,
    /// `KernelProfile::readahead_charge_noretry`).
    pub fn filemap_add_folio(&mut self, inode: InodeId, index: u32, memcg: MemcgId, may_reclaim: bool) -> Result<PageId, IoError> {
        let gfp = crate::page_alloc::Gfp::node(self.cur_nid);
        self.filemap_add_folio_paid(inode, index, memcg, may_reclaim, true, gfp)
    }

    /// [`Kernel::filemap_add_folio`] of readahead (`page_cache_ra_unbounded()`): the page
    /// allocated with `readahead_gfp_mask()` ([`crate::page_alloc::Gfp::readahead`]), whose
    /// failure is `Err(IoError::NoPage)`; the charge `__GFP_NORETRY` per era
    /// (`KernelProfile::readahead_charge_noretry`).
    pub fn filemap_add_folio_readahead(&mut self, inode: InodeId, index: u32, memcg: MemcgId) -> Result<PageId, IoError> {
        let gfp = crate::page_alloc::Gfp::readahead(self.cur_nid);
        self.filemap_add_folio_paid(inode, index, memcg, !self.profile.readahead_charge_noretry, true, gfp)
    }

    /// [`Kernel::filemap_add_folio_readahead`] inlined into `page_cache_ra_unbounded()`'s
    /// loop (mm/readahead.c: `filemap_add_folio()` per folio; [`Kernel::do_page_cache_ra`]),
    /// a call per page: without the call's prologue and argument moves, and with
    /// `xas_nomem()`'s test inlined beside it (issue 17: -39 instructions a page event of
    /// the limit reclaim, 1667.0 -> 1627.7; the hit path unchanged).
    #[inline(always)]
    pub(crate) fn filemap_add_folio_readahead_inline(&mut self, inode: InodeId, index: u32, memcg: MemcgId) -> Result<PageId, IoError> {
        let gfp = crate::page_alloc::Gfp::readahead(self.cur_nid);
        self.filemap_add_folio_paid_inline(inode, index, memcg, !self.profile.readahead_charge_noretry, true, gfp)
    }

    /// [`Kernel::filemap_add_folio`] whose allocation and charge cost their CPU time here
    /// (`pay`), or not: a new page of a 6.18 large-folio write, whose every per-page cost is
    /// in `write_large_folio_page`, paid by [`Kernel::generic_perform_write`].
    pub(crate) fn filemap_add_folio_paid(&mut self, inode: InodeId, index: u32, memcg: MemcgId, may_reclaim: bool, pay: bool, gfp: crate::page_alloc::Gfp) -> Result<PageId, IoError> {
        self.filemap_add_folio_paid_inline(inode, index, memcg, may_reclaim, pay, gfp)
    }

    /// [`Kernel::filemap_add_folio_paid`], inlined (`filemap_add_folio()`, mm/filemap.c).
    #[inline(always)]
    fn filemap_add_folio_paid_inline(&mut self, inode: InodeId, index: u32, memcg: MemcgId, may_reclaim: bool, pay: bool, gfp: crate::page_alloc::Gfp) -> Result<PageId, IoError> {
        // The folio whose charge a sleep interrupted is allocated once (sched.rs Resumed).
        let resumed = self.take_resumed(crate::sched::Resumed::PAGE);
        if !resumed && pay {
            self.cpu(self.cost.add_page);
        }
        let page = self.alloc_page_gfp(inode, index, gfp).ok_or(if gfp.noretry { IoError::NoPage } else { IoError::Oom })?;
        if !resumed {
            self.post_alloc_init(1);
        }
        if self.inodes[inode.idx()].is_shmem() {
            // shmem_alloc_folio(): swap-backed, on the anon LRU.
            self.pages[page].flags |= pg::SWAPBACKED;
        }
        if let Err(e) = self.mem_cgroup_charge(page, memcg, may_reclaim, pay) {
            self.free_page(page);
            return Err(e.into());
        }
        let chunk = index >> XA_CHUNK_SHIFT;
        let node_memcg = if self.profile.account_xa_nodes && memcg != MemcgId::NONE { memcg } else { MemcgId::NONE };
        if self.mappings[inode.idx()].max_order >= 6 && !self.xas_split_multi(inode, chunk, node_memcg, may_reclaim) {
            self.mem_cgroup_uncharge(page);
            self.free_page(page);
            return Err(IoError::Oom);
        }
        let Some((need_chunk, need_zero)) = self.xas_nomem(inode, index, node_memcg, may_reclaim) else {
            self.mem_cgroup_uncharge(page);
            self.free_page(page);
            return Err(IoError::Oom);
        };
        let m = &mut self.mappings[inode.idx()];
        if need_zero {
            let n0 = m.node_mut(0).expect("a lone entry at index 0 has its range's node");
            n0.charged = node_memcg;
            n0.slab = true;
        }
        let id = m.xa.create(chunk);
        let (old, node) = m.xa.store_in(id, index, Slot::page(page));
        m.nrpages += 1;
        self.vmstat.nr_file_pages += 1;
        node.pages += 1;
        if need_chunk {
            node.charged = node_memcg;
            node.slab = true;
        }
        if old.as_shadow().is_some() {
            node.shadows -= 1;
        }
        // The node holds a page now: workingset_update_node() acts only when it was on a
        // shadow-node list (`shadow_list_stale()` with `pages` >= 1: a leaf's 64 slots never
        // wrap the count).
        debug_assert_eq!(node.on_lru, node.shadow_list_stale());
        if node.on_lru {
            self.workingset_update_node(inode, index, memcg);
        }
        for _ in 0..need_chunk as u32 + need_zero as u32 {
            self.radix_tree_node_alloc();
        }
        if need_chunk && self.mappings[inode.idx()].max_order >= 6 {
            // xas_alloc(): parent->count++, xas_update(parent).
            self.workingset_update_shift6(inode, chunk, memcg);
        }
        if let Some(shadow) = old.as_shadow() {
            self.mappings[inode.idx()].nrshadows -= 1;
            if self.profile.workingset_refault {
                self.workingset_refault(page, shadow);
            }
        }
        self.folio_add_lru(page);
        Ok(page)
    }

    /// The xarray store of a page that is charged and on its LRU already (tmpfs21b, shmem.rs:
    /// `shmem_add_to_page_cache()` of a page read back from swap): the nodes the slot needs
    /// are allocated without a memcg charge (the kernel's held the swap entry all along), a
    /// shadow entry there is dropped, `nrpages` and `NR_FILE_PAGES` count the page.
    pub(crate) fn filemap_insert_page_uncharged(&mut self, inode: InodeId, index: u32, page: PageId) {
        let chunk = index >> XA_CHUNK_SHIFT;
        let (need_chunk, need_zero) = self.xas_nomem(inode, index, MemcgId::NONE, false).expect("an uncharged node is always had");
        let m = &mut self.mappings[inode.idx()];
        if need_zero {
            let n0 = m.node_mut(0).expect("a lone entry at index 0 has its range's node");
            n0.slab = true;
        }
        let id = m.xa.create(chunk);
        let (old, node) = m.xa.store_in(id, index, Slot::page(page));
        m.nrpages += 1;
        self.vmstat.nr_file_pages += 1;
        node.pages += 1;
        if need_chunk {
            node.slab = true;
        }
        if old.as_shadow().is_some() {
            node.shadows -= 1;
            m.nrshadows -= 1;
        }
        if node.on_lru {
            let memcg = self.pages[page].memcg;
            self.workingset_update_node(inode, index, memcg);
        }
        for _ in 0..need_chunk as u32 + need_zero as u32 {
            self.radix_tree_node_alloc();
        }
    }

    /// `filemap_add_folio()` of a large folio (`order` >= 1, from `page_cache_ra_order()`):
    /// allocate `1 << order` contiguous frames (`filemap_alloc_folio()`: readahead's
    /// `__GFP_NORETRY` request, which the engine serves from the free lists, waking kswapd,
    /// without direct reclaim or compaction), charge them at once (`mem_cgroup_charge()` of
    /// the folio: one reclaim pass for `nr` pages when `may_reclaim` is false), store the
    /// folio in its `nr` slots (each slot holds its own frame; the kernel's multi-index entry
    /// covers the same range), consult the last shadow entry the range held
    /// (`xas_for_each_conflict()`) with `workingset_refault()`, and put the head on the LRU.
    /// `Err(Exists)` when a page already lies in the range (`-EEXIST`), before anything is
    /// allocated.
    pub fn filemap_add_large_folio(&mut self, inode: InodeId, index: u32, order: u32, memcg: MemcgId, may_reclaim: bool) -> Result<PageId, AddError> {
        self.filemap_add_large_folio_paid(inode, index, order, memcg, may_reclaim, true)
    }

    /// [`Kernel::filemap_add_large_folio`] whose allocation and charge cost their CPU time
    /// here (`pay`), or not: a folio a 6.18 write creates, whose every per-page cost is in
    /// `write_large_folio_page`, paid by [`Kernel::generic_perform_write`]. A charge that
    /// ended the task's quantum (`restartable_next` set by the caller) is `Err(Again)`.
    pub(crate) fn filemap_add_large_folio_paid(&mut self, inode: InodeId, index: u32, order: u32, memcg: MemcgId, may_reclaim: bool, pay: bool) -> Result<PageId, AddError> {
        debug_assert!(order >= 1 && index.is_multiple_of(1 << order));
        let n = 1u32 << order;
        let m = &self.mappings[inode.idx()];
        if (index..index + n).any(|i| m.slot(i).as_page().is_some()) {
            self.resched.restartable_next = false;
            return Err(AddError::Exists);
        }
        if pay {
            self.cpu(self.cost.add_page);
        }
        let gfp = crate::page_alloc::Gfp { no_direct_reclaim: true, ..crate::page_alloc::Gfp::node(self.cur_nid) };
        let Some(head) = self.alloc_pages(order, gfp) else {
            self.resched.restartable_next = false;
            return Err(AddError::NoMem);
        };
        self.post_alloc_init(n as u64);
        for i in 0..n {
            let f = PageId(head.0 + i);
            self.pages.init(f, inode, index + i);
            if i > 0 {
                self.pages[f].flags |= pg::TAIL;
                self.pages[f].prev = head;
            }
        }
        self.pages[head].flags |= pg::HEAD;
        self.pages[PageId(head.0 + 1)].mapcount = order as u8;
        let shmem = self.inodes[inode.idx()].is_shmem();
        if shmem {
            // shmem_alloc_and_acct_folio(): a tmpfs huge page is swap-backed (shmem.rs).
            self.pages[head].flags |= pg::SWAPBACKED;
        }
        if pay {
            self.cpu(self.cost.charge);
        }
        // 6.7+ tmpfs: the large folio charged with the huge gfp (shmem.rs, ShmemStat::huge_charge_gfp)
        let huge_gfp = if shmem { self.shmem_stat.huge_charge_gfp.take() } else { None };
        let charged = match huge_gfp {
            Some(gfp) => self.try_charge_memcg_gfp(memcg, n as u64, gfp),
            None => self.try_charge_memcg(memcg, n as u64, may_reclaim),
        };
        if let Err(e) = charged {
            // shmem_add_to_page_cache(): THP_FILE_FALLBACK_CHARGE (shmem.rs)
            self.shmem_stat.charge_failed |= shmem;
            self.free_folio(head, n as u64);
            return Err(if matches!(e, ChargeError::Again) { AddError::Again } else { AddError::NoMem });
        }
        self.commit_charge_folio(head, memcg);
        let node_memcg = if self.profile.account_xa_nodes && memcg != MemcgId::NONE { memcg } else { MemcgId::NONE };
        let multi = order >= XA_CHUNK_SHIFT && self.profile.xa_multi_index;
        if !multi && self.mappings[inode.idx()].max_order >= 6 && !self.xas_split_multi(inode, index >> XA_CHUNK_SHIFT, node_memcg, may_reclaim) {
            self.mem_cgroup_uncharge_folio(head);
            self.free_folio(head, n as u64);
            return Err(AddError::NoMem);
        }
        let Some((need_chunks, need_zero)) = self.xas_nomem_range(inode, index, n, node_memcg, may_reclaim) else {
            // shmem_add_to_page_cache(): no THP_FILE_FALLBACK (shmem.rs)
            self.shmem_stat.xa_failed |= shmem;
            self.mem_cgroup_uncharge_folio(head);
            self.free_folio(head, n as u64);
            return Err(AddError::NoMem);
        };
        let m = &mut self.mappings[inode.idx()];
        if need_zero {
            let n0 = m.node_mut(0).expect("a lone entry at index 0 has its range's node");
            n0.charged = node_memcg;
            n0.slab = true;
        }
        let mut shadow = None;
        let mut nr_shadows = 0u64;
        let (first_chunk, last_chunk) = (index >> XA_CHUNK_SHIFT, (index + n - 1) >> XA_CHUNK_SHIFT);
        if multi {
            self.xa_store_multi_prepare(inode, first_chunk, last_chunk, order, node_memcg, need_chunks > 0);
        }
        let m = &mut self.mappings[inode.idx()];
        for chunk in first_chunk..=last_chunk {
            let fresh = !multi && m.node(chunk).is_none_or(|x| x.pages == 0 && x.shadows == 0);
            m.xa.create(chunk);
            let lo = index.max(chunk << XA_CHUNK_SHIFT);
            let hi = (index + n).min((chunk + 1) << XA_CHUNK_SHIFT);
            let (mut added, mut replaced) = (0u8, 0u8);
            for i in lo..hi {
                let old = m.xa.store(i, Slot::page(PageId(head.0 + (i - index))));
                if let Some(s) = old.as_shadow() {
                    shadow = Some(s);
                    nr_shadows += 1;
                    replaced += 1;
                }
                added += 1;
            }
            let node = m.node_mut(chunk).expect("created");
            node.shadows -= replaced;
            node.pages += added;
            if multi {
                node.multi = order as u8;
            }
            if fresh && need_chunks > 0 {
                node.charged = node_memcg;
                node.slab = true;
            }
            if hi - lo == XA_CHUNK_SIZE as u32 {
                // The folio fills the chunk (order >= 6): one multi-index entry.
                m.xa.compact_run(chunk);
            }
        }
        m.nrpages += n as u64;
        m.nrshadows -= nr_shadows;
        self.vmstat.nr_file_pages += n as u64;
        for chunk in first_chunk..=last_chunk {
            self.workingset_update_node(inode, chunk << XA_CHUNK_SHIFT, memcg);
        }
        if multi {
            self.mappings[inode.idx()].xa.shift6_mut(first_chunk).expect("made").pages += (last_chunk - first_chunk + 1) as u8;
        }
        if self.mappings[inode.idx()].max_order >= 6 {
            self.workingset_update_shift6(inode, first_chunk, memcg);
        }
        for _ in 0..need_chunks + need_zero as u32 {
            self.radix_tree_node_alloc();
        }
        if let Some(shadow) = shadow {
            if self.profile.workingset_refault {
                self.workingset_refault(head, shadow);
            }
        }
        self.folio_add_lru(head);
        Ok(head)
    }

    /// The end of `xas_nomem()`'s charge: `charged` bytes of tree nodes were charged to
    /// `memcg` before its reclaim ran, `needed` are needed now; give back the difference, or
    /// charge it without reclaim (all of it given back when that fails). False when it failed.
    fn xa_charge_settle(&mut self, memcg: MemcgId, charged: u64, needed: u64) -> bool {
        if memcg != MemcgId::NONE {
            if needed < charged {
                self.memcg_kmem_uncharge(memcg, charged - needed);
            } else if needed > charged && !self.memcg_kmem_charge_gfp(memcg, needed - charged, false) {
                self.memcg_kmem_uncharge(memcg, charged);
                return false;
            }
        }
        true
    }

    /// `xas_nomem()` for the `n` slots of a large folio from `index`: the leaf nodes of its
    /// 64-slot ranges that are not there (or empty), and range 0's when a lone entry at index
    /// 0 stops being alone, charged to `memcg` before the folio goes in. Returns (leaf nodes
    /// made, whether range 0's is), or `None` when the charge failed.
    fn xas_nomem_range(&mut self, inode: InodeId, index: u32, n: u32, memcg: MemcgId, may_reclaim: bool) -> Option<(u32, bool)> {
        let multi = n >= XA_CHUNK_SIZE as u32 && self.profile.xa_multi_index;
        let need = |m: &AddressSpace| {
            let chunks = if multi {
                // One multi-index entry in the shift-6 node: that node, unless it holds one
                // already (leaves below it are freed, not made).
                m.xa.shift6(index >> XA_CHUNK_SHIFT).is_none_or(|(a, _)| a.pages + a.shadows == 0) as u32
            } else {
                (index >> XA_CHUNK_SHIFT..=(index + n - 1) >> XA_CHUNK_SHIFT).filter(|&c| m.node(c).is_none_or(|x| x.pages == 0 && x.shadows == 0)).count() as u32
            };
            (chunks, m.head_only())
        };
        let bytes = |(c, z): (u32, bool)| (c as u64 + z as u64) * RADIX_TREE_NODE_SIZE;
        self.mappings[inode.idx()].ensure(index + n - 1);
        let charged = bytes(need(&self.mappings[inode.idx()]));
        if memcg != MemcgId::NONE && charged > 0 && !self.memcg_kmem_charge_gfp(memcg, charged, may_reclaim) {
            return None;
        }
        let now = need(&self.mappings[inode.idx()]);
        let needed = bytes(now);
        if !self.xa_charge_settle(memcg, charged, needed) {
            return None;
        }
        Some(now)
    }

    /// `__filemap_remove_folio()` of a large folio: its `nr` slots emptied, or each given
    /// `shadow` (one shadow entry for the folio: the kernel stores it as one multi-index value
    /// entry over the same range); a dirty one (truncation) leaves the dirty counts. The
    /// caller uncharges and frees it.
    pub fn filemap_remove_large_folio(&mut self, head: PageId, shadow: Option<u64>) {
        let n = self.pages.folio_nr_pages(head) as u32;
        let (inode, index) = (self.pages[head].mapping, self.pages[head].index);
        debug_assert!(self.pages[head].mapcount == 0, "large folios are unmapped");
        let memcg = self.pages[head].memcg;
        if self.pages[head].test(pg::DIRTY) {
            // A truncation drops a dirty folio (folio_cancel_dirty() in filemap_unaccount_folio()).
            let key = self.inode_wb_key(inode) as usize;
            self.wb_dirty[key] -= n as u64;
            self.mappings[inode.idx()].nrdirty -= n as u64;
            self.vmstat.nr_dirty -= n as u64;
        }
        let m = &mut self.mappings[inode.idx()];
        for chunk in index >> XA_CHUNK_SHIFT..=(index + n - 1) >> XA_CHUNK_SHIFT {
            let lo = index.max(chunk << XA_CHUNK_SHIFT);
            let hi = (index + n).min((chunk + 1) << XA_CHUNK_SHIFT);
            for i in lo..hi {
                let _old = m.xa.store(i, shadow.map_or(Slot::EMPTY, Slot));
                debug_assert_eq!(_old.as_page(), Some(PageId(head.0 + (i - index))));
            }
            let node = m.node_mut(chunk).expect("a folio's range has its nodes");
            node.pages -= (hi - lo) as u8;
            if shadow.is_some() {
                node.shadows += (hi - lo) as u8;
            } else {
                // page_cache_delete() with no shadow: the multi-index slots are emptied.
                node.multi = 0;
            }
        }
        let (first_chunk, last_chunk) = (index >> XA_CHUNK_SHIFT, (index + n - 1) >> XA_CHUNK_SHIFT);
        m.nrpages -= n as u64;
        if shadow.is_some() {
            m.nrshadows += n as u64;
        }
        let multi = n >= XA_CHUNK_SIZE as u32 && self.profile.xa_multi_index && m.xa.shift6(first_chunk).is_some_and(|(a, _)| a.pages > 0);
        if multi {
            // update_node() of the shift-6 node: its slots' count goes with the shadow
            // (`count += !next - !entry`), its nr_values up by the slots a shadow fills.
            let k = last_chunk - first_chunk + 1;
            let a = m.xa.shift6_mut(first_chunk).expect("a multi-index entry has its node");
            a.pages -= k as u8;
            if shadow.is_some() {
                a.shadows += k as u8;
            }
            if a.pages + a.shadows == 0 {
                self.xa_shift6_uncharge(inode, first_chunk);
            }
        }
        self.vmstat.nr_file_pages -= n as u64;
        if self.pages[head].test(pg::SWAPBACKED) && n == crate::shmem::HPAGE_PMD_NR {
            // filemap_unaccount_folio(): NR_SHMEM_THPS of a tmpfs huge page (PMD-sized, shmem.rs)
            self.shmem_stat.nr_shmem_thps -= n as u64;
        }
        if multi {
            self.workingset_update_shift6(inode, first_chunk, memcg);
        }
        for chunk in first_chunk..=last_chunk {
            self.workingset_update_node(inode, chunk << XA_CHUNK_SHIFT, memcg);
            self.xa_node_free_if_empty(inode, chunk << XA_CHUNK_SHIFT);
        }
    }

    /// `split_folio()` (`split_huge_page_to_list()`): a large page-cache folio becomes `nr`
    /// order-0 pages in place: each frame keeps its slot, charge and flags that are per page
    /// (`PG_locked` while its read is in flight, the engine's `FRESH`); the head keeps its
    /// LRU place and the tails follow it on the same list (`lru_add_page_tail()`), with the
    /// head's `PG_referenced`, `PG_active` and `PG_workingset`, and a written folio's
    /// `PG_dirty`, `PG_writeback`, `PG_reclaim` and buffer heads. The engine splits a folio
    /// before any path that handles single pages only touches it (faults, the writes of eras
    /// without large-folio writes, the seed-000 recharge); see ARCHITECTURE.md "The read path
    /// in folios".
    pub fn split_folio(&mut self, head: PageId) {
        let order = self.pages.folio_order(head);
        if order == 0 || self.pages[head].test(pg::ANON) {
            return;
        }
        let n = 1u32 << order;
        if order >= XA_CHUNK_SHIFT && self.profile.xa_multi_index {
            self.xas_split_folio_multi(head, order);
        }
        // A written folio's state is per folio too: its tails take PG_dirty, PG_writeback,
        // PG_reclaim and their buffer heads (PG_private, one a page), and the request their
        // writeback ends with (the counts, in pages, stay as they are).
        let keep = self.pages[head].flags & (pg::REFERENCED | pg::ACTIVE | pg::WORKINGSET | pg::SWAPBACKED | pg::DIRTY | pg::WRITEBACK | pg::RECLAIM | pg::PRIVATE);
        if self.pages[head].test(pg::WRITEBACK) {
            let done = self.wb_done[head.idx()];
            let last = head.idx() + n as usize;
            if self.wb_done.len() < last {
                self.wb_done.resize(last, 0);
            }
            self.wb_done[head.idx()..last].fill(done);
        }
        if self.pages[head].test(pg::SWAPBACKED) && n == crate::shmem::HPAGE_PMD_NR {
            // __split_huge_page() of a tmpfs huge page: NR_SHMEM_THPS (PMD-sized, shmem.rs)
            self.shmem_thp_unaccount(head, n as u64);
        }
        let refs = self.pages[head].refs();
        let on_lru = self.pages[head].test(pg::LRU);
        let v = self.folio_lruvec(head);
        let list = self.pages[head].lru() as usize;
        if on_lru {
            // Take the folio off its list (its count is in pages), put it back as a page.
            self.lruvecs[v].unlink(&mut self.pages, &mut self.lru_stats, head);
        }
        self.pages[head].flags &= !pg::HEAD;
        self.pages[PageId(head.0 + 1)].mapcount = 0;
        for i in 1..n {
            let t = &mut self.pages[PageId(head.0 + i)];
            t.flags = (t.flags & !pg::TAIL) | keep;
            t.prev = PageId::NIL;
            t.next = PageId::NIL;
            t.set_refs(refs);
        }
        if on_lru {
            // Tails after the head, in index order (each one inserted after the previous).
            self.lruvecs[v].link(&mut self.pages, &mut self.lru_stats, head, list);
            let mut prev = head;
            for i in 1..n {
                let t = PageId(head.0 + i);
                self.lruvecs[v].link_after(&mut self.pages, &mut self.lru_stats, prev, t, list);
                prev = t;
            }
        }
    }

    /// `split_huge_page_to_list_to_order()`'s `xas_split_alloc()` + `xas_split()` (mm/huge_memory.c,
    /// 6.1) of a resident multi-index folio of `order` >= 6 split to order 0: its chunks
    /// become leaves of 64 pages each, allocated with `XA_FLAGS_ACCOUNT` (charged here to the
    /// folio's memcg, without reclaim; where that fails, where the kernel's split fails, the
    /// engine splits anyway with the leaves uncharged), the shift-6 node's slots node
    /// pointers (count unchanged).
    fn xas_split_folio_multi(&mut self, head: PageId, order: u32) {
        let (inode, index) = (self.pages[head].mapping, self.pages[head].index);
        let first = index >> XA_CHUNK_SHIFT;
        if self.mappings[inode.idx()].node(first).is_none_or(|x| x.multi == 0) {
            return;
        }
        let span = 1u32 << (order - XA_CHUNK_SHIFT);
        let folio_memcg = self.pages[head].memcg;
        let memcg = if self.profile.account_xa_nodes && folio_memcg != MemcgId::NONE { folio_memcg } else { MemcgId::NONE };
        let memcg = if memcg != MemcgId::NONE && !self.memcg_kmem_charge_gfp(memcg, span as u64 * RADIX_TREE_NODE_SIZE, false) { MemcgId::NONE } else { memcg };
        self.xas_split_into_leaves(inode, first, order, memcg, false);
        self.workingset_update_shift6(inode, first, folio_memcg);
    }

    /// `split_folio()` of the folio holding page-cache page `page`, if it is large; returns the
    /// page, now order 0.
    #[inline]
    pub fn split_page_folio(&mut self, page: PageId) -> PageId {
        let head = self.pages.page_folio(page);
        if self.pages[head].test(pg::HEAD) && !self.pages[head].test(pg::ANON) {
            self.split_folio(head);
        }
        page
    }

    /// `radix_tree_node_alloc()` (`xas_alloc()` since 4.20) for a new 64-slot node: every
    /// `objs_per_slab`-th node needs a new slab page, whose high-order attempt is modelled
    /// for its effect on the page allocator (`Kernel::slab_high_order_attempt`). The node's
    /// memcg charge is taken by `filemap_add_folio()`.
    fn radix_tree_node_alloc(&mut self) {
        self.radix_nodes_allocated += 1;
        self.pagecache_slab_alloc(RADIX_TREE_NODE_SIZE);
        let (order, objs) = crate::slab::slub_order(crate::slab::RADIX_TREE_NODE_SIZE, self.nr_cpu_ids);
        if order > 0 && self.radix_nodes_allocated.is_multiple_of(objs) {
            let nid = self.cur_nid;
            self.slab_high_order_attempt(order, nid);
        }
    }

    /// `__filemap_remove_folio()` + `page_cache_delete()`: take `page` out of its mapping,
    /// leaving `shadow` (or nothing) in its slot. The caller uncharges and frees it.
    pub fn filemap_remove_folio(&mut self, page: PageId, shadow: Option<u64>) {
        self.filemap_remove_folio_inline(page, shadow, false)
    }

    /// [`Kernel::filemap_remove_folio`], inlined into the eviction of reclaim's batch
    /// (`Kernel::evict_batched`, a page per reclaimed page). `clean_unmapped`: the caller
    /// knows the page unmapped and not dirty (reclaim's batch tested both), so neither the
    /// unmap nor the dirty accounting is looked at (issue 17: two page-arena reads a page).
    #[inline(always)]
    pub(crate) fn filemap_remove_folio_inline(&mut self, page: PageId, shadow: Option<u64>, clean_unmapped: bool) {
        debug_assert!(!clean_unmapped || (self.pages[page].mapcount == 0 && !self.pages[page].test(pg::DIRTY)), "a page removed as clean and unmapped is dirty or mapped");
        if !clean_unmapped && self.pages[page].mapcount > 0 {
            // truncate: unmap_mapping_range() first (reclaim has unmapped it already).
            self.try_to_unmap(page);
        }
        let (inode, index) = (self.pages[page].mapping, self.pages[page].index);
        let m = &mut self.mappings[inode.idx()];
        let id = m.xa.leaf_id(index >> XA_CHUNK_SHIFT).expect("a page's range has its node");
        let (_old, node) = m.xa.store_in(id, index, shadow.map_or(Slot::EMPTY, Slot));
        debug_assert_eq!(_old.as_page(), Some(page));
        m.nrpages -= 1;
        self.vmstat.nr_file_pages -= 1;
        node.pages -= 1;
        if shadow.is_some() {
            node.shadows += 1;
        }
        // What workingset_update_node() and xas_delete_node() look at, read from the node at
        // hand: each is called only when it has something to do.
        // With a shadow left in it the node is not empty, and on the shadow-node list exactly
        // when it holds no page (a leaf's 64 slots never wrap the counts).
        let (stale, empty) = if shadow.is_some() { ((node.pages == 0) != node.on_lru, false) } else { (node.shadow_list_stale(), node.is_empty()) };
        debug_assert_eq!((stale, empty), (node.shadow_list_stale(), node.is_empty()));
        m.nrshadows += shadow.is_some() as u64;
        // xas_shrink() acts only on a mapping left with one entry; nothing below changes the
        // entries' count (issue 17: no second look at the mapping after most removals).
        let lone = m.nrpages + m.nrshadows == 1;
        if !clean_unmapped && self.pages[page].test(pg::DIRTY) {
            m.nrdirty -= 1;
            self.vmstat.nr_dirty -= 1;
            let key = self.inode_wb_key(inode) as usize;
            self.wb_dirty[key] -= 1;
        }
        if stale {
            let memcg = self.pages[page].memcg;
            self.workingset_update_node(inode, index, memcg);
        }
        if empty {
            self.xa_node_free(inode, index >> XA_CHUNK_SHIFT);
        }
        debug_assert_eq!(lone, self.mappings[inode.idx()].nrpages + self.mappings[inode.idx()].nrshadows == 1);
        if lone {
            self.xas_shrink(inode);
        }
    }

    /// `xas_create()` / `xas_nomem()` for an insert at `index`: the tree nodes it needs are
    /// allocated, and charged to `memcg` (`NONE`: not charged), before the page goes in. The
    /// page is not in the mapping nor on an LRU yet, so the charge's reclaim cannot take it;
    /// what that reclaim frees elsewhere can change the need, which is looked at again.
    /// Returns which nodes the insert makes (its range's, range 0's), or `None` when the
    /// charge failed.
    #[inline(always)]
    fn xas_nomem(&mut self, inode: InodeId, index: u32, memcg: MemcgId, may_reclaim: bool) -> Option<(bool, bool)> {
        let m = &mut self.mappings[inode.idx()];
        m.ensure(index);
        let first = m.xa_nodes_needed(index);
        if memcg == MemcgId::NONE || first == (false, false) {
            // Nothing charged, so no reclaim ran: the need is what it was.
            return Some(first);
        }
        self.xas_nomem_charge(inode, index, memcg, may_reclaim, first)
    }

    /// The charge of [`Kernel::xas_nomem`] when the insert makes a node (out of line: once
    /// per 64 pages of a sequential read).
    #[inline(never)]
    fn xas_nomem_charge(&mut self, inode: InodeId, index: u32, memcg: MemcgId, may_reclaim: bool, first: (bool, bool)) -> Option<(bool, bool)> {
        let bytes = |(c, z): (bool, bool)| (c as u64 + z as u64) * RADIX_TREE_NODE_SIZE;
        let charged = bytes(first);
        if !self.memcg_kmem_charge_gfp(memcg, charged, may_reclaim) {
            return None;
        }
        let need = self.mappings[inode.idx()].xa_nodes_needed(index);
        let needed = bytes(need);
        if !self.xa_charge_settle(memcg, charged, needed) {
            return None;
        }
        Some(need)
    }

    /// The slab object of `inode`'s tree node for range `chunk` is freed: uncharge it from the
    /// memcg it was charged to.
    pub fn xa_node_uncharge(&mut self, inode: InodeId, chunk: u32) {
        let node = self.mappings[inode.idx()].node_mut(chunk);
        let (memcg, slab) = node.map_or((MemcgId::NONE, false), |n| (std::mem::replace(&mut n.charged, MemcgId::NONE), std::mem::replace(&mut n.slab, false)));
        self.memcg_kmem_uncharge(memcg, RADIX_TREE_NODE_SIZE);
        if slab {
            self.pagecache_slab_free(RADIX_TREE_NODE_SIZE);
        }
    }

    /// `xas_delete_node()`: a tree node left with no page and no shadow entry is uncharged
    /// and freed (its host memory too); then `xas_shrink()`.
    #[inline]
    pub fn xa_node_free_if_empty(&mut self, inode: InodeId, index: u32) {
        let chunk = index >> XA_CHUNK_SHIFT;
        let empty = self.mappings[inode.idx()].node(chunk).is_some_and(|n| n.is_empty());
        if empty {
            self.xa_node_free(inode, chunk);
        }
        self.xas_shrink(inode);
    }

    /// `xas_delete_node()` of range `chunk`'s node, which holds no entry: uncharged and freed.
    fn xa_node_free(&mut self, inode: InodeId, chunk: u32) {
        self.xa_node_uncharge(inode, chunk);
        self.mappings[inode.idx()].xa.free_leaf(chunk);
        if self.mappings[inode.idx()].max_order >= 6 {
            // xas_delete_node() -> xas_update(parent).
            self.workingset_update_shift6(inode, chunk, MemcgId::NONE);
        }
    }

    /// The shift-6 node above `chunk` holds no multi-index entry any more: its charge and
    /// slab object go (the engine models a shift-6 node's memory while it holds entries, as
    /// a leaf's; inner nodes holding only leaves are not modelled).
    pub(crate) fn xa_shift6_uncharge(&mut self, inode: InodeId, chunk: u32) {
        let Some(a) = self.mappings[inode.idx()].xa.shift6_mut(chunk) else { return };
        let memcg = std::mem::replace(&mut a.charged, MemcgId::NONE);
        let slab = std::mem::replace(&mut a.slab, false);
        if a.on_lru {
            a.on_lru = false;
            let o = a.owner;
            self.shadow_nodes[o.idx()].count -= 1;
        }
        self.memcg_kmem_uncharge(memcg, RADIX_TREE_NODE_SIZE);
        if slab {
            self.pagecache_slab_free(RADIX_TREE_NODE_SIZE);
        }
    }

    /// Before `xas_store()` of a multi-index entry of `order` (6..=11) over chunks
    /// `first..=last` (`__filemap_add_folio()`): the tree gets its shift-6 node (charged to
    /// `memcg` when `fresh`: `xas_nomem()` charged it); a larger multi-index shadow there is
    /// split at the same level into entries of `order` (`xas_split()` with `xas->xa_shift`
    /// equal to the node's: no allocation); a leaf there (holding only shadows: a page would
    /// have been `-EEXIST`) is freed with its subtree (`xas_store()` -> `xas_free_nodes()`:
    /// `count = 0`, off the shadow list, uncharged), its slot becoming the entry's.
    fn xa_store_multi_prepare(&mut self, inode: InodeId, first: u32, last: u32, order: u32, memcg: MemcgId, fresh: bool) {
        let m = &mut self.mappings[inode.idx()];
        m.xa.ensure_shift6();
        if fresh {
            // xas_create() of the shift-6 node (its parent chain as the engine's other inner
            // nodes: not modelled); the leaf made for `first` below is its first child.
            m.xa.create(first);
        }
        let big = m.node(first).map_or(0, |x| x.multi as u32);
        if big > order {
            let span = 1u32 << (big - XA_CHUNK_SHIFT);
            let base = first & !(span - 1);
            for c in base..base + span {
                if let Some(x) = m.node_mut(c) {
                    x.multi = order as u8;
                }
            }
        }
        for c in first..=last {
            let m = &mut self.mappings[inode.idx()];
            let Some(x) = m.node(c) else { continue };
            if x.multi != 0 {
                if x.shadows > 0 {
                    m.xa.shift6_mut(c).expect("a multi-index slot has its node").shadows -= 1;
                }
                continue;
            }
            debug_assert_eq!(x.pages, 0, "a page in the range is -EEXIST");
            if x.on_lru {
                let o = x.owner;
                m.node_mut(c).expect("found").on_lru = false;
                self.shadow_nodes[o.idx()].count -= 1;
            }
            self.xa_node_uncharge(inode, c);
            self.mappings[inode.idx()].node_mut(c).expect("found").multi = order as u8;
        }
        let m = &mut self.mappings[inode.idx()];
        if fresh {
            let a = m.xa.shift6_mut(first).expect("made above");
            a.charged = memcg;
            a.slab = true;
        }
    }

    /// `xas_split()`'s part common to both splits of a multi-index entry of `order` (6..=11)
    /// whose first chunk is `base` ([`Kernel::xas_split_folio_multi`]: a resident folio;
    /// [`Kernel::xas_split_multi`]: a shadow, `shadows`): its `1 << (order - 6)` slots become
    /// leaves of their own (charged to `memcg`, NONE for uncharged), the shift-6 node's `count`
    /// of resident or `nr_values` of shadow slots down by as many (its node uncharged once it
    /// holds no multi-index entry), and the new leaves allocated from the node cache.
    fn xas_split_into_leaves(&mut self, inode: InodeId, base: u32, order: u32, memcg: MemcgId, shadows: bool) {
        let span = 1u32 << (order - XA_CHUNK_SHIFT);
        let m = &mut self.mappings[inode.idx()];
        for c in base..base + span {
            let x = m.node_mut(c).expect("a multi-index entry's slots have host leaves");
            debug_assert!(x.multi as u32 == order && if shadows { x.shadows } else { x.pages } as usize == XA_CHUNK_SIZE);
            x.multi = 0;
            x.charged = memcg;
            x.slab = true;
        }
        let a = m.xa.shift6_mut(base).expect("a multi-index entry has its node");
        if shadows {
            a.shadows -= span as u8;
        } else {
            a.pages -= span as u8;
        }
        if a.pages + a.shadows == 0 {
            self.xa_shift6_uncharge(inode, base);
        }
        for _ in 0..span {
            self.radix_tree_node_alloc();
        }
    }

    /// `xas_split_alloc()` + `xas_split()` (lib/xarray.c, 6.1; called from
    /// `__filemap_add_folio()`): a folio smaller than order 6 added where the shift-6 node
    /// above `chunk` holds a multi-index shadow of order `k` (6..=11): `1 << (k - 6)` leaves
    /// are allocated (`__GFP_ACCOUNT`, `XA_FLAGS_ACCOUNT`: charged to `memcg`), each filled
    /// with the shadow (`count = nr_values = 64`, so on the shadow-node list:
    /// `xas_update(xas, child)`), the shift-6 node's slots become node pointers (`nr_values`
    /// down by as many, `count` unchanged). False when the charge failed (`-ENOMEM`). Nothing
    /// to do (true) where the chunk holds no multi-index entry.
    pub(crate) fn xas_split_multi(&mut self, inode: InodeId, chunk: u32, memcg: MemcgId, may_reclaim: bool) -> bool {
        let k = match self.mappings[inode.idx()].node(chunk) {
            Some(x) if x.multi != 0 => x.multi as u32,
            _ => return true,
        };
        debug_assert_eq!(self.mappings[inode.idx()].node(chunk).map(|x| x.pages), Some(0), "an add into a resident folio is -EEXIST");
        let span = 1u32 << (k - XA_CHUNK_SHIFT);
        let bytes = span as u64 * RADIX_TREE_NODE_SIZE;
        if memcg != MemcgId::NONE && !self.memcg_kmem_charge_gfp(memcg, bytes, may_reclaim) {
            return false;
        }
        // The charge's reclaim may have changed the entry (`alloced_shadow` / `alloced_order`
        // re-checked under the lock; `xas_destroy()` of the nodes when it changed).
        if self.mappings[inode.idx()].node(chunk).is_none_or(|x| x.multi as u32 != k) {
            self.memcg_kmem_uncharge(memcg, bytes);
            return true;
        }
        let base = chunk & !(span - 1);
        self.xas_split_into_leaves(inode, base, k, memcg, true);
        for c in base..base + span {
            self.workingset_update_node(inode, c << XA_CHUNK_SHIFT, memcg);
        }
        self.workingset_update_shift6(inode, chunk, memcg);
        true
    }

    /// `xas_shrink()`: a lone entry left at index 0 moves back into the xarray's head, and
    /// range 0's node is freed.
    #[inline(always)]
    pub fn xas_shrink(&mut self, inode: InodeId) {
        if self.mappings[inode.idx()].head_only() {
            self.xas_shrink_head(inode);
        }
    }

    /// [`Kernel::xas_shrink`] of a mapping whose lone entry is at index 0: range 0's node is
    /// uncharged and freed.
    #[inline(never)]
    fn xas_shrink_head(&mut self, inode: InodeId) {
        self.xa_node_uncharge(inode, 0);
    }

    /// When a read of `inode` whose own transfer ends at `done`, in its device's completion
    /// batch `batch`, completes (`end_page_read()` from the device's completion,
    /// `BlockDevice::read_batch_done()`).
    #[inline]
    pub fn read_done(&self, inode: InodeId, done: Nanos, batch: u64) -> Nanos {
        match self.inodes[inode.idx()].dev {
            Some(d) if batch != 0 => self.devices[d.idx()].read_batch_done(batch, done),
            _ => done,
        }
    }

    /// `filemap_read()`'s per-folio work on a large folio `folio` a read visits (6.18's
    /// `filemap_get_read_batch()` xarray step, `folio_try_get()`, `folio_put()`:
    /// `CpuCost::read_large_folio`, 0 unless a host recording's calibration sets it), paid
    /// where [`Kernel::filemap_read`] first meets the folio. Out of line and cold, called only
    /// for a page that is not order-0 (the flag test the loop already makes): inlined, its
    /// `Kernel::cpu()` and the `large` flag kept live across the loop's calls cost the order-0
    /// hit path 8 instructions a page (callgrind, 160.6 -> 168.6 per lru_gen hit) and a fifth
    /// of its speed (`memtwin bench` (a) with lru_gen, 133-135 -> 106-111 M/s).
    #[cold]
    #[inline(never)]
    fn read_large_folio_cpu(&mut self, folio: PageId) {
        if self.pages.folio_nr_pages(folio) > 1 && self.cost.read_large_folio != 0 {
            self.cpu(self.cost.read_large_folio);
        }
    }

    /// `folio_wait_locked()`: wait for a locked (under read I/O) page; returns when it is up to
    /// date. The flag test is inlined into the callers (the hit path meets unlocked pages);
    /// so is the look-up of the page's read among the mapping's in-flight ones: a page whose
    /// read is no longer recorded was unlocked by its completion (`folio_end_read()`; the
    /// engine clears `PG_locked` when it next looks), as [`Kernel::folio_wait_bit_common`]
    /// finds, without its call (a reader of limit reclaim's (b) meets every page of a
    /// readahead window so, once the next window's submission dropped its record). The wait
    /// is [`Kernel::folio_wait_bit_common`].
    #[inline(always)]
    pub fn folio_wait_locked(&mut self, page: PageId) {
        let p = &self.pages[page];
        if p.test(pg::LOCKED) {
            if self.mappings[p.mapping.idx()].inflight_done(p.index).is_none() {
                self.pages[page].flags &= !pg::LOCKED;
            } else {
                self.folio_wait_bit_common(page);
            }
        }
    }

    /// `folio_wait_bit_common(folio, PG_locked)` of a locked page: sleep until its read
    /// completes (a thrashing stall for a workingset page), then unlock it.
    #[inline(never)]
    pub fn folio_wait_bit_common(&mut self, page: PageId) {
        let (inode, index) = (self.pages[page].mapping, self.pages[page].index);
        if let Some((done, batch)) = self.mappings[inode.idx()].inflight_done(index) {
            let done = self.read_done(inode, done, batch);
            // folio_wait_bit_common(): waiting for the read of a refaulting workingset page
            // is thrashing, a memory stall.
            let thrashing = self.pages[page].test(pg::WORKINGSET);
            if thrashing {
                self.stall_enter(StallKind::Thrashing);
            }
            self.wait_until(done);
            if thrashing {
                self.stall_leave(StallKind::Thrashing);
            }
        }
        self.pages[page].flags &= !pg::LOCKED;
    }

    /// Whether `page` is still under read I/O at the current time; unlocks it if its read
    /// has completed. The flag and range tests are inlined into the callers (reclaim makes
    /// them for every folio it scans); the look-up of a locked folio's read is
    /// [`Kernel::folio_test_locked_io`].
    #[inline(always)]
    pub fn folio_test_locked(&mut self, page: PageId) -> bool {
        if let Some((ino, s, e)) = self.read_pinned {
            // The reader's batch holds a reference on the folio (filemap_get_read_batch()):
            // reclaim cannot free it (`folio_ref_freeze()` in __remove_mapping() fails) and
            // keeps it, as it keeps a locked one.
            let p = &self.pages[page];
            if p.mapping == ino && !p.test(pg::ANON) && p.index >= s && p.index < e {
                return true;
            }
        }
        if !self.pages[page].test(pg::LOCKED) {
            // Added by the readahead batch being built, not yet submitted: locked since
            // `filemap_add_folio()` (`__folio_set_locked()`), so reclaim cannot take it.
            if let Some((ino, s, e)) = self.ra_pending {
                let p = &self.pages[page];
                return p.mapping == ino && !p.test(pg::ANON) && p.index >= s && p.index < e;
            }
            return false;
        }
        self.folio_test_locked_io(page)
    }

    /// [`Kernel::folio_test_locked`] of a page with `PG_locked`: whether its read is still in
    /// flight; unlocks it if the read has completed.
    #[inline(never)]
    fn folio_test_locked_io(&mut self, page: PageId) -> bool {
        let (inode, index) = (self.pages[page].mapping, self.pages[page].index);
        match self.mappings[inode.idx()].inflight_done(index) {
            Some((done, batch)) if self.read_done(inode, done, batch) > self.now => true,
            _ => {
                self.pages[page].flags &= !pg::LOCKED;
                false
            }
        }
    }

    /// `post_alloc_hook()`'s `kernel_init_pages()` of a new buddy allocation of `nr` pages
    /// under `init_on_alloc` ([`crate::profile::KernelProfile::init_on_alloc`]: Debian's 6.1
    /// and 6.12 builds, `CONFIG_INIT_ON_ALLOC_DEFAULT_ON`): `clear_page()` a page, the CPU
    /// time of zeroing a page its user then overwrites; nothing without it. Called at every
    /// allocation the engine takes a frame for without `__GFP_ZERO`: page-cache folios,
    /// swap-cache folios (`__read_swap_cache_async()`), COW copies (`wp_page_copy()`), THPs
    /// (zeroed again by `clear_huge_page()`), slab frames (`allocate_slab()`) and zswap's
    /// zbud/zsmalloc pages. Not at a base anonymous fault: x86's
    /// `alloc_zeroed_user_highpage_movable()` asks `__GFP_ZERO`, the same single
    /// `kernel_init_pages()` its `clear_page` stands for. Page tables (`__GFP_ZERO` too) take
    /// no frame or CPU here.
    /// The profile's test inlined into the callers (one a page of every page-cache and
    /// anonymous allocation), the charge out of line (issue 17).
    #[inline(always)]
    pub(crate) fn post_alloc_init(&mut self, nr: u64) {
        if self.profile.init_on_alloc {
            self.post_alloc_clear(nr);
        }
    }

    /// [`Kernel::post_alloc_init`]'s `clear_page` of `nr` pages.
    #[inline(never)]
    fn post_alloc_clear(&mut self, nr: u64) {
        self.cpu(self.cost.clear_page * nr);
    }

    /// `read_pages()`: submit the `nr` freshly added pages starting at `index` for reading,
    /// lock them until their read completes, and account it (`pgpgin`, task read_bytes). The
    /// file system's `->readahead()` (`mpage_readahead()`, ext4's `ext4_mpage_readpages()`,
    /// `iomap_readahead()`) builds bios of at most `BIO_MAX_VECS` folios each (`bio_alloc(bdev,
    /// bio_max_segs(nr_pages), ...)`; one segment per folio) and submits each when it is full;
    /// the end of a bio's I/O (`mpage_end_io()` / `folio_end_read()`) unlocks its folios, so
    /// a window's first folios are up to date while its later bios are still on the device.
    pub fn read_pages(&mut self, inode: InodeId, index: u32, nr: u32) {
        if nr == 0 {
            return;
        }
        self.cpu(self.cost.submit_io);
        let (dev, base) = (self.inodes[inode.idx()].dev, self.inodes[inode.idx()].disk_base);
        let dev = dev.expect("read_pages() is never called for shmem");
        self.blk_get_request(dev.idx(), crate::blkdev::RqClass::Sync, base + index as u64, nr as u64);
        // the plug's requests reach the loop driver together: one worker wake-up (EEVDF lag)
        self.loop_worker_woken(dev.idx());
        let now = self.now;
        let d = &self.devices[dev.idx()];
        let m = &mut self.mappings[inode.idx()];
        m.inflight.retain(|r| d.read_batch_done(r.batch, r.done) > now);
        if m.inflight.capacity() == 0 {
            // A file's first request takes room for one (a small file never has more; a Vec's
            // first allocation would hold four, kept for the file's life).
            m.inflight.reserve_exact(1);
        }
        let end = index + nr;
        let mut start = index;
        while start < end {
            // One bio: up to BIO_MAX_VECS folios from `start`.
            // The bio's run of order-0 folios (the common ones), with the mapping and the page
            // arena as arguments (their bases held in registers).
            // The bio's segments (physically contiguous runs, `rq->nr_phys_segments`:
            // `bio_add_folio()` merges a folio into the last bvec when its frames follow it,
            // block/bio.c `bvec_try_merge_page()`) for the device's per-segment cost. Not
            // modelled: a bvec longer than the queue's `max_segment_size` counts as several
            // segments (block/blk-merge.c `bvec_split_segs()`; the loop device's is 65536, so a
            // 256 KiB folio is 4 segments there), so large folios count fewer segments than the
            // device sees.
            let (mut segs, mut last) = (0u64, u32::MAX - 1);
            let (mut i, mut vecs) = (start, 0u32);
            loop {
                // A run of order-0 folios (and empty indices), a vec each, up to the bio's room.
                let (j, n) = lock_order0_run(&self.mappings[inode.idx()], &mut self.pages, i, end.min(i.saturating_add(BIO_MAX_VECS - vecs)), &mut segs, &mut last);
                (i, vecs) = (j, vecs + n);
                if i >= end || vecs >= BIO_MAX_VECS {
                    break;
                }
                // The run stopped at a page of a large folio: the folio's pages from it, one vec.
                // Each page of the folio is locked until its read completes (the flags are
                // set as the bio takes the folio: the submission does not look at them).
                let p = self.mappings[inode.idx()].lookup(i).expect("lock_order0_run() stops early only at a large folio's page");
                let head = self.pages.page_folio(p);
                let step = (self.pages[head].index + self.pages.folio_nr_pages(head) as u32).min(end) - i;
                self.pages[p].flags |= pg::LOCKED | pg::FRESH;
                segs += (p.0 != last.wrapping_add(1)) as u64;
                last = p.0 + step - 1;
                for j in i + 1..i + step {
                    if let Some(q) = self.mappings[inode.idx()].lookup(j) {
                        self.pages[q].flags |= pg::LOCKED | pg::FRESH;
                    }
                }
                i += step;
                vecs += 1;
            }
            let done = self.devices[dev.idx()].submit_read_segs(base + start as u64, (i - start) as u64, segs, self.now);
            let batch = self.devices[dev.idx()].read_batch();
            self.mappings[inode.idx()].inflight.push(Inflight { start, end: i, done, batch });
            start = i;
        }
        self.vmstat.count(VmEvent::Pgpgin, nr as u64 * PAGE_SIZE / 1024);
        self.io.read_bytes += nr as u64 * PAGE_SIZE;
    }

    /// `filemap_read()`: one `read()` of `len` bytes at `pos` by a task in `memcg`: look each
    /// page up, read missing ones with readahead, wait for pages under I/O, mark them accessed
    /// and copy them out. Returns the bytes read (0 at end of file). A page counts as a miss
    /// when this read, or readahead for it, brought it in from disk, and as a hit otherwise.
    pub fn filemap_read(&mut self, inode: InodeId, pos: u64, len: u64, ra: &mut FileRaState, memcg: MemcgId) -> Result<u64, IoError> {
        // the previous read's return to user space: the loop worker it woke (kwork23)
        self.loop_worker_resched();
        self.cpu(self.cost.syscall);
        let size = self.inodes[inode.idx()].size;
        if pos >= size || len == 0 {
            return Ok(0);
        }
        let end = (pos + len).min(size);
        let first = (pos / PAGE_SIZE) as u32;
        let last = ((end - 1) / PAGE_SIZE) as u32;
        let recharge = self.policies.recharge_on_pagecache_get;
        let mut last_folio = PageId::NIL;
        for index in first..=last {
            self.page_events += 1;
            // The page's `Page` as the hit arm read it (its `PG_fresh` cleared), or None where
            // an arm changed it after: read once for the tests below (issue 17's (a)).
            let mut hit_pv = None;
            let page = match self.mappings[inode.idx()].lookup(index) {
                Some(p) => {
                    let mut pv = self.pages[p];
                    // A page read in from disk for this stream (readahead) and not accessed
                    // since counts as a miss, as cachestat counts it.
                    if pv.test(pg::FRESH) {
                        pv.flags &= !pg::FRESH;
                        self.pages[p].flags = pv.flags;
                        self.io.misses += 1;
                    } else {
                        self.io.hits += 1;
                    }
                    if recharge && pv.memcg == MemcgId::NONE {
                        // The seed-000 RFC charges single pages: a large folio is split.
                        self.split_page_folio(p);
                        // pagecache_get_page() of the seed-000 RFC: the first reader pays.
                        // A failed charge leaves the page uncharged on the root LRU.
                        self.cpu(self.cost.charge);
                        if self.try_charge_memcg(memcg, 1, true).is_ok() {
                            self.commit_charge(p, memcg);
                        }
                    } else {
                        hit_pv = Some(pv);
                    }
                    p
                }
                None if self.shmem_swap_entry(inode, index).is_some() => {
                    // shmem_get_folio(SGP_READ) meets a swap entry: shmem_swapin_folio()
                    // (shmem.rs, tmpfs21b).
                    self.io.misses += 1;
                    self.shmem_swapin_folio(inode, index, memcg).ok_or(IoError::Oom)?
                }
                None if self.inodes[inode.idx()].is_shmem() => {
                    // shmem_file_read_iter(): a hole reads as zeroes (ZERO_PAGE), nothing is
                    // allocated or charged.
                    self.io.hits += 1;
                    self.cpu(self.cost.lookup + self.cost.copy_page);
                    continue;
                }
                None => {
                    self.io.misses += 1;
                    if index > first && !self.profile.ra_prev_pos_per_read {
                        // Before 6.6 filemap_read() copied the folios before the missing page
                        // and moved `ra->prev_pos` to the position after them ("ra->prev_pos =
                        // iocb->ki_pos" per folio copied); filemap_get_pages() then finds
                        // nothing at the page and calls page_cache_sync_readahead() from
                        // there: a miss inside a read is a sequential one. From 6.6
                        // (`KernelProfile::ra_prev_pos_per_read`) `ra->prev_pos` is still the
                        // previous read's end: page_cache_sync_ra() sees a jump and takes the
                        // context readahead of the pages cached before the miss.
                        ra.prev_pos = Some(index as u64 * PAGE_SIZE);
                        ra.prev_index = Some(index - 1);
                    }
                    self.page_cache_sync_ra(ra, inode, index, last - index + 1, memcg);
                    match self.mappings[inode.idx()].lookup(index) {
                        Some(p) => {
                            self.pages[p].flags &= !pg::FRESH;
                            p
                        }
                        None => {
                            // filemap_create_folio(): readahead gave up; read this page alone
                            // with a normal allocation that may reclaim hard or OOM.
                            let p = self.filemap_add_folio(inode, index, memcg, true)?;
                            self.read_pages(inode, index, 1);
                            self.pages[p].flags &= !pg::FRESH;
                            p
                        }
                    }
                }
            };
            // The folio's flags live in its head (`page_folio()`): the reader meets a marked
            // folio at whichever of its pages it enters.
            // An order-0 page is its own folio, read once here for the tests below.
            let pv = match hit_pv {
                Some(pv) => pv,
                None => self.pages[page],
            };
            let order0 = pv.flags & (pg::HEAD | pg::TAIL) == 0;
            let folio = if order0 { page } else { self.pages.page_folio(page) };
            // A page of a large folio: filemap_get_read_batch() returns the folio and
            // copy_folio_to_iter() copies the read's part of it at once, measured as one cost
            // a page (`read_large_folio_page`, M15), paid with the copy below.
            // A tmpfs huge page is read a page at a time (6.1 shmem_file_read_iter():
            // shmem_get_folio(SGP_READ) and copy_page_to_iter() per page): the order-0 costs,
            // and the folio marked accessed at each page the read enters at its start
            // ("Mark the page accessed if we read the beginning"), shmem.rs.
            let shmem_large = !order0 && self.pages[folio].test(pg::SWAPBACKED);
            let large = !order0 && !shmem_large && self.pages.folio_nr_pages(folio) > 1;
            if !large {
                self.cpu(self.cost.lookup);
            }
            let folio_flags = if order0 { pv.flags } else { self.pages[folio].flags };
            // An order-0 page's flags as they stand now, while nothing since `pv` could have
            // changed them (`cpu()` touches no page; the async readahead and the wait below
            // may): its wait and `folio_mark_accessed()` test these instead of reading the
            // page again.
            let mut flags_now = if order0 { Some(pv.flags) } else { None };
            if folio_flags & pg::READAHEAD != 0 {
                flags_now = None;
                self.pages[folio].flags &= !pg::READAHEAD;
                let (fi, order) = (self.pages[folio].index, self.pages.folio_order(folio));
                // filemap_readahead() runs with the batch's folios referenced, the marked one
                // (this page's) last.
                let saved = self.read_pinned.replace((inode, fi, fi + (1 << order)));
                self.page_cache_async_ra_folio(ra, inode, fi, order, last - fi + 1, memcg);
                self.read_pinned = saved;
            }
            match flags_now {
                Some(f) if f & pg::LOCKED == 0 => debug_assert_eq!(f, self.pages[page].flags, "the hit path's flags are not the page's"),
                _ => {
                    flags_now = None;
                    self.folio_wait_locked(page);
                }
            }
            if shmem_large {
                if index != first || pos.is_multiple_of(PAGE_SIZE) {
                    self.folio_mark_accessed(folio);
                }
                self.cpu(self.cost.copy_page);
                continue;
            }
            // "When a read accesses the same folio several times, only mark it as accessed
            // the first time": each folio once per read, the first one not if the previous
            // read ended in it (`pos_same_folio()`).
            if folio != last_folio {
                // filemap_get_read_batch() and the per-folio steps of filemap_read() once for
                // each large folio the read visits (`read_large_folio`; 0 in the reference table,
                // a host recording's per-order measurement sets it: hostcal.rs).
                if !order0 {
                    self.read_large_folio_cpu(folio);
                }
                // (A folio's index and size stay while this read holds it.)
                let (fi, nr) = if order0 { (pv.index as u64, 1) } else { (self.pages[folio].index as u64, self.pages.folio_nr_pages(folio)) };
                let same_as_last = index == first && ra.prev_pos.is_some_and(|pp| pp > 0 && ((pp - 1) / PAGE_SIZE).wrapping_sub(fi) < nr);
                if !same_as_last {
                    match flags_now {
                        Some(f) => self.folio_mark_accessed_flags(folio, f),
                        None => self.folio_mark_accessed(folio),
                    }
                }
                last_folio = folio;
            }
            self.cpu(if large { self.cost.read_large_folio_page } else { self.cost.copy_page });
        }
        ra.prev_index = Some(last);
        ra.prev_pos = Some(end);
        Ok(end - pos)
    }

    /// `generic_perform_write()`: one `write()` of `len` bytes at `pos` by a task in `memcg`:
    /// find or create each page, copy into it, mark it accessed (tmpfs always, other file
    /// systems before 4.7: `KernelProfile::write_marks_accessed`) and dirty, and throttle in
    /// throttle in `balance_dirty_pages_ratelimited()` after each page. Writes extend the file.
    /// A mapping with large folios in an era whose write path creates them
    /// (`LargeFolios::write`) goes folio by folio instead
    /// ([`Kernel::generic_perform_write_folios`]).
    /// Returns the bytes written: all of them, or, when a page's charge ended the task's quantum
    /// ([`crate::sched::Resched`]; `resched.wake` set), those of the pages before it, the write
    /// going on from there at the task's wake-up.
    pub fn generic_perform_write(&mut self, inode: InodeId, pos: u64, len: u64, memcg: MemcgId) -> Result<u64, IoError> {
        // The rest of a call a charge's sleep interrupted: its entry was paid (sched.rs Resumed).
        let resumed = self.take_resumed(crate::sched::Resumed::ENTRY);
        if !resumed {
            self.cpu(self.cost.syscall);
        }
        if len == 0 {
            return Ok(0);
        }
        let shmem = self.inodes[inode.idx()].is_shmem();
        if !shmem && self.mappings[inode.idx()].max_order > 0 && self.profile.large_folios.write != crate::profile::WriteOrder::Order0 {
            return self.generic_perform_write_folios(inode, pos, len, memcg);
        }
        let end = pos + len;
        let first = (pos / PAGE_SIZE) as u32;
        let last = ((end - 1) / PAGE_SIZE) as u32;
        // A block file system's write_begin attaches buffer heads to the page (ext4:
        // create_empty_buffers() in every era); they are slab taken from the page allocator
        // (slab.rs), charged to the page's memcg from 4.19 (`account_buffer_heads`).
        let buffers = !shmem;
        let account = self.profile.account_buffer_heads;
        // tmpfs marks the page in every era (shmem_get_folio_gfp() with SGP_WRITE); block
        // file systems before 4.7 only.
        let mark_accessed = self.profile.write_marks_accessed || shmem;
        // A tmpfs mapping with large folios (6.14+, a mount with huge=) gets one write_begin a
        // folio from the write, so one mark (shmem.rs `shmem_write_begin_per_folio`); the
        // folio last marked by this call.
        let per_folio = shmem && self.shmem_write_begin_per_folio(inode);
        let mut marked = None;
        let mut stopped = None;
        for index in first..=last {
            self.page_events += 1;
            let page = match self.mappings[inode.idx()].lookup(index) {
                Some(p) => {
                    // The era writes single pages: a large folio (readahead's) is split first;
                    // a tmpfs huge page is written in place, its folio marked accessed at each
                    // page before 6.14 and once a write_begin chunk from 6.14 (`per_folio`:
                    // shmem_write_begin() -> shmem_get_folio_gfp(SGP_WRITE), shmem.rs).
                    let p = if shmem { self.pages.page_folio(p) } else { self.split_page_folio(p) };
                    self.io.hits += 1;
                    self.folio_wait_locked(p);
                    if buffers && !self.pages[p].test(pg::PRIVATE) {
                        self.folio_attach_buffers(p);
                    }
                    p
                }
                // shmem_get_folio_gfp() meets a swap entry: shmem_swapin_folio() (shmem.rs,
                // tmpfs21b); the page is written in place.
                None if shmem && self.shmem_swap_entry(inode, index).is_some() => {
                    self.io.misses += 1;
                    self.shmem_swapin_folio(inode, index, memcg).ok_or(IoError::Oom)?
                }
                // A resumed call's first page is the one whose order-0 charge slept: 6.1
                // shmem_get_folio_gfp() is past its huge attempt there (alloc_nohuge), so no
                // second attempt or THP_FILE_FALLBACK (review48 L4).
                None if shmem && !(resumed && index == first) && {
                    // The chunk generic_perform_write() hands shmem_write_begin() at this page:
                    // from here to the write's end or the end of the mapping's largest folio
                    // (mapping_max_folio_size(): 2 MiB on a mount with huge=, 6.14+), whose
                    // end is the write_end shmem_get_folio_gfp() sizes its orders by (shmem.rs).
                    let p = pos.max(index as u64 * PAGE_SIZE);
                    let chunk = (crate::shmem::HPAGE_PMD_NR as u64) * PAGE_SIZE;
                    let write_end = end.min((p / chunk + 1) * chunk);
                    let orders = self.shmem_huge_orders(inode, index, write_end);
                    orders != 0 && self.shmem_alloc_large_folio(inode, index, orders, memcg).is_some()
                } => {
                    // A tmpfs huge page (shmem.rs); its later pages are hits.
                    self.io.misses += 1;
                    self.pages.page_folio(self.mappings[inode.idx()].lookup(index).expect("just added"))
                }
                None => {
                    self.io.misses += 1;
                    // The buffer heads ext4's write_begin attaches (create_empty_buffers()),
                    // charged before the page so that their reclaim cannot take it.
                    if buffers && account && !self.memcg_kmem_charge(memcg, BUFFER_HEAD_SLAB) {
                        return Err(IoError::Oom);
                    }
                    // Whole-page writes need no read; the engine treats every write as such.
                    // The page's charge may end the task's quantum (`IoError::Again`): the
                    // write goes on from this page at the task's wake-up.
                    self.resched.restartable_next = true;
                    let added = self.filemap_add_folio_paid(inode, index, memcg, true, true, crate::page_alloc::Gfp::node(self.cur_nid));
                    self.resched.restartable_next = false;
                    if buffers {
                        match added {
                            Ok(p) => {
                                self.pages[p].flags |= pg::PRIVATE;
                                self.pagecache_slab_alloc(BUFFER_HEAD_SLAB);
                            }
                            Err(_) if account => self.memcg_kmem_uncharge(memcg, BUFFER_HEAD_SLAB),
                            Err(_) => {}
                        }
                    }
                    if added == Err(IoError::Again) {
                        self.io.misses -= 1;
                        self.page_events -= 1;
                        stopped = Some(index);
                        break;
                    }
                    added?
                }
            };
            self.cpu(self.cost.copy_page);
            if mark_accessed && !(per_folio && marked == Some(page)) {
                self.folio_mark_accessed(page);
                marked = Some(page);
            }
            if !shmem {
                self.cpu(self.cost.write_begin_end);
                self.folio_mark_dirty(page);
                let ino = &mut self.inodes[inode.idx()];
                let page_end = end.min((index as u64 + 1) * PAGE_SIZE);
                if page_end > ino.size {
                    ino.size = page_end;
                }
                // After each page copied (`balance_dirty_pages_ratelimited()` in the loop).
                self.balance_dirty_pages_ratelimited(inode, memcg);
            }
        }
        // A charge that ended the task's quantum stopped the copy before page `stopped`.
        let end = stopped.map_or(end, |i| (i as u64 * PAGE_SIZE).max(pos));
        let ino = &mut self.inodes[inode.idx()];
        if end > ino.size {
            ino.size = end;
        }
        if self.pagecache_slab_owed() {
            self.pagecache_slab_settle();
        }
        Ok(end - pos)
    }

    /// `create_empty_buffers()` from a block file system's `write_begin` on a cached folio
    /// without buffers (read in by mpage readahead): one buffer head a page (a 4 KiB block),
    /// slab charged to the folio's memcg from 4.19 (`account_buffer_heads`). The folio is
    /// locked in write_begin, so the charge's reclaim cannot take it: the engine keeps it off
    /// its LRU list meanwhile, and puts it back at the head, where reclaim leaves a folio it
    /// could not lock.
    fn folio_attach_buffers(&mut self, p: PageId) {
        let bytes = BUFFER_HEAD_SLAB * self.pages.folio_nr_pages(p);
        let owner = self.pages[p].memcg;
        if !self.profile.account_buffer_heads {
            self.pages[p].flags |= pg::PRIVATE;
            self.pagecache_slab_alloc(bytes);
        } else if owner != MemcgId::NONE {
            let on_lru = self.pages[p].test(pg::LRU);
            let list = crate::mmzone::LruList::from_u8(self.pages[p].lru());
            if on_lru {
                let v = self.folio_lruvec(p);
                self.lruvecs[v].del(&mut self.pages, &mut self.lru_stats, p);
            }
            if self.memcg_kmem_charge_gfp(owner, bytes, false) {
                self.pages[p].flags |= pg::PRIVATE;
                self.pagecache_slab_alloc(bytes);
            }
            if on_lru {
                let v = self.folio_lruvec(p);
                self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, list);
            }
        }
    }

    /// `generic_perform_write()` on a mapping with large folios (ext4 6.16+, XFS 6.6+:
    /// `LargeFolios::write`): the write goes a chunk at a time, `mapping_max_folio_size()`
    /// aligned in the file; `balance_dirty_pages_ratelimited()` before each chunk; the file
    /// system's `write_begin` finds the folio at the chunk's first page, or creates one of
    /// `fgf_set_order(bytes)` ([`Kernel::write_begin_get_folio`]); the copy goes to the end of
    /// the chunk or of the folio, whichever is first; `write_end` dirties the folio whole
    /// (`folio_mark_dirty()`, counted in pages). A new folio's allocation, charge, buffer
    /// heads, write_begin/write_end, copy and dirtying cost `write_large_folio_page` (M14) a
    /// page; a cached folio's copy `copy_page` a page, its write_begin/write_end and dirtying
    /// once. Returns as [`Kernel::generic_perform_write`].
    pub fn generic_perform_write_folios(&mut self, inode: InodeId, pos: u64, len: u64, memcg: MemcgId) -> Result<u64, IoError> {
        let end = pos + len;
        let chunk = PAGE_SIZE << self.mappings[inode.idx()].max_order;
        let mark_accessed = self.profile.write_marks_accessed;
        let mut cur = pos;
        while cur < end {
            let offset = cur & (chunk - 1);
            let bytes = (chunk - offset).min(end - cur);
            self.balance_dirty_pages_ratelimited(inode, memcg);
            let index = (cur / PAGE_SIZE) as u32;
            let (folio, new) = match self.mappings[inode.idx()].lookup(index) {
                Some(p) => {
                    let f = self.pages.page_folio(p);
                    self.folio_wait_locked(f);
                    if !self.pages[f].test(pg::PRIVATE) {
                        self.folio_attach_buffers(f);
                    }
                    (f, false)
                }
                None => match self.write_begin_get_folio(inode, index, bytes, memcg)? {
                    Some(f) => (f, true),
                    // The charge ended the task's quantum: the write goes on from here.
                    None => break,
                },
            };
            let fend = (self.pages[folio].index as u64 + self.pages.folio_nr_pages(folio)) * PAGE_SIZE;
            let copied = bytes.min(fend - cur);
            let npages = ((cur + copied - 1) / PAGE_SIZE - cur / PAGE_SIZE + 1) as u32;
            self.page_events += npages as u64;
            if new {
                self.io.misses += npages as u64;
                self.cpu(self.cost.write_large_folio_page * npages as u64);
            } else {
                self.io.hits += npages as u64;
                self.cpu(self.cost.copy_page * npages as u64);
                self.cpu(self.cost.write_begin_end);
            }
            if mark_accessed {
                self.folio_mark_accessed(folio);
            }
            self.folio_mark_dirty_paid(folio, !new);
            cur += copied;
            let ino = &mut self.inodes[inode.idx()];
            if cur > ino.size {
                ino.size = cur;
            }
        }
        if self.pagecache_slab_owed() {
            self.pagecache_slab_settle();
        }
        Ok(cur - pos)
    }

    /// `write_begin_get_folio()` (6.18; ext4_write_begin() and iomap_get_folio() before) ->
    /// `__filemap_get_folio(FGP_WRITEBEGIN | fgf_set_order(len))` for an index with no folio:
    /// the order of the write's `len` (`fgf_set_order()`: `ilog2(len) - PAGE_SHIFT`, 0 up to a
    /// page), capped at the mapping's maximum and lowered to the index's alignment
    /// (`__ffs(index)`); then each order down to 0 (above 0 a `__GFP_NORETRY` allocation;
    /// before 6.8 no order 1) until `filemap_add_folio()` takes one: a range holding a page
    /// (`-EEXIST`) or a failed allocation or charge tries the next order. The charge reclaims
    /// (`mapping_gfp_mask()`); the folio's buffer heads (`create_empty_buffers()`, one a page)
    /// are charged before it, as [`Kernel::generic_perform_write`] does for a page. `Ok(None)`
    /// when the charge ended the task's quantum (nothing added).
    pub(crate) fn write_begin_get_folio(&mut self, inode: InodeId, index: u32, len: u64, memcg: MemcgId) -> Result<Option<PageId>, IoError> {
        let no_order1 = self.profile.large_folios.write == crate::profile::WriteOrder::SizedNoOrder1;
        let shift = 63 - len.leading_zeros();
        let mut order = if shift <= crate::types::PAGE_SHIFT { 0 } else { shift - crate::types::PAGE_SHIFT };
        order = order.min(self.mappings[inode.idx()].max_order as u32);
        if order > 0 && index & ((1 << order) - 1) != 0 {
            order = index.trailing_zeros();
        }
        let account = self.profile.account_buffer_heads;
        // The folio whose charge a sleep interrupted is allocated again, its cost in the
        // write's per-page cost (sched.rs Resumed).
        self.take_resumed(crate::sched::Resumed::PAGE);
        loop {
            if order == 1 && no_order1 {
                order = 0;
            }
            let bh = BUFFER_HEAD_SLAB << order;
            if account && !self.memcg_kmem_charge(memcg, bh) {
                return Err(IoError::Oom);
            }
            self.resched.restartable_next = true;
            let added = if order == 0 {
                self.filemap_add_folio_paid(inode, index, memcg, true, false, crate::page_alloc::Gfp::node(self.cur_nid)).map_err(|e| match e {
                    IoError::Again => AddError::Again,
                    _ => AddError::NoMem,
                })
            } else {
                self.filemap_add_large_folio_paid(inode, index, order, memcg, true, false)
            };
            self.resched.restartable_next = false;
            match added {
                Ok(f) => {
                    self.pages[f].flags |= pg::PRIVATE;
                    self.pagecache_slab_alloc(bh);
                    return Ok(Some(f));
                }
                Err(e) => {
                    if account {
                        self.memcg_kmem_uncharge(memcg, bh);
                    }
                    match e {
                        AddError::Again => return Ok(None),
                        _ if order == 0 => return Err(IoError::Oom),
                        _ => order -= 1,
                    }
                }
            }
        }
    }

    /// `try_to_free_buffers()` (fs/buffer.c): free the buffer heads of `page` (before it
    /// leaves the page cache, or its memcg): their slab goes back (slab.rs) and, when they were
    /// charged (`account_buffer_heads`), their charge.
    /// A large folio's head holds the buffer heads of all its blocks (one a page).
    pub fn try_to_free_buffers(&mut self, page: PageId) {
        let bytes = BUFFER_HEAD_SLAB * self.pages.folio_nr_pages(page);
        self.pages[page].flags &= !pg::PRIVATE;
        if self.profile.account_buffer_heads {
            let memcg = self.pages[page].memcg;
            self.memcg_kmem_uncharge(memcg, bytes);
        }
        self.pagecache_slab_free(bytes);
    }
}


/// `MMAP_LOTSAMISS` (mm/filemap.c): after this many more mmap misses than hits, read-around
/// stops.
pub const MMAP_LOTSAMISS: u32 = 100;

/// Page faults on file mappings (mm/filemap.c 6.1): `filemap_fault()`, its mmap readahead
/// and `filemap_map_pages()`.
impl Kernel {
    /// `filemap_fault()`: the page-cache page behind page `i` of file VMA `vma`, read in if
    /// need be. A page found starts async readahead at a `PG_readahead` marker
    /// (`do_async_mmap_readahead()`, not on a retried fault: `FAULT_FLAG_TRIED`); a missing
    /// one is a major fault (`PGMAJFAULT`), read with `do_sync_mmap_readahead()` or alone.
    /// Waits for the page's read. A fault that waited for I/O, having dropped mmap_lock to do
    /// so (`maybe_unlock_mmap_for_io()`, `lock_folio_maybe_drop_mmap()`), returns `None`:
    /// `VM_FAULT_RETRY`, the caller faults again.
    pub fn filemap_fault(&mut self, vma: crate::memory::VmaId, i: u32, tried: bool) -> Result<Option<PageId>, crate::memory::FaultError> {
        let v = vma.0 as usize;
        let (inode, pgoff) = {
            let f = self.vmas[v].file.as_ref().expect("a file VMA");
            (f.inode, f.pgoff + i)
        };
        let memcg = self.vmas[v].memcg;
        self.page_events += 1;
        self.cpu(self.cost.lookup);
        let retry;
        // filemap_get_folio() holds a reference on the folio it finds (and the fault keeps it
        // until the PTE is set): reclaim run by the readahead's allocations or during the wait
        // cannot free it (`folio_ref_freeze()` in __remove_mapping() fails).
        let saved = self.read_pinned.replace((inode, pgoff, pgoff + 1));
        let page = match self.mappings[inode.idx()].lookup(pgoff) {
            Some(p) => {
                // The fault is retried when it dropped mmap_lock (`fpin`): to start async
                // readahead at a PG_readahead marker (do_async_mmap_readahead() ->
                // maybe_unlock_mmap_for_io()), or to wait for a page still under read I/O
                // (lock_folio_maybe_drop_mmap() sleeps without mmap_lock). A page found unlocked
                // and unmarked is mapped at once: a store's do_shared_fault() of a resident page
                // is one fault. (The fault's own reference, `read_pinned`, is not the lock.)
                let started = !tried && self.do_async_mmap_readahead(vma, p, pgoff);
                retry = !tried && (started || {
                    let pin = self.read_pinned.take();
                    let locked = self.folio_test_locked(p);
                    self.read_pinned = pin;
                    locked
                });
                p
            }
            None => {
                retry = !tried;
                self.count_pgmajfault(memcg);
                self.do_sync_mmap_readahead(vma, pgoff);
                match self.mappings[inode.idx()].lookup(pgoff) {
                    Some(p) => p,
                    None => {
                        // __filemap_get_folio(FGP_CREAT) + filemap_read_folio().
                        let p = match self.filemap_add_folio(inode, pgoff, memcg, true) {
                            Ok(p) => p,
                            Err(_) => {
                                self.read_pinned = saved;
                                return Err(crate::memory::FaultError::Oom);
                            }
                        };
                        self.read_pages(inode, pgoff, 1);
                        p
                    }
                }
            }
        };
        // The fault maps the page: the first access of a page read ahead for it.
        self.pages[page].flags &= !pg::FRESH;
        self.folio_wait_locked(page);
        self.read_pinned = saved;
        Ok(if retry { None } else { Some(page) })
    }

    /// `do_sync_mmap_readahead()` (6.1; 6.16+ as noted): nothing for `VM_RAND_READ` or without
    /// a window; for `VM_SEQ_READ` a sequential window (`page_cache_sync_ra()` of `ra_pages`);
    /// otherwise, unless the file has seen more than `MMAP_LOTSAMISS` misses than hits,
    /// read-around: a window of `ra_pages` centred on the fault, its last quarter async, read
    /// by `page_cache_ra_order()`: `page_cache_ra_order(&ractl, ra, 0)` until 6.15
    /// (`RaOrder::MarkedPlus2`), and from 6.16 after `ra->order = 0` (`RaOrder::FileOrder`:
    /// order-0 folios, and the file's next asynchronous window, which the read-around's
    /// `PG_readahead` mark starts, is of order 2 again, not of the order an earlier sequential
    /// stream of the file had reached). From 6.16 (`KernelProfile::exec_ra_forward`) a
    /// `VM_EXEC` mapping takes its own branch instead of read-around, even with
    /// `VM_RAND_READ`: `ra_pages` from the fault (`round_down()` to `exec_folio_order()`, 0 on
    /// x86) forward, ending at the VMA's end at the latest, `async_size = 0`, `ra->order =
    /// exec_folio_order()`; the text below the fault is not read.
    pub fn do_sync_mmap_readahead(&mut self, vma: crate::memory::VmaId, pgoff: u32) {
        let v = vma.0 as usize;
        let memcg = self.vmas[v].memcg;
        let nr_vma_pages = self.vmas[v].pages.len() as u32;
        let exec_forward = self.profile.exec_ra_forward;
        let f = self.vmas[v].file.as_mut().expect("a file VMA");
        let exec = exec_forward && f.exec;
        // 6.16+: `if ((vm_flags & (VM_RAND_READ | VM_EXEC)) == VM_RAND_READ) return`.
        if (f.rand_read && !exec) || f.ra.ra_pages == 0 {
            return;
        }
        let inode = f.inode;
        if f.seq_read {
            let mut ra = std::mem::take(&mut f.ra);
            let n = ra.ra_pages;
            self.page_cache_sync_ra(&mut ra, inode, pgoff, n, memcg);
            self.vmas[v].file.as_mut().expect("a file VMA").ra = ra;
            return;
        }
        if f.mmap_miss < MMAP_LOTSAMISS * 10 {
            f.mmap_miss += 1;
        }
        if f.mmap_miss > MMAP_LOTSAMISS {
            return;
        }
        let mut ra = std::mem::take(&mut f.ra);
        let ra_pages = ra.ra_pages;
        if exec {
            // `exec_folio_order()` is 0 on x86 (no arch override): `round_down(pgoff, 1)` is
            // the fault's page, and the VMA's first page is below it.
            let vma_end = f.pgoff + nr_vma_pages;
            ra.order = 0;
            ra.start = pgoff;
            ra.size = ra_pages.min(vma_end.saturating_sub(pgoff)).max(1);
            ra.async_size = 0;
        } else {
            ra.start = pgoff.saturating_sub(ra_pages / 2);
            ra.size = ra_pages;
            ra.async_size = ra_pages / 4;
            if self.profile.large_folios.ra == crate::profile::RaOrder::FileOrder {
                ra.order = 0;
            }
        }
        if self.mappings[inode.idx()].max_order == 0 {
            // page_cache_ra_order() without large folios: do_page_cache_ra() of the window.
            let (start, size, async_size) = (ra.start, ra.size, ra.async_size);
            self.do_page_cache_ra(inode, start, size, async_size, memcg);
        } else {
            self.page_cache_ra_order(&mut ra, inode, None, memcg);
        }
        self.vmas[v].file.as_mut().expect("a file VMA").ra = ra;
    }

    /// `do_async_mmap_readahead()` (6.1; 6.18): a fault found `page`: one mmap miss less (on
    /// 6.18 only if its folio is not locked, `KernelProfile::mmap_miss_skips_locked`), and the
    /// next window if its folio carries `PG_readahead` (none for `VM_RAND_READ`). The flag is
    /// the folio's (`folio_test_readahead()`): a fault on any page of a marked large folio
    /// starts the window, with the fault's `pgoff` as the readahead index
    /// (`DEFINE_READAHEAD(..., vmf->pgoff)`), so `page_cache_async_ra()` takes it for the
    /// expected marker only when it is the folio's first page. Returns whether it met the
    /// marker: it then dropped mmap_lock for the readahead (`maybe_unlock_mmap_for_io()`), and
    /// the fault is retried.
    pub fn do_async_mmap_readahead(&mut self, vma: crate::memory::VmaId, page: PageId, pgoff: u32) -> bool {
        let v = vma.0 as usize;
        let memcg = self.vmas[v].memcg;
        let f = self.vmas[v].file.as_mut().expect("a file VMA");
        if f.rand_read || f.ra.ra_pages == 0 {
            return false;
        }
        // 6.18 (`mmap_miss_skips_locked`): "If the folio is locked, we're likely racing against
        // another fault": a folio still under its read (the fault's own reference is not the
        // lock) leaves mmap_miss alone.
        let skip = self.profile.mmap_miss_skips_locked && {
            let pin = self.read_pinned.take();
            let locked = self.folio_test_locked(page);
            self.read_pinned = pin;
            locked
        };
        let f = self.vmas[v].file.as_mut().expect("a file VMA");
        if !skip {
            f.mmap_miss = f.mmap_miss.saturating_sub(1);
        }
        let folio = self.pages.page_folio(page);
        if self.pages[folio].test(pg::READAHEAD) {
            self.pages[folio].flags &= !pg::READAHEAD;
            let inode = f.inode;
            let order = self.pages.folio_order(folio);
            let mut ra = std::mem::take(&mut f.ra);
            let n = ra.ra_pages;
            self.page_cache_async_ra_folio(&mut ra, inode, pgoff, order, n, memcg);
            self.vmas[v].file.as_mut().expect("a file VMA").ra = ra;
            return true;
        }
        false
    }

    /// `filemap_map_pages()` (6.1): every page of `first..end` of `vma` that is resident, up
    /// to date, not locked and not in a `PG_readahead` folio (`next_uptodate_page()`, 6.2+
    /// `next_uptodate_folio()`) takes one
    /// off `mmap_miss` (from 6.10, `filemap_map_folio_range()`/`filemap_map_order0_folio()`,
    /// only if its folio is not `PG_workingset`: `KernelProfile::mmap_miss_skips_workingset`)
    /// and, unless its PTE is there already, is mapped. No fault is counted
    /// for them and they are not marked accessed (their PTEs are young: x86's protections
    /// carry `_PAGE_ACCESSED`).
    pub fn filemap_map_pages(&mut self, vma: crate::memory::VmaId, first: u32, end: u32) {
        let v = vma.0 as usize;
        let (inode, pgoff) = {
            let f = self.vmas[v].file.as_ref().expect("a file VMA");
            (f.inode, f.pgoff)
        };
        let size = self.inodes[inode.idx()].size;
        let last_page = (size.max(1) - 1) / PAGE_SIZE;
        let skip_workingset = self.profile.mmap_miss_skips_workingset;
        let mut mapped = 0u32;
        for i in first..end {
            if (pgoff + i) as u64 > last_page {
                break;
            }
            let Some(p) = self.mappings[inode.idx()].lookup(pgoff + i) else { continue };
            // next_uptodate_folio() skips a whole folio that is locked or marked.
            let folio = self.pages.page_folio(p);
            if self.pages[folio].test(pg::READAHEAD) || self.folio_test_locked(p) {
                continue;
            }
            // 6.10+: "Don't decrease mmap_miss" for a recently evicted (workingset) folio.
            if !(skip_workingset && self.pages[folio].test(pg::WORKINGSET)) {
                mapped += 1;
            }
            let cur = self.vmas[v].pages[i as usize];
            if cur != PageId::NIL {
                continue;
            }
            self.cpu(self.cost.lookup);
            // Mapped, not accessed: a page read ahead keeps FRESH until the task's access
            // (Kernel::handle_mm_fault_file counts that access a miss).
            self.page_add_file_rmap(vma, i, p);
        }
        let f = self.vmas[v].file.as_mut().expect("a file VMA");
        f.mmap_miss = f.mmap_miss.saturating_sub(mapped);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_encoding() {
        assert_eq!(Slot::EMPTY.as_page(), None);
        assert_eq!(Slot::EMPTY.as_shadow(), None);
        let s = Slot::page(PageId(0));
        assert_eq!(s.as_page(), Some(PageId(0)));
        assert_eq!(s.as_shadow(), None);
        let s = Slot::page(PageId(u32::MAX - 1));
        assert_eq!(s.as_page(), Some(PageId(u32::MAX - 1)));
        let sh = Slot(crate::workingset::pack_shadow(MemcgId(3), 99, true));
        assert_eq!(sh.as_page(), None);
        assert!(sh.as_shadow().is_some());
    }
}
