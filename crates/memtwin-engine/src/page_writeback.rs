//! Dirty pages and writeback (mm/page-writeback.c, fs/fs-writeback.c).
//!
//! Dirty pages are written back by the flusher when the machine's dirty pages pass
//! `dirty_background_ratio` of dirtyable memory, when reclaim meets them, and on fsync. A
//! writer is throttled in `balance_dirty_pages()` above `dirty_ratio` until the device has
//! caught up. Written-back pages become clean at once; the device stays busy for the
//! transfer, so later reads queue behind it.

use crate::blkdev::Dir;
use crate::kernel::Kernel;
use crate::mm_types::pg;
use crate::types::{InodeId, PageId, PAGE_SIZE};
use crate::vmstat::VmEvent;

impl Kernel {
    /// `folio_mark_dirty()`: set `PG_dirty`, account it, and queue the inode for writeback.
    pub fn folio_mark_dirty(&mut self, page: PageId) {
        if self.pages[page].test(pg::DIRTY) {
            return;
        }
        self.cpu(self.cost.dirty_page);
        self.pages[page].flags |= pg::DIRTY;
        let inode = self.pages[page].mapping;
        let m = &mut self.mappings[inode.idx()];
        if m.nrdirty == 0 && !self.dirty_inodes.contains(&inode) {
            self.dirty_inodes.push(inode);
        }
        m.nrdirty += 1;
        self.vmstat.nr_dirty += 1;
        let memcg = self.pages[page].memcg;
        if memcg != crate::types::MemcgId::NONE {
            self.memcgs.memcgs[memcg.idx()].nr_dirty += 1;
        }
    }

    /// `global_dirtyable_memory()`: free pages plus page-cache pages.
    pub fn global_dirtyable_memory(&self) -> u64 {
        self.nr_free_pages() + self.nr_file_pages()
    }

    /// `balance_dirty_pages()`: start background writeback above the background threshold;
    /// above the hard threshold, write back and wait for the device.
    pub fn balance_dirty_pages(&mut self) {
        let dirtyable = self.global_dirtyable_memory();
        let bg = dirtyable * self.profile.dirty_background_ratio as u64 / 100;
        let thresh = dirtyable * self.profile.dirty_ratio as u64 / 100;
        let dirty = self.vmstat.nr_dirty;
        if dirty > bg {
            let done = self.writeback_dirty(dirty - bg / 2);
            if dirty > thresh {
                self.wait_until(done);
            }
        }
    }

    /// `wakeup_flusher_threads()`: reclaim met dirty pages; write back the oldest dirty
    /// inodes (one reclaim batch worth) without waiting.
    pub fn wakeup_flusher_threads(&mut self) {
        self.writeback_dirty(crate::vmscan::SWAP_CLUSTER_MAX * 32);
    }

    /// `wb_writeback()`: write back up to `nr` dirty pages, oldest inode first. Returns the
    /// completion time of the last request (0 if nothing was written).
    pub fn writeback_dirty(&mut self, nr: u64) -> u64 {
        let mut left = nr;
        let mut last_done = 0;
        while left > 0 && !self.dirty_inodes.is_empty() {
            let inode = self.dirty_inodes[0];
            let (written, done) = self.writeback_inode(inode, left);
            last_done = last_done.max(done);
            left = left.saturating_sub(written);
            if self.mappings[inode.idx()].nrdirty == 0 {
                self.dirty_inodes.retain(|&i| i != inode);
            } else if written == 0 {
                break;
            }
        }
        last_done
    }

    /// `do_writepages()` for one inode: write back up to `nr` dirty pages in index order, each
    /// contiguous run as one request. Returns (pages written, completion time).
    pub fn writeback_inode(&mut self, inode: InodeId, nr: u64) -> (u64, u64) {
        self.writeback_range(inode, 0, u32::MAX, nr)
    }

    /// `__filemap_fdatawrite_range()` (`do_writepages()` with `wbc->range_start/range_end`):
    /// write back up to `nr` dirty pages of `first..=last` in index order, each contiguous run
    /// as one request. Returns (pages written, completion time).
    pub fn writeback_range(&mut self, inode: InodeId, first: u32, last: u32, nr: u64) -> (u64, u64) {
        let mut written = 0;
        let mut done = 0;
        let len = (self.mappings[inode.idx()].slots.len() as u32).min(last.saturating_add(1));
        let mut run: Option<(u32, u32)> = None;
        let mut i = first;
        while i <= len && written < nr {
            let dirty_page = if i < len {
                self.mappings[inode.idx()].lookup(i).filter(|&p| self.pages[p].test(pg::DIRTY))
            } else {
                None
            };
            match (dirty_page, run) {
                (Some(p), _) => {
                    self.clear_dirty_for_io(p);
                    written += 1;
                    run = Some(match run {
                        Some((s, n)) => (s, n + 1),
                        None => (i, 1),
                    });
                }
                (None, Some((s, n))) => {
                    done = done.max(self.submit_write(inode, s, n));
                    run = None;
                }
                (None, None) => {}
            }
            i += 1;
        }
        if let Some((s, n)) = run {
            done = done.max(self.submit_write(inode, s, n));
        }
        (written, done)
    }

    /// `folio_clear_dirty_for_io()` + `folio_start_writeback()` ... `folio_end_writeback()`:
    /// the engine completes writeback when it is queued (the device stays busy), so this is
    /// also where `folio_rotate_reclaimable()` runs: a page that reclaim or a DONTNEED met
    /// while it was dirty (`PG_reclaim`) goes to the tail of the inactive list to be reclaimed
    /// next (mm/swap.c `rotate_reclaimable_page()` since 2.6.x; v4.12+ also takes it off the
    /// active list, where v4.12+ reclaim puts dirty pages).
    fn clear_dirty_for_io(&mut self, p: PageId) {
        if self.pages[p].test(pg::RECLAIM) && self.pages[p].test(pg::LRU) && !self.pages[p].test(pg::SWAPBACKED) {
            let v = self.folio_lruvec(p);
            self.lruvecs[v].del(&mut self.pages, p);
            self.pages[p].flags &= !pg::ACTIVE;
            self.lruvecs[v].add_tail(&mut self.pages, p, crate::mmzone::LruList::InactiveFile);
            self.vmstat.count(VmEvent::Pgrotated, 1);
        }
        self.pages[p].flags &= !(pg::DIRTY | pg::RECLAIM);
        let inode = self.pages[p].mapping;
        self.mappings[inode.idx()].nrdirty -= 1;
        self.vmstat.nr_dirty -= 1;
        let memcg = self.pages[p].memcg;
        if memcg != crate::types::MemcgId::NONE {
            self.memcgs.memcgs[memcg.idx()].nr_dirty -= 1;
        }
    }

    fn submit_write(&mut self, inode: InodeId, start: u32, n: u32) -> u64 {
        self.cpu(self.cost.submit_io);
        let (dev, base) = (self.inodes[inode.idx()].dev, self.inodes[inode.idx()].disk_base);
        let dev = dev.expect("shmem pages are never dirty-tracked");
        let done = self.devices[dev.idx()].submit(Dir::Write, base + start as u64, n as u64, self.now);
        self.vmstat.count(VmEvent::Pgpgout, n as u64 * PAGE_SIZE / 1024);
        self.io.write_bytes += n as u64 * PAGE_SIZE;
        done
    }

    /// `vfs_fsync()`: write back every dirty page of `inode` and wait for the device.
    pub fn vfs_fsync(&mut self, inode: InodeId) {
        self.cpu(self.cost.syscall);
        let (_, done) = self.writeback_inode(inode, u64::MAX);
        self.dirty_inodes.retain(|&i| self.mappings[i.idx()].nrdirty > 0);
        self.wait_until(done);
    }
}
