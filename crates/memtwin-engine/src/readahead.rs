//! On-demand readahead (mm/readahead.c).
//!
//! A sequential reader's window starts at `get_init_ra_size()` of the request and grows with
//! `get_next_ra_size()` up to the device's `read_ahead_kb`. The page at `start + size -
//! async_size` carries `PG_readahead`; reaching it submits the next window while the reader
//! still consumes the current one. Pages read ahead but reclaimed before they are used are
//! read again, which is the read amplification real kernels show under tight memcg limits.

use crate::kernel::Kernel;
use crate::mm_types::pg;
use crate::types::{InodeId, MemcgId, PAGE_SIZE};

/// `struct file_ra_state`, one per open file.
#[derive(Clone, Debug, Default)]
pub struct FileRaState {
    /// `start`: first page of the current window.
    pub start: u32,
    /// `size`: pages in the current window.
    pub size: u32,
    /// `async_size`: pages before the window end at which the next one is started.
    pub async_size: u32,
    /// `ra_pages`: the window limit.
    pub ra_pages: u32,
    /// Last page index read (`prev_pos >> PAGE_SHIFT`).
    pub prev_index: Option<u32>,
    /// `FMODE_RANDOM` (POSIX_FADV_RANDOM): read only what is asked for.
    pub random: bool,
    /// `prev_pos`: the byte after the end of the previous read.
    pub prev_pos: Option<u64>,
}

impl FileRaState {
    /// `file_ra_state_init()`: a new open file with a window limit of `ra_pages`.
    pub fn new(ra_pages: u32) -> Self {
        FileRaState { ra_pages: ra_pages.max(1), ..Default::default() }
    }
}

/// `get_init_ra_size()`.
pub fn get_init_ra_size(size: u32, max: u32) -> u32 {
    let newsize = size.max(1).next_power_of_two();
    if newsize <= max / 32 {
        newsize * 4
    } else if newsize <= max / 4 {
        newsize * 2
    } else {
        max
    }
}

/// `get_next_ra_size()`.
pub fn get_next_ra_size(cur: u32, max: u32) -> u32 {
    if cur < max / 16 {
        4 * cur
    } else if cur <= max / 2 {
        2 * cur
    } else {
        max
    }
}

impl Kernel {
    /// `page_cache_sync_ra()` (`ondemand_readahead()` before 6.10): a read missed at `index`
    /// wanting `req` pages. A sequential miss (first page, or right after the previous read)
    /// or an oversize read starts a fresh ramp-up window there; a random one reads the
    /// request, or more when the pages before it are cached (`try_context_readahead()`).
    pub fn page_cache_sync_ra(&mut self, ra: &mut FileRaState, inode: InodeId, index: u32, req: u32, memcg: MemcgId) {
        let max = ra.ra_pages;
        if ra.random {
            // force_page_cache_ra() of just the request.
            self.do_page_cache_ra(inode, index, req, 0, memcg);
            return;
        }
        // "sequential cache miss: (index - prev_index) <= 1" (unsigned), prev_index being
        // `ra->prev_pos >> PAGE_SHIFT`: the page of the last byte read before 5.11, the page of
        // the byte after the read from then on (`ra->prev_pos = iocb->ki_pos` in
        // filemap_read()), so that a read right after an aligned one, or one page further,
        // is sequential.
        let prev = if self.profile.ra_prev_pos_after_read { ra.prev_pos.map(|p| (p / PAGE_SIZE) as u32) } else { ra.prev_index };
        let sequential = index == 0 || prev.is_some_and(|p| index.wrapping_sub(p) <= 1);
        // An oversize read (more than the window) starts a window as a sequential one does.
        if !sequential && req <= max {
            // try_context_readahead() (inlined into page_cache_sync_ra() in 6.10): the pages
            // cached just before the miss are the trace a sequential stream leaves; with more
            // of them than the request, read that much again past the miss (twice as much when
            // the file is cached from its start), else read just the request ("standalone,
            // small random read") without touching the window.
            let (contig, from_start) = self.count_history_pages(inode, index, max);
            if contig <= req {
                self.do_page_cache_ra(inode, index, req, 0, memcg);
                return;
            }
            let size = if from_start { contig * 2 } else { contig };
            ra.start = index;
            ra.size = (size + req).min(max);
            ra.async_size = 1;
            self.do_page_cache_ra(inode, ra.start, ra.size, ra.async_size, memcg);
            return;
        }
        ra.start = index;
        ra.size = get_init_ra_size(req, max);
        ra.async_size = if ra.size > req { ra.size - req } else { ra.size };
        self.do_page_cache_ra(inode, ra.start, ra.size, ra.async_size, memcg);
    }

    /// `count_history_pages()` (`page_cache_prev_miss()` from `index - 1`, at most `max`
    /// entries back): (pages cached contiguously just before `index`, whether they reach the
    /// start of the file). A shadow entry is a miss.
    pub fn count_history_pages(&self, inode: InodeId, index: u32, max: u32) -> (u32, bool) {
        let m = &self.mappings[inode.idx()];
        let mut n = 0;
        while n < max && n < index {
            if m.lookup(index - 1 - n).is_none() {
                return (n, false);
            }
            n += 1;
        }
        (n, n == index)
    }

    /// `page_cache_async_ra()`: the reader reached the `PG_readahead` page at `index`; push
    /// the window forward and grow it.
    pub fn page_cache_async_ra(&mut self, ra: &mut FileRaState, inode: InodeId, index: u32, req: u32, memcg: MemcgId) {
        let max = ra.ra_pages;
        let expected = ra.start.wrapping_add(ra.size).wrapping_sub(ra.async_size);
        if index == expected || index == ra.start + ra.size {
            ra.start += ra.size;
        } else {
            // "Hit a marked folio without valid readahead state" (interleaved or random
            // reads): the window starts at the first page missing after the marker
            // (`page_cache_next_miss()`, at most `max` on), and its old size is taken to be
            // the distance to it, plus the request; none if the cached run is longer.
            let m = &self.mappings[inode.idx()];
            let mut start = index + 1;
            while start - index <= max && m.lookup(start).is_some() {
                start += 1;
            }
            if start - index > max {
                return;
            }
            ra.start = start;
            ra.size = start - index + req;
        }
        ra.size = get_next_ra_size(ra.size, max);
        ra.async_size = ra.size;
        self.do_page_cache_ra(inode, ra.start, ra.size, ra.async_size, memcg);
    }

    /// `do_page_cache_ra()` + `page_cache_ra_unbounded()`: add the missing pages of
    /// `index..index+nr` (clamped to the file), mark the page `lookahead` before the end with
    /// `PG_readahead`, and submit each contiguous run of new pages as one request. Allocation
    /// uses `__GFP_NORETRY`: when a charge fails after one reclaim pass, readahead stops.
    pub fn do_page_cache_ra(&mut self, inode: InodeId, index: u32, nr: u32, lookahead: u32, memcg: MemcgId) {
        let size = self.inodes[inode.idx()].size;
        if size == 0 {
            return;
        }
        let last_page = ((size - 1) / PAGE_SIZE) as u32;
        if index > last_page {
            return;
        }
        let end = index.saturating_add(nr).min(last_page + 1);
        let mark = (index + nr).saturating_sub(lookahead);
        // The batch's pages are locked from when they are added until their read completes.
        let saved = self.ra_pending.replace((inode, index, end));
        let mut run_start = index;
        let mut run_len = 0u32;
        for i in index..end {
            if self.mappings[inode.idx()].lookup(i).is_some() {
                self.read_pages(inode, run_start, run_len);
                run_start = i + 1;
                run_len = 0;
                continue;
            }
            match self.filemap_add_folio(inode, i, memcg, false) {
                Ok(p) => {
                    if i == mark && lookahead > 0 {
                        self.pages[p].flags |= pg::READAHEAD;
                    }
                    run_len += 1;
                }
                Err(crate::filemap::IoError::Oom) if self.nr_free_pages() > 0 => {
                    // The memcg charge failed (__GFP_NORETRY): submit what is batched and go
                    // on with the next page, as page_cache_ra_unbounded() does when
                    // filemap_add_folio() fails.
                    self.read_pages(inode, run_start, run_len);
                    run_start = i + 1;
                    run_len = 0;
                }
                Err(_) => break,
            }
        }
        self.read_pages(inode, run_start, run_len);
        self.ra_pending = saved;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_sizes_follow_mm_readahead() {
        // read_ahead_kb = 128 (32 pages), cat's 128 KiB requests (32 pages).
        assert_eq!(get_init_ra_size(32, 32), 32);
        assert_eq!(get_next_ra_size(32, 32), 32);
        // read_ahead_kb = 8192 (2048 pages): 32 -> 128 -> 256 -> ... -> 2048.
        assert_eq!(get_init_ra_size(32, 2048), 128);
        assert_eq!(get_next_ra_size(128, 2048), 256);
        assert_eq!(get_next_ra_size(1024, 2048), 2048);
        assert_eq!(get_next_ra_size(2048, 2048), 2048);
        // Small requests get 4x, medium 2x.
        assert_eq!(get_init_ra_size(1, 2048), 4);
        assert_eq!(get_init_ra_size(300, 2048), 1024);
        assert_eq!(get_next_ra_size(4, 2048), 16);
    }
}
