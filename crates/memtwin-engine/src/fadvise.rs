//! posix_fadvise() (mm/fadvise.c) and the seed-004 directory extension.
//!
//! `POSIX_FADV_DONTNEED` starts asynchronous writeback of the range's dirty pages without
//! waiting, then drops only whole pages that are clean, unlocked and unmapped
//! (`mapping_try_invalidate()`); pages it cannot drop are moved to the inactive list
//! (`deactivate_file_folio()`), and shadow entries in the range are cleared. tmpfs ignores it.
//! `POSIX_FADV_WILLNEED` reads the range ahead (`force_page_cache_ra()`). A directory gets no
//! special treatment unless the `fadvise_directory` policy (Li Wang, 2013, never merged) is
//! on: then DONTNEED on a directory drops the page cache of every file below it that the
//! caller has permission on.

use crate::kernel::Kernel;
use crate::memcontrol::MemcgEvent;
use crate::mm_types::pg;
use crate::mmzone::LruList;
use crate::types::{InodeId, MemcgId, PageId, PAGE_SIZE};
use crate::vmstat::VmEvent;

/// The advice of a `posix_fadvise()` call.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Advice {
    /// `POSIX_FADV_DONTNEED`.
    DontNeed,
    /// `POSIX_FADV_WILLNEED`.
    WillNeed,
}

/// What a DONTNEED did.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct InvalidateStats {
    /// Pages dropped from the page cache.
    pub dropped: u64,
    /// Pages that could not be dropped (dirty, mapped, in a CPU's lru_add batch, or under
    /// writeback before v5.12) and were deactivated (those on an LRU list). Pages passed over
    /// (locked, or under writeback since v5.12) are in neither.
    pub kept: u64,
    /// Shadow entries cleared.
    pub shadows_cleared: u64,
}

impl Kernel {
    /// `generic_fadvise()` on `inode` for pages `first..=last` by a task in `memcg`.
    pub fn generic_fadvise(&mut self, inode: InodeId, first: u32, last: u32, advice: Advice, memcg: MemcgId) -> InvalidateStats {
        self.cpu(self.cost.syscall);
        if self.inodes[inode.idx()].is_shmem() {
            return InvalidateStats::default();
        }
        match advice {
            Advice::WillNeed => {
                let size = self.inodes[inode.idx()].size;
                if size == 0 {
                    return InvalidateStats::default();
                }
                let last = last.min(((size - 1) / PAGE_SIZE) as u32);
                // force_page_cache_ra(): in chunks of 2 MiB, no lookahead marker.
                let mut i = first;
                while i <= last {
                    let n = (last - i + 1).min(512);
                    self.do_page_cache_ra(inode, i, n, 0, memcg);
                    i += n;
                }
                InvalidateStats::default()
            }
            Advice::DontNeed => {
                // __filemap_fdatawrite_range(mapping, offset, endbyte, WB_SYNC_NONE): writeback
                // of the range only starts; its pages are under writeback during this call
                // (PG_writeback) and cannot be dropped by it.
                if first > last {
                    return InvalidateStats::default();
                }
                let m = &self.mappings[inode.idx()];
                // PG_dirty is the folio's (a large folio's head may lie before the range).
                let any_dirty = m.nrdirty > 0 && m.entries(first, last).any(|(_, s)| s.as_page().is_some_and(|p| self.pages[self.pages.page_folio(p)].test(pg::DIRTY)));
                if any_dirty {
                    self.writeback_range(inode, first, last, u64::MAX);
                    if self.mappings[inode.idx()].nrdirty == 0 {
                        self.dirty_inodes.remove(inode);
                    }
                }
                // "lru_add_drain();" before invalidate_mapping_pagevec() (6.1).
                self.lru_add_drain();
                let mut st = self.mapping_try_invalidate(inode, first, last);
                if st.kept > 0 && self.profile.lru_add_batch > 0 {
                    // "The failures may be due to the folio being in the LRU cache of a
                    // remote CPU. Drain all caches and try again." (6.1; 3.13 does the same
                    // when fewer pages than the range were dropped.)
                    self.lru_add_drain_all();
                    let again = self.mapping_try_invalidate(inode, first, last);
                    st.dropped += again.dropped;
                    st.kept = again.kept;
                    st.shadows_cleared += again.shadows_cleared;
                }
                st
            }
        }
    }

    /// `mapping_try_invalidate()` + `clear_shadow_entries()` (`invalidate_mapping_pages()`
    /// before 6.x): drop the clean, unlocked pages of `first..=last` that are not under
    /// writeback (no shadow entries: this is not reclaim), and clear the range's shadow
    /// entries. A locked page (read I/O in flight) is passed over: the `folio_trylock()`
    /// fails. A page under writeback is passed over too since v5.12 (`find_lock_entries()`);
    /// before, and for dirty pages in every era, the page that cannot be dropped is
    /// deactivated (`deactivate_file_folio()`).
    pub fn mapping_try_invalidate(&mut self, inode: InodeId, first: u32, last: u32) -> InvalidateStats {
        let mut st = InvalidateStats::default();
        let mut from = Some(first);
        while let Some(i) = from.and_then(|f| self.mappings[inode.idx()].next_entry(f, last)) {
            from = i.checked_add(1);
            let slot = self.mappings[inode.idx()].slot(i);
            if slot.as_shadow().is_some() {
                self.clear_shadow_entry(inode, i);
                st.shadows_cleared += 1;
                continue;
            }
            let Some(p) = slot.as_page() else { continue };
            self.cpu(self.cost.scan_page);
            // find_lock_entries() omits a large folio that begins before the range or extends
            // beyond it: it stays whole and cached.
            let folio = self.pages.page_folio(p);
            let nr = self.pages.folio_nr_pages(folio);
            if folio != p || i as u64 + nr - 1 > last as u64 {
                from = (self.pages[folio].index as u64 + nr).try_into().ok();
                continue;
            }
            let writeback = self.pages[p].test(pg::WRITEBACK);
            if self.folio_test_locked(p) || (writeback && self.profile.invalidate_skips_writeback) {
                continue;
            }
            // mapping_evict_folio() keeps a mapped page ("The refcount will be elevated if any
            // page in the folio is mapped"), and a page in a CPU's lru_add batch, whose
            // reference raises the count alike (3.13: remove_mapping()'s page_freeze_refs(page,
            // 2) fails); deactivate_file_folio() passes over a page off the LRU.
            if writeback || self.pages[p].test(pg::DIRTY) || self.pages[p].mapcount > 0 || self.folio_in_lru_batch(p) {
                self.deactivate_file_folio(p);
                st.kept += nr;
                continue;
            }
            self.delete_from_page_cache(p);
            st.dropped += nr;
        }
        st
    }

    /// `deactivate_file_folio()` → `lru_deactivate_file()` (mm/swap.c; `deactivate_page()` →
    /// `lru_deactivate_fn()` in 2.6.39-5.x, same rules): a page an invalidation could not drop
    /// leaves the active list; a dirty page or one under writeback goes to the head of the
    /// inactive list with `PG_reclaim`, so that it is rotated to the tail when its writeback
    /// ends; any other goes straight to the tail, to be reclaimed next.
    pub fn deactivate_file_folio(&mut self, p: PageId) {
        if !self.pages[p].test(pg::LRU) || self.pages[p].test(pg::SWAPBACKED) {
            return;
        }
        // lru_deactivate_file_fn(): "Some processes are using the page" (folio_mapped()), and
        // an unevictable page, stay where they are.
        if self.pages[p].mapcount > 0 || self.pages[p].lru() == LruList::Unevictable as u8 {
            return;
        }
        let v = self.folio_lruvec(p);
        let was_active = self.pages[p].test(pg::ACTIVE);
        self.lruvecs[v].del(&mut self.pages, &mut self.lru_stats, p);
        self.pages[p].flags &= !(pg::ACTIVE | pg::REFERENCED);
        if self.pages[p].test(pg::DIRTY) || self.pages[p].test(pg::WRITEBACK) {
            // lruvec_add_folio() before folio_set_reclaim(), as lru_deactivate_file_fn() has
            // it: under lru_gen the page goes to the second oldest generation, not the second
            // youngest that PG_reclaim on a dirty page would pick (lru_gen_add_folio()).
            self.lruvecs[v].add(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveFile);
            self.pages[p].flags |= pg::RECLAIM;
        } else {
            self.lruvecs[v].add_tail(&mut self.pages, &mut self.lru_stats, p, LruList::InactiveFile);
            self.vmstat.count(VmEvent::Pgrotated, 1);
        }
        if was_active {
            let memcg = self.pages[p].memcg;
            self.memcgs.count_event(memcg, MemcgEvent::Pgdeactivate, 1);
            self.vmstat.count(VmEvent::Pgdeactivate, 1);
        }
    }

    /// The seed-004 patch's permission test (`gather_inode()`): `inode_owner_or_capable()`
    /// or `capable(CAP_SYS_ADMIN)`, i.e. the file's owner, or root.
    pub fn may_invalidate(&self, inode: InodeId, uid: u32) -> bool {
        uid == 0 || self.inodes[inode.idx()].uid == uid
    }

    /// `shrink_pagecache_parent()` of the seed-004 patch (fs/dcache.c, Li Wang 2013):
    /// `d_walk()` below `dir`, recursively through its directories, gathering every file
    /// inode the caller owns (or any, for root) that has page cache, then
    /// `invalidate_mapping_pages(mapping, 0, -1)` on each. No writeback is started first (the
    /// patch's directory branch skips `__filemap_fdatawrite_range()`), so dirty pages stay,
    /// deactivated with PG_reclaim. d_walk() visits only dentries in the dcache; the engine's
    /// dentry shrinker never frees the dentry of a file with page cache, so every such file is
    /// reached. Returns what was dropped and kept, and the files skipped for permission.
    pub fn shrink_pagecache_parent(&mut self, dir: crate::types::DirId, uid: u32) -> (InvalidateStats, u64) {
        let mut total = InvalidateStats::default();
        let mut denied = 0;
        let mut stack = vec![dir];
        while let Some(d) = stack.pop() {
            self.cpu(self.cost.lookup);
            stack.extend(self.dirs[d.idx()].subdirs.iter().rev().copied());
            for i in 0..self.dirs[d.idx()].files.len() {
                let inode = self.dirs[d.idx()].files[i];
                self.cpu(self.cost.lookup);
                if !self.inodes[inode.idx()].exists || self.inodes[inode.idx()].is_shmem() {
                    continue;
                }
                if !self.may_invalidate(inode, uid) {
                    denied += 1;
                    continue;
                }
                if self.mappings[inode.idx()].nrpages == 0 {
                    continue;
                }
                let st = self.mapping_try_invalidate(inode, 0, u32::MAX);
                total.dropped += st.dropped;
                total.kept += st.kept;
                total.shadows_cleared += st.shadows_cleared;
            }
        }
        (total, denied)
    }
}
