//! Direct compaction (mm/compaction.c) for high-order (THP) allocations: the migrate scanner
//! walks the zone's pageblocks from where it last stopped, and a pageblock whose used frames
//! can all be moved has them migrated (mm/migrate.c) to free frames in other pageblocks,
//! after which it merges into a free order-9 block. Failed attempts defer compaction of the
//! zone for 1, 2, 4 ... 64 attempts (`defer_compaction()`).
//!
//! Not moved, as async compaction does not move them: pages under read I/O (locked), dirty
//! or under writeback. Huge pages fill their pageblock and are never migration sources.

use crate::delayacct::StallKind;
use crate::kernel::Kernel;
use crate::mm_types::pg;
use crate::page_alloc::{Gfp, Wmark, PAGEBLOCK_NR};
use crate::types::PageId;
use crate::vmstat::VmEvent;

/// `COMPACT_MAX_DEFER_SHIFT`.
pub const COMPACT_MAX_DEFER_SHIFT: u32 = 6;
/// Pageblocks one direct compaction attempt scans before giving up on a zone (the migrate
/// scanner meets the free scanner in the kernel; async direct compaction aborts early on
/// contention). An engine limit that bounds an attempt's cost: 32 pageblocks = 64 MiB.
pub const COMPACT_SCAN_BLOCKS: u32 = 32;

impl Kernel {
    /// `__alloc_pages_direct_compact()` -> `try_to_compact_pages()`: compact each zone of the
    /// zonelist that is not deferred and has room (`compaction_suitable()`), and take the
    /// block it frees.
    pub fn alloc_pages_direct_compact(&mut self, order: u32, gfp: Gfp) -> Option<PageId> {
        // A memory stall (psi_memstall_enter() around try_to_compact_pages()).
        self.stall_enter(StallKind::Compaction);
        let page = self.try_to_compact_pages(order, gfp);
        self.stall_leave(StallKind::Compaction);
        page
    }

    /// `try_to_compact_pages()`: the body of [`Kernel::alloc_pages_direct_compact`].
    fn try_to_compact_pages(&mut self, order: u32, gfp: Gfp) -> Option<PageId> {
        let nid = gfp.nid as usize;
        let mut stalled = false;
        for i in 0..self.nodes[nid].zonelist.len() {
            let z = self.nodes[nid].zonelist[i];
            if gfp.thisnode && self.zones[z].node != gfp.nid {
                break; // ZONELIST_NOFALLBACK: the local node's zones, which come first
            }
            if self.compaction_deferred(z) || !self.compaction_suitable(z, order) {
                continue;
            }
            if !stalled {
                stalled = true;
                self.vmstat.count(VmEvent::CompactStall, 1);
            }
            if self.compact_zone(z) {
                // compaction_defer_reset()
                self.zones[z].compact_considered = 0;
                self.zones[z].compact_defer_shift = 0;
                if let Some(p) = self.get_page_from_freelist(order, Wmark::Min, gfp) {
                    self.vmstat.count(VmEvent::CompactSuccess, 1);
                    return Some(p);
                }
            } else {
                self.defer_compaction(z);
            }
        }
        if stalled {
            self.vmstat.count(VmEvent::CompactFail, 1);
        }
        None
    }

    /// Whether every zone of the request's zonelist (the local node's only, for
    /// `__GFP_THISNODE`) has compaction deferred.
    pub fn compaction_deferred_all(&self, gfp: Gfp) -> bool {
        self.nodes[gfp.nid as usize].zonelist.iter().filter(|&&z| !gfp.thisnode || self.zones[z].node == gfp.nid).all(|&z| {
            let zone = &self.zones[z];
            zone.compact_defer_shift > 0 && zone.compact_considered < (1 << zone.compact_defer_shift)
        })
    }

    /// `compaction_deferred()`: count this attempt; deferred while fewer than
    /// `1 << compact_defer_shift` attempts were skipped since the last failure.
    fn compaction_deferred(&mut self, z: usize) -> bool {
        let zone = &mut self.zones[z];
        if zone.compact_defer_shift == 0 {
            return false;
        }
        zone.compact_considered += 1;
        zone.compact_considered < (1 << zone.compact_defer_shift)
    }

    /// `defer_compaction()`.
    fn defer_compaction(&mut self, z: usize) {
        let zone = &mut self.zones[z];
        zone.compact_considered = 0;
        zone.compact_defer_shift = (zone.compact_defer_shift + 1).min(COMPACT_MAX_DEFER_SHIFT);
    }

    /// `compaction_suitable()`: the zone must keep its low watermark plus twice the request
    /// in free order-0 pages, or migration has nowhere to go.
    fn compaction_suitable(&self, z: usize, order: u32) -> bool {
        let zone = &self.zones[z];
        zone.watermark_ok(0, zone.wmark_low + (2u64 << order), false)
    }

    /// `compact_zone()`: scan pageblocks from the cached migrate position; the first one
    /// whose used frames are all movable is emptied. Returns whether a pageblock was freed.
    /// First the running CPU's `lru_add` batch goes onto the LRU (6.1: "lru_add_drain_all
    /// could be expensive with involving other CPUs", `lru_add_drain()`; 3.13
    /// `migrate_prep_local()`): only pages on an LRU can be isolated for migration.
    fn compact_zone(&mut self, z: usize) -> bool {
        self.lru_add_drain();
        let nblocks = self.zones[z].nr_blocks();
        for _ in 0..COMPACT_SCAN_BLOCKS.min(nblocks) {
            let b = self.zones[z].compact_migrate_block % nblocks;
            self.zones[z].compact_migrate_block = (b + 1) % nblocks;
            let (used, full_size) = self.zones[z].block_usage(b);
            self.cpu(self.cost.compact_scan_page * PAGEBLOCK_NR);
            if !full_size || used == 0 || used == PAGEBLOCK_NR {
                continue;
            }
            let start = self.zones[z].start_pfn + b as u64 * PAGEBLOCK_NR;
            let movable = (start..start + PAGEBLOCK_NR).all(|pfn| {
                let id = PageId(pfn as u32);
                self.zones[z].is_free(pfn) || self.page_movable(id)
            });
            if !movable {
                continue;
            }
            if self.zones[z].nr_free_scattered() < used + self.zones[z].wmark_min {
                return false;
            }
            for pfn in start..start + PAGEBLOCK_NR {
                if self.zones[z].is_free(pfn) {
                    continue;
                }
                let Some(new) = self.zones[z].take_free_outside(b) else { return false };
                self.migrate_page(PageId(pfn as u32), PageId(new as u32));
                let zone = &mut self.zones[z];
                zone.free_order0(pfn);
                self.vmstat.count(VmEvent::PgmigrateSuccess, 1);
            }
            return true;
        }
        false
    }

    /// Whether async migration may move `page`: on an LRU, not locked for I/O, clean, not
    /// under writeback, not part of a huge page.
    fn page_movable(&mut self, page: PageId) -> bool {
        let p = &self.pages[page];
        // A swap-cache page stays too (its slot's cache entry would have to follow it).
        if !p.test(pg::LRU) || p.flags & (pg::DIRTY | pg::WRITEBACK | pg::HEAD | pg::TAIL | pg::SWAPCACHE) != 0 {
            return false;
        }
        // A page-cache page a file VMA maps is not migrated here (the kernel moves its PTEs
        // through rmap, remove_migration_ptes(); the engine leaves it where it is), nor one
        // on the unevictable list.
        if p.mapcount > 0 || p.lru() == crate::mmzone::LruList::Unevictable as u8 {
            return false;
        }
        !self.folio_test_locked(page)
    }

    /// `migrate_pages()` of one page: copy it to frame `new` and make every reference (its
    /// LRU position, its page-cache slot or its VMA's page table entry) point there. The old
    /// frame is the caller's to free.
    fn migrate_page(&mut self, old: PageId, new: PageId) {
        self.cpu(self.cost.migrate_page);
        let lv = self.folio_lruvec(old);
        let page = self.pages[old];
        self.pages.copy_frame(old, new);
        self.lruvecs[lv].relink(&mut self.pages, new);
        if page.test(pg::ANON) {
            self.vmas[page.mapping.0 as usize].pages[page.index as usize] = new;
        } else {
            self.mappings[page.mapping.idx()].replace_slot(page.index, crate::filemap::Slot::page(new));
        }
        self.pages.free(old);
    }
}
