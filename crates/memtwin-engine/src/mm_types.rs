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
    /// Which LRU list the page is on (see [`crate::mmzone::LruList`]), when `PG_lru` is set.
    pub lru: u8,
}

impl Page {
    const FREE: Page = Page {
        mapping: InodeId(u32::MAX),
        index: 0,
        memcg: MemcgId::NONE,
        prev: PageId::NIL,
        next: PageId::NIL,
        flags: 0,
        lru: 0,
    };

    /// Whether all of `flag` are set.
    #[inline(always)]
    pub fn test(&self, flag: u16) -> bool {
        self.flags & flag == flag
    }
}

/// The arena of page frames, `mem_map` in the kernel. Frames are handed out by
/// [`PageArena::alloc`] and returned by [`PageArena::free`].
#[derive(Debug)]
pub struct PageArena {
    pages: Vec<Page>,
    free_head: PageId,
    nr_free_frames: usize,
}

impl Default for PageArena {
    fn default() -> Self {
        PageArena::with_capacity(0)
    }
}

impl PageArena {
    /// An arena with room reserved for `capacity` frames.
    pub fn with_capacity(capacity: usize) -> Self {
        PageArena { pages: Vec::with_capacity(capacity), free_head: PageId::NIL, nr_free_frames: 0 }
    }

    /// Take a frame for `mapping`/`index`, uncharged and on no list.
    #[inline]
    pub fn alloc(&mut self, mapping: InodeId, index: u32) -> PageId {
        let id = if self.free_head != PageId::NIL {
            let id = self.free_head;
            self.free_head = self.pages[id.idx()].next;
            self.nr_free_frames -= 1;
            id
        } else {
            assert!(self.pages.len() < u32::MAX as usize - 1, "page arena exhausted");
            self.pages.push(Page::FREE);
            PageId(self.pages.len() as u32 - 1)
        };
        self.pages[id.idx()] = Page { mapping, index, ..Page::FREE };
        id
    }

    /// Return a frame to the free chain.
    #[inline]
    pub fn free(&mut self, id: PageId) {
        let p = &mut self.pages[id.idx()];
        *p = Page::FREE;
        p.next = self.free_head;
        self.free_head = id;
        self.nr_free_frames += 1;
    }

    /// Frames currently in use.
    pub fn in_use(&self) -> usize {
        self.pages.len() - self.nr_free_frames
    }

    /// Host bytes held by the arena.
    pub fn host_bytes(&self) -> usize {
        self.pages.capacity() * std::mem::size_of::<Page>()
    }

    /// Every frame index ever allocated (free ones included), for invariant checks.
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    /// Whether no frame was ever allocated.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// Whether `id` is currently allocated (slow; for checks).
    pub fn is_allocated(&self, id: PageId) -> bool {
        self.pages[id.idx()].mapping != InodeId(u32::MAX)
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
    fn frames_are_reused() {
        let mut a = PageArena::with_capacity(4);
        let p = a.alloc(InodeId(1), 5);
        let q = a.alloc(InodeId(1), 6);
        assert_eq!(a.in_use(), 2);
        a.free(p);
        assert_eq!(a.in_use(), 1);
        assert!(!a.is_allocated(p));
        let r = a.alloc(InodeId(2), 0);
        assert_eq!(r, p, "the freed frame is handed out first");
        assert_eq!(a[r].mapping, InodeId(2));
        assert_eq!(a[q].index, 6);
        assert_eq!(a.len(), 2);
    }
}
