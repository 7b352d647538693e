//! Reverse mapping of page-cache pages (mm/rmap.c): which file VMAs map a page, their
//! accessed bits, and unmapping.
//!
//! A page's `mapcount` counts the file VMAs whose page table maps it; the first mapping
//! makes it count in `NR_FILE_MAPPED` (memory.stat `mapped_file`/`file_mapped`, meminfo
//! `Mapped`), the last unmapping takes it out (`page_add_file_rmap()`,
//! `page_remove_rmap()`). The VMAs of a file are its `i_mmap` (the kernel's interval tree; a
//! list here, walked in full: a file has few mappings), and each VMA keeps the accessed
//! ("young") bit of every PTE, which `folio_referenced()` tests and clears as
//! `folio_referenced_one()` -> `ptep_clear_flush_young_notify()` does.

use crate::kernel::Kernel;
use crate::memory::VmaId;
use crate::mm_types::pg;
use crate::types::{MemcgId, PageId};

/// What `folio_referenced()` found.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Referenced {
    /// Young PTEs found (and cleared).
    pub ptes: u32,
    /// Some VMA mapping the page has `VM_EXEC`.
    pub exec: bool,
    /// Some VMA mapping the page has `VM_LOCKED`.
    pub locked: bool,
}

impl Kernel {
    /// `page_add_file_rmap()` + `set_pte_at()`: map page-cache page `p` at page `i` of file
    /// VMA `vma`, its PTE young (an access made it; x86 prefaulted PTEs too:
    /// `arch_wants_old_prefaulted_pte()` is false there).
    pub fn page_add_file_rmap(&mut self, vma: VmaId, i: u32, p: PageId) {
        // The engine maps single pages only: a page of a large folio is split first.
        let p = self.split_page_folio(p);
        let v = vma.0 as usize;
        debug_assert!(self.vmas[v].pages[i as usize] == PageId::NIL);
        self.vmas[v].pages[i as usize] = p;
        self.vmas[v].nr_resident += 1;
        let f = self.vmas[v].file.as_mut().expect("a file VMA");
        f.set_young(i, true);
        let locked = self.vmas[v].locked;
        let pgc = &mut self.pages[p];
        assert!(pgc.mapcount < u8::MAX, "more than 254 mappings of one page");
        pgc.mapcount += 1;
        if pgc.mapcount == 1 {
            self.vmstat.nr_mapped += 1;
            let memcg = pgc.memcg;
            if memcg != MemcgId::NONE {
                self.memcgs.memcgs[memcg.idx()].nr_file_mapped += 1;
            }
        }
        if locked {
            self.mlock_folio(p);
        }
    }

    /// `page_remove_rmap()` of the file page mapped at page `i` of `vma` (`zap_pte_range()`:
    /// a young PTE marks the page accessed first, unless the VMA is `VM_SEQ_READ`).
    pub fn page_remove_file_rmap(&mut self, vma: VmaId, i: u32, mark_accessed: bool) {
        let v = vma.0 as usize;
        let p = std::mem::replace(&mut self.vmas[v].pages[i as usize], PageId::NIL);
        debug_assert!(p != PageId::NIL && !self.pages[p].test(pg::ANON));
        self.vmas[v].nr_resident -= 1;
        let f = self.vmas[v].file.as_mut().expect("a file VMA");
        let young = f.young(i);
        f.set_young(i, false);
        let seq = f.seq_read;
        if mark_accessed && young && !seq {
            self.folio_mark_accessed(p);
        }
        let pgc = &mut self.pages[p];
        pgc.mapcount -= 1;
        if pgc.mapcount == 0 {
            self.vmstat.nr_mapped -= 1;
            let memcg = pgc.memcg;
            if memcg != MemcgId::NONE {
                self.memcgs.memcgs[memcg.idx()].nr_file_mapped -= 1;
            }
        }
        if self.pages[p].lru() == crate::mmzone::LruList::Unevictable as u8 && self.pages[p].test(pg::LRU) && !self.folio_locked_by_vma(p) {
            self.munlock_folio(p);
        }
    }

    /// The VMAs of `p`'s file that map it, with the page's index in each.
    fn rmap_walk(&self, p: PageId) -> impl Iterator<Item = (VmaId, u32)> + '_ {
        let (inode, index) = (self.pages[p].mapping, self.pages[p].index);
        self.mappings[inode.idx()].i_mmap.iter().filter_map(move |&vma| {
            let v = &self.vmas[vma.0 as usize];
            let f = v.file.as_ref()?;
            let i = index.checked_sub(f.pgoff)?;
            (v.pages.get(i as usize) == Some(&p)).then_some((vma, i))
        })
    }

    /// Whether a `VM_LOCKED` VMA maps `p` (`mlock_vma_folio()`'s test at unmap).
    pub fn folio_locked_by_vma(&self, p: PageId) -> bool {
        self.rmap_walk(p).any(|(vma, _)| self.vmas[vma.0 as usize].locked)
    }

    /// `folio_referenced()` (mm/rmap.c, every era modelled): walk the VMAs mapping `p`,
    /// count and clear its young PTEs, and collect the flags of the VMAs that had one
    /// (`VM_EXEC`), or any `VM_LOCKED` one (which `folio_referenced_one()` reports at once).
    pub fn folio_referenced(&mut self, p: PageId) -> Referenced {
        let mut r = Referenced::default();
        if self.pages[p].mapcount == 0 {
            return r;
        }
        let inode = self.pages[p].mapping;
        let index = self.pages[p].index;
        let lru_gen = self.lruvecs[self.folio_lruvec(p)].lrugen.enabled;
        for k in 0..self.mappings[inode.idx()].i_mmap.len() {
            let vma = self.mappings[inode.idx()].i_mmap[k];
            self.cpu(self.cost.scan_page);
            let v = &mut self.vmas[vma.0 as usize];
            let locked = v.locked;
            let Some(f) = v.file.as_mut() else { continue };
            let Some(i) = index.checked_sub(f.pgoff) else { continue };
            if v.pages.get(i as usize) != Some(&p) {
                continue;
            }
            if locked {
                r.locked = true;
                break;
            }
            if f.young(i) {
                r.exec |= f.exec;
                if lru_gen && !f.seq_read && !f.rand_read {
                    // folio_referenced_one() (6.1): lru_gen_look_around() clears this PTE
                    // with its neighbours and counts one reference;
                    // ptep_clear_flush_young_notify() then finds it old.
                    self.lru_gen_look_around(vma, i, p);
                    r.ptes += 1;
                    continue;
                }
                f.set_young(i, false);
                r.ptes += 1;
            }
        }
        r
    }

    /// `try_to_unmap()`: clear every PTE mapping `p` (with its CPU cost, one `zap_page` per
    /// PTE: the TLB flush and rmap update of `try_to_unmap_one()`).
    pub fn try_to_unmap(&mut self, p: PageId) {
        while self.pages[p].mapcount > 0 {
            let Some((vma, i)) = self.rmap_walk(p).next() else { break };
            self.cpu(self.cost.zap_page);
            self.page_remove_file_rmap(vma, i, false);
        }
        debug_assert_eq!(self.pages[p].mapcount, 0, "i_mmap holds every VMA mapping the page");
    }

    /// `vma_interval_tree_insert()`: `vma` maps its file.
    pub fn i_mmap_insert(&mut self, vma: VmaId) {
        let inode = self.vmas[vma.0 as usize].file.as_ref().expect("a file VMA").inode;
        self.mappings[inode.idx()].i_mmap.push(vma);
    }

    /// `vma_interval_tree_remove()`.
    pub fn i_mmap_remove(&mut self, vma: VmaId) {
        let inode = self.vmas[vma.0 as usize].file.as_ref().expect("a file VMA").inode;
        self.mappings[inode.idx()].i_mmap.retain(|&v| v != vma);
    }
}
