//! `struct page` and the page-frame arena (include/linux/mm_types.h, include/linux/page-flags.h).
//!
//! A simulated page is 24 bytes: the mapping and index it caches, the memcg it is charged to,
//! two intrusive LRU links (`page->lru`), the page flags and the LRU list it sits on. Free
//! frames are chained through the same links, so allocating and freeing a frame never touches
//! the host allocator once the arena has grown to the machine's size.

use crate::types::{InodeId, MemcgId, PageId};

/// Page flags, named after `enum pageflags`.
pub mod pg {
    /// `PG_referenced`: accessed once since it was put on the LRU.
    pub const REFERENCED: u16 = 1 << 0;
    /// `PG_active`: on an active list.
    pub const ACTIVE: u16 = 1 << 1;
    /// `PG_lru`: on an LRU list (cleared while isolated).
    pub const LRU: u16 = 1 << 2;
    /// `PG_dirty`.
    pub const DIRTY: u16 = 1 << 3;
    /// `PG_writeback`.
    pub const WRITEBACK: u16 = 1 << 4;
    /// `PG_locked`: a read is in flight (the engine unlocks it when the I/O has completed).
    pub const LOCKED: u16 = 1 << 5;
    /// `PG_readahead`: the asynchronous readahead marker.
    pub const READAHEAD: u16 = 1 << 6;
    /// `PG_workingset`: the page was activated by a refault (workingset_activation).
    pub const WORKINGSET: u16 = 1 << 7;
    /// `PG_swapbacked`: an anonymous page.
    pub const SWAPBACKED: u16 = 1 << 8;
    /// `PG_reclaim`: marked for immediate reclaim after writeback.
    pub const RECLAIM: u16 = 1 << 9;
    /// Engine bookkeeping, not a kernel flag: read in from disk and not yet accessed. The
    /// first access counts as a page-cache miss, as cachestat counts pages added by reads.
    pub const FRESH: u16 = 1 << 10;
    /// `PageAnon()`: an anonymous page; `mapping` holds its VMA (`VmaId`), `index` its page
    /// offset in the VMA.
    pub const ANON: u16 = 1 << 11;
    /// `PageHead()` of a large folio: the one frame of the folio on the LRU. An anonymous
    /// head is PMD-sized (order 9); a page-cache head's order is in its first tail page
    /// ([`super::PageArena::folio_order`]).
    pub const HEAD: u16 = 1 << 12;
    /// `PageTail()`: frames 1.. of a large folio (on no list; a page-cache tail's `prev` names
    /// its head, `compound_head()`).
    pub const TAIL: u16 = 1 << 13;
    /// `PG_swapcache`: an anonymous page with swap slots, written out or being written.
    pub const SWAPCACHE: u16 = 1 << 14;
    /// `PG_private` of a block file system's page: buffer heads attached (`create_empty_buffers()`
    /// on a write), charged as slab to the page's memcg while it has one
    /// (`KernelProfile::account_buffer_heads`).
    pub const PRIVATE: u16 = 1 << 15;
}

/// The simulated `struct page` (a single-page folio).
#[derive(Clone, Copy, Debug)]
pub struct Page {
    /// `page->mapping`: the file whose page cache holds this page.
    pub mapping: InodeId,
    /// `page->index`: the page's offset in the file, in pages.
    pub index: u32,
    /// `page->memcg_data`: the memcg charged for this page, or [`MemcgId::NONE`].
    pub memcg: MemcgId,
    /// `page->lru.prev`.
    pub prev: PageId,
    /// `page->lru.next`; also the free-list link while the frame is free.
    pub next: PageId,
    /// `page->flags` (see [`pg`]).
    pub flags: u16,
    /// Low 6 bits: which LRU list the page is on (see [`crate::mmzone::LruList`]; under the
    /// multi-generational LRU a generation list, [`crate::lru_gen::gen_list`]), when `PG_lru`
    /// is set ([`Page::lru`]). High 2 bits: the `LRU_REFS` bits of `page->flags`
    /// (include/linux/mmzone.h, 6.1): accesses through file descriptors beyond `PG_referenced`
    /// and `PG_workingset`, 0..=3 (`LRU_REFS_WIDTH` = 2), used only by the multi-generational
    /// LRU ([`Page::refs`]). Packed so that `Page` stays 24 bytes.
    pub lru_refs: u8,
    /// `folio_mapcount()` of a page-cache page: the page-table entries of file VMAs mapping
    /// it (rmap.rs). It takes the byte `struct Page` had as padding. Anonymous pages are
    /// mapped by their one VMA and keep 0 here.
    pub mapcount: u8,
}

impl Page {
    /// The LRU list number (valid while `PG_lru`).
    #[inline(always)]
    pub fn lru(&self) -> u8 {
        self.lru_refs & 0x3f
    }

    /// Put the page's LRU list number (its refs are kept).
    #[inline(always)]
    pub fn set_lru(&mut self, list: u8) {
        debug_assert!(list < 0x40);
        self.lru_refs = (self.lru_refs & 0xc0) | list;
    }

    /// The `LRU_REFS` bits (multi-generational LRU).
    #[inline(always)]
    pub fn refs(&self) -> u8 {
        self.lru_refs >> 6
    }

    /// Set the `LRU_REFS` bits (0..=3).
    #[inline(always)]
    pub fn set_refs(&mut self, refs: u8) {
        debug_assert!(refs < 4);
        self.lru_refs = (self.lru_refs & 0x3f) | (refs << 6);
    }
    const FREE: Page = Page {
        mapping: InodeId(u32::MAX),
        index: 0,
        memcg: MemcgId::NONE,
        prev: PageId::NIL,
        next: PageId::NIL,
        flags: 0,
        lru_refs: 0,
        mapcount: 0,
    };

    /// Whether all of `flag` are set.
    #[inline(always)]
    pub fn test(&self, flag: u16) -> bool {
        self.flags & flag == flag
    }
}

/// `mem_map`: one `Page` per page frame, indexed by PFN. The page allocator
/// (page_alloc.rs) decides which frame a page takes; the arena only records what the frame
/// holds. It covers the frames up to the highest ever used, so a machine's unused memory
/// costs the simulator nothing.
///
/// At boot the arena reserves address space for every frame of the machine
/// ([`PageArena::reserve_pfns`], as `CONFIG_SPARSEMEM_VMEMMAP` reserves the virtual memmap and
/// populates it section by section) and writes entries only up to the highest frame used,
/// rounded up to [`ARENA_GROW_FRAMES`]: the host backs the part written and no more, and the
/// arena never moves. When the host refuses the reservation the arena grows by an eighth of
/// its size at a time instead.
#[derive(Debug)]
pub struct PageArena {
    pages: Vec<Page>,
    nr_in_use: usize,
    max_pfns: usize,
    /// The reservation for `max_pfns` frames succeeded: capacity beyond `len` is address
    /// space the arena never wrote, which the host does not back.
    reserved: bool,
}

/// Frames the arena's written part grows by when a frame beyond it is used: one pageblock
/// (512 frames, 12 KiB of host memory), the granularity at which the buddy hands out frames
/// of a fresh block.
pub const ARENA_GROW_FRAMES: usize = 512;

impl Default for PageArena {
    fn default() -> Self {
        PageArena::with_capacity(0)
    }
}

impl PageArena {
    /// An arena with room reserved for `capacity` frames.
    pub fn with_capacity(capacity: usize) -> Self {
        PageArena { pages: Vec::with_capacity(capacity), nr_in_use: 0, max_pfns: usize::MAX, reserved: false }
    }

    /// The machine has `n` frames: PFNs beyond are a bug. Reserves address space for all of
    /// them (see the type's documentation); nothing is written yet.
    pub fn reserve_pfns(&mut self, n: usize) {
        self.max_pfns = n;
        self.reserved = n <= self.pages.len() || self.pages.try_reserve_exact(n - self.pages.len()).is_ok();
    }

    /// Record that frame `pfn` now caches `mapping`/`index`, uncharged and on no list.
    #[inline]
    pub fn init(&mut self, pfn: PageId, mapping: InodeId, index: u32) -> PageId {
        let i = pfn.idx();
        // One bounds test on the common path (the frame already written once); a frame past
        // the written part grows the arena first (issue 17: the index after `grow()` was
        // tested again on every allocation).
        match self.pages.get_mut(i) {
            Some(slot) => {
                debug_assert!(slot.mapping == InodeId(u32::MAX), "frame {i} handed out twice");
                *slot = Page { mapping, index, ..Page::FREE };
            }
            None => self.init_grown(i, mapping, index),
        }
        self.nr_in_use += 1;
        pfn
    }

    /// [`PageArena::init`] of a frame past the written part of the arena.
    #[cold]
    #[inline(never)]
    fn init_grown(&mut self, i: usize, mapping: InodeId, index: u32) {
        self.grow(i);
        debug_assert!(self.pages[i].mapping == InodeId(u32::MAX), "frame {i} handed out twice");
        self.pages[i] = Page { mapping, index, ..Page::FREE };
    }

    /// Extend the written part of the arena to cover frame `i`.
    #[cold]
    fn grow(&mut self, i: usize) {
        assert!(i < self.max_pfns, "pfn {i} beyond the machine's memory");
        let cap = self.pages.capacity();
        let want = if self.reserved && i < cap {
            // Within the reservation: write up to the next ARENA_GROW_FRAMES boundary.
            (i + 1).next_multiple_of(ARENA_GROW_FRAMES).min(cap)
        } else {
            // Fill the reserved capacity first (no reallocation), then grow by an eighth,
            // exactly (`Vec::resize` alone would double the capacity): the arena covers the
            // highest frame used, so its growth step is memory the host holds for frames the
            // machine may never use (12.5% at most; a few hundred reallocations up to 2 TiB).
            let want = if i < cap { cap } else { (i + 1).max(cap + cap / 8) };
            want.min(self.max_pfns.max(i + 1))
        };
        self.pages.reserve_exact(want - self.pages.len());
        self.pages.resize(want, Page::FREE);
    }

    /// Copy the page in frame `old` to the free frame `new` (migration); `old` stays in use
    /// until freed.
    pub fn copy_frame(&mut self, old: PageId, new: PageId) {
        let page = self.pages[old.idx()];
        self.init(new, page.mapping, page.index);
        self.pages[new.idx()] = page;
    }

    /// The frame is free again.
    #[inline]
    pub fn free(&mut self, id: PageId) {
        self.pages[id.idx()] = Page::FREE;
        self.nr_in_use -= 1;
    }

    /// `init()` of the `n` frames from `first` (frame `first + i` holding `mapping` at
    /// `index + i`), charged to `memcg`, with `flags`: a huge page's frames at once.
    pub fn init_range(&mut self, first: PageId, n: u32, mapping: InodeId, index: u32, memcg: MemcgId, flags: u16) {
        let (lo, hi) = (first.idx(), first.idx() + n as usize);
        if hi > self.pages.len() {
            // The arena grows as init() grows it.
            for i in 0..n {
                self.init(PageId(first.0 + i), mapping, index + i);
                let p = &mut self.pages[lo + i as usize];
                p.memcg = memcg;
                p.flags = flags;
            }
            return;
        }
        for (i, p) in self.pages[lo..hi].iter_mut().enumerate() {
            debug_assert!(p.mapping == InodeId(u32::MAX), "frame {} handed out twice", lo + i);
            *p = Page { mapping, index: index + i as u32, memcg, flags, ..Page::FREE };
        }
        self.nr_in_use += n as usize;
    }

    /// Frame `pfn` now holds `page` (whole, as the caller built it): `init()` and the
    /// caller's stores in one.
    #[inline]
    pub fn install(&mut self, pfn: PageId, page: Page) {
        let i = pfn.idx();
        if i >= self.pages.len() {
            self.init(pfn, page.mapping, page.index);
        } else {
            debug_assert!(self.pages[i].mapping == InodeId(u32::MAX), "frame {i} handed out twice");
            self.nr_in_use += 1;
        }
        self.pages[i] = page;
    }

    /// `free()` of each frame of `frames`.
    #[inline]
    pub fn free_each(&mut self, frames: &[PageId]) {
        for &q in frames {
            self.pages[q.idx()] = Page::FREE;
        }
        self.nr_in_use -= frames.len();
    }

    /// `free()` of the `n` frames from `first`.
    pub fn free_range(&mut self, first: PageId, n: u32) {
        self.pages[first.idx()..first.idx() + n as usize].fill(Page::FREE);
        self.nr_in_use -= n as usize;
    }

    /// `folio_order()`: 0 for a single page, else the order the head's first tail page holds
    /// (`folio->_folio_order` lives in page[1] in the kernel; here its `mapcount` byte, as a
    /// tail is never mapped on its own). An anonymous head is a PMD-sized THP.
    #[inline(always)]
    pub fn folio_order(&self, id: PageId) -> u32 {
        let p = &self.pages[id.idx()];
        if p.flags & pg::HEAD == 0 {
            0
        } else if p.flags & pg::ANON != 0 {
            crate::page_alloc::PAGEBLOCK_ORDER
        } else {
            self.pages[id.idx() + 1].mapcount as u32
        }
    }

    /// `folio_nr_pages()`.
    #[inline(always)]
    pub fn folio_nr_pages(&self, id: PageId) -> u64 {
        1 << self.folio_order(id)
    }

    /// `page_folio()` of a page-cache page: its head when it is a tail of a large folio.
    #[inline(always)]
    pub fn page_folio(&self, id: PageId) -> PageId {
        let p = &self.pages[id.idx()];
        if p.flags & (pg::TAIL | pg::ANON) == pg::TAIL {
            p.prev
        } else {
            id
        }
    }

    /// Frames currently in use.
    pub fn in_use(&self) -> usize {
        self.nr_in_use
    }

    /// Host bytes held by the arena: the entries written (rounded up to the host's 4 KiB
    /// pages) when the machine's frames are reserved, else the whole capacity.
    pub fn host_bytes(&self) -> usize {
        let size = std::mem::size_of::<Page>();
        if self.reserved {
            (self.pages.len() * size).next_multiple_of(4096)
        } else {
            self.pages.capacity() * size
        }
    }

    /// Frames the arena covers (free ones included), for invariant checks.
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    /// Whether no frame was ever used.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// Whether `id` is currently in use (slow; for checks).
    pub fn is_allocated(&self, id: PageId) -> bool {
        id.idx() < self.pages.len() && self.pages[id.idx()].mapping != InodeId(u32::MAX)
    }
}

impl std::ops::Index<PageId> for PageArena {
    type Output = Page;
    #[inline(always)]
    fn index(&self, id: PageId) -> &Page {
        &self.pages[id.idx()]
    }
}

impl std::ops::IndexMut<PageId> for PageArena {
    #[inline(always)]
    fn index_mut(&mut self, id: PageId) -> &mut Page {
        &mut self.pages[id.idx()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_is_24_bytes() {
        assert_eq!(std::mem::size_of::<Page>(), 24);
    }

    #[test]
    fn frames_are_recorded_where_the_allocator_puts_them() {
        let mut a = PageArena::with_capacity(4);
        a.reserve_pfns(100);
        let p = a.init(PageId(7), InodeId(1), 5);
        let q = a.init(PageId(2), InodeId(1), 6);
        assert_eq!(a.in_use(), 2);
        assert!(a.len() >= 8);
        a.free(p);
        assert_eq!(a.in_use(), 1);
        assert!(!a.is_allocated(p));
        let r = a.init(PageId(7), InodeId(2), 0);
        assert_eq!(a[r].mapping, InodeId(2));
        assert_eq!(a[q].index, 6);
    }
}
