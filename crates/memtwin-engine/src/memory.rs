//! Anonymous memory: `mmap()`/`munmap()` of private anonymous regions (mm/mmap.c), the
//! anonymous page fault (mm/memory.c `do_anonymous_page()`), the transparent huge page fault
//! (mm/huge_memory.c `do_huge_pmd_anonymous_page()`) and unmapping (`zap_pte_range()`).
//!
//! A VMA is an arena entry (`VmaId`) holding, per page of the region, the frame that backs
//! it (`PageId::NIL` until first touched). Anonymous pages are ordinary frames with
//! `pg::ANON`; their `mapping` field holds the VMA and `index` the page offset, which is what
//! compaction needs to move them (the kernel's rmap). A huge page is 512 contiguous frames:
//! the head is on the anon LRU, the 511 tails on no list. Without a swap device anonymous
//! pages are never reclaimed (`get_scan_count()` scans only file lists then).

use crate::kernel::Kernel;
use crate::mm_types::pg;
use crate::mmzone::LruList;
use crate::page_alloc::{Gfp, LOCAL_DISTANCE, PAGEBLOCK_NR, REMOTE_DISTANCE};
use crate::types::{InodeId, MemcgId, PageId};
use crate::vmstat::VmEvent;

/// Index of a VMA in `Kernel::vmas`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VmaId(pub u32);

/// `struct vm_area_struct` of a private anonymous mapping.
#[derive(Clone, Debug)]
pub struct Vma {
    /// The frame behind each page (`PageId::NIL` = not faulted in yet).
    pub pages: Vec<PageId>,
    /// The memcg the mapping's pages are charged to (the faulting task's).
    pub memcg: MemcgId,
    /// Whether the mapping exists (`false` once unmapped; the entry is reused).
    pub live: bool,
    /// The task whose address space it is in (`vma->vm_mm`; the running task's index,
    /// `Kernel::cur_mm`, at `do_mmap()`): the OOM killer's `oom_badness()` and `exit_mmap()`
    /// of that task find its mappings by it (oom_kill.rs).
    pub mm: u32,
    /// `VM_LOCKED` (mlock, mm/mlock.c): every page it maps, anonymous or page cache, is on
    /// the unevictable list ([`Kernel::mlock_folio`]).
    pub locked: bool,
    /// Pages faulted in.
    pub nr_resident: u64,
    /// The swap slot of each page that was swapped out (`NO_SLOT` otherwise); empty until
    /// the first swap-out.
    pub swap: Vec<u32>,
    /// Per 2 MiB range, whether its page table (the PTE page, or the table a huge page
    /// deposits) was allocated; they go at munmap.
    pub ptes: Vec<bool>,
    /// Page-table pages allocated.
    pub nr_ptes: u64,
    /// The accessed ("young") bit of each anonymous page's PTE, as bits: set by the fault that
    /// maps the page and by every later access (the CPU sets it), tested and cleared by
    /// reclaim's `folio_referenced()` (an anonymous page has one PTE: no fork is modelled).
    /// Empty for a file VMA (whose bits are in [`FileVma::young`]).
    pub young: Vec<u64>,
    /// The file side of a file mapping (`vma->vm_file`, `vm_pgoff`, its flags); `None` for
    /// anonymous memory. In a file VMA `pages[i]` is the page-cache page mapped at page `i`
    /// (no `pg::ANON`), or the private copy a write made of it (`pg::ANON`, COW).
    pub file: Option<Box<FileVma>>,
    /// What its anonymous pages hold once written (the mmap op's `fill`): what zswap makes
    /// of them.
    pub fill: crate::zswap::AnonFill,
    /// `vma->swap_readahead_info` (4.14+): the page of the last swap fault or readahead hit,
    /// the last window and the readahead hits since (`SWAP_RA_VAL(addr, win, hits)`); a new
    /// VMA's is [`crate::swapfile::SWAP_RA_INIT`].
    pub swap_ra: (u32, u32, u32),
    /// The anonymous PTEs a store cannot simply go through, as bits (empty until a read fault
    /// sets one): with `pages[i]` NIL, the shared zero page a read fault mapped
    /// (`do_anonymous_page()` without `FAULT_FLAG_WRITE`; a store takes `do_wp_page()` ->
    /// `wp_page_copy()`); over a page, one a read fault mapped from the swap cache
    /// (`do_swap_page()` without `FAULT_FLAG_WRITE`): write-protected before 6.11 (a store
    /// takes `do_wp_page()`, which reuses the exclusive page), writable but clean from 6.11
    /// (the CPU sets the dirty bit), and either way the store dirties the PTE, whose dirty bit
    /// the next unmap moves to the folio.
    pub wrprotect: Vec<u64>,
}

/// The file of a file VMA, and the per-PTE state the engine keeps for it.
#[derive(Clone, Debug)]
pub struct FileVma {
    /// `vma->vm_file`'s inode.
    pub inode: InodeId,
    /// `vm_pgoff`: the file page mapped at the VMA's first page.
    pub pgoff: u32,
    /// `VM_SHARED`.
    pub shared: bool,
    /// `VM_EXEC`.
    pub exec: bool,
    /// `VM_SEQ_READ` (MADV_SEQUENTIAL).
    pub seq_read: bool,
    /// `VM_RAND_READ` (MADV_RANDOM).
    pub rand_read: bool,
    /// The accessed ("young") bit of each page's PTE, as bits: set by the access that maps
    /// or touches the page (the CPU sets it), tested and cleared by `folio_referenced()`.
    pub young: Vec<u64>,
    /// `file->f_ra`: the opened file's readahead state (its `mmap_miss` too).
    pub ra: crate::readahead::FileRaState,
    /// `ra->mmap_miss`.
    pub mmap_miss: u32,
}

impl Vma {
    /// Set the accessed bit of anonymous page `i`'s PTE (an access by the CPU).
    #[inline]
    pub fn mkyoung(&mut self, i: u32) {
        if let Some(w) = self.young.get_mut((i / 64) as usize) {
            *w |= 1 << (i % 64);
        }
    }

    /// Set the accessed bits of pages `from..to` (a run of accesses), a word at a time.
    pub fn mkyoung_range(&mut self, from: u32, to: u32) {
        let mut i = from;
        while i < to {
            let Some(w) = self.young.get_mut((i / 64) as usize) else { return };
            let lo = i % 64;
            let n = (to - i).min(64 - lo);
            *w |= if n == 64 { u64::MAX } else { ((1u64 << n) - 1) << lo };
            i += n;
        }
    }

    /// `ptep_test_and_clear_young()` of anonymous page `i`'s PTE.
    #[inline]
    pub fn test_and_clear_young(&mut self, i: u32) -> bool {
        match self.young.get_mut((i / 64) as usize) {
            Some(w) => {
                let y = *w & (1 << (i % 64)) != 0;
                *w &= !(1 << (i % 64));
                y
            }
            None => false,
        }
    }

    /// The accessed bit of page `i`'s PTE, in a file VMA ([`FileVma::young`]) or an anonymous
    /// one (`pte_young()`).
    #[inline]
    pub fn pte_young(&self, i: u32) -> bool {
        match &self.file {
            Some(f) => f.young(i),
            None => self.young.get((i / 64) as usize).is_some_and(|w| w & (1 << (i % 64)) != 0),
        }
    }

    /// Whether anonymous page `i`'s PTE is in [`Vma::wrprotect`].
    #[inline]
    pub fn wp_test(&self, i: u32) -> bool {
        self.wrprotect.get((i / 64) as usize).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Put page `i`'s PTE in [`Vma::wrprotect`] (growing the bits to the VMA's size).
    pub fn wp_set(&mut self, i: u32) {
        if self.wrprotect.is_empty() {
            self.wrprotect.resize(self.pages.len().div_ceil(64), 0);
        }
        self.wrprotect[(i / 64) as usize] |= 1 << (i % 64);
    }

    /// Take pages `from..to` out of [`Vma::wrprotect`] (a store, or the PTEs gone).
    #[inline]
    pub fn wp_clear_range(&mut self, from: u32, to: u32) {
        if self.wrprotect.is_empty() {
            return;
        }
        let mut i = from;
        while i < to {
            let w = &mut self.wrprotect[(i / 64) as usize];
            let lo = i % 64;
            let n = (to - i).min(64 - lo);
            *w &= !(if n == 64 { u64::MAX } else { ((1u64 << n) - 1) << lo });
            i += n;
        }
    }

    /// Whether any PTE of pages `from..to` is in [`Vma::wrprotect`].
    #[inline]
    pub fn wp_any(&self, from: u32, to: u32) -> bool {
        !self.wrprotect.is_empty() && (from..to).any(|i| self.wp_test(i))
    }

    /// Clear the accessed bit of page `i`'s PTE (`ptep_test_and_clear_young()` of one found
    /// young), in a file or an anonymous VMA.
    #[inline]
    pub fn pte_mkold(&mut self, i: u32) {
        match self.file.as_mut() {
            Some(f) => f.set_young(i, false),
            None => {
                self.test_and_clear_young(i);
            }
        }
    }

    /// Whether any PTE of pages `from..to` is young, a word of 64 at a time (the x86 non-leaf
    /// PMD accessed bit the page-table walk tests first).
    #[inline]
    pub fn any_young(&self, from: u32, to: u32) -> bool {
        let bits = match &self.file {
            Some(f) => &f.young[..],
            None => &self.young[..],
        };
        bits.get((from / 64) as usize..to.div_ceil(64) as usize).is_some_and(|w| w.iter().any(|&w| w != 0))
    }
}

impl FileVma {
    /// Whether page `i`'s PTE is young.
    #[inline]
    pub fn young(&self, i: u32) -> bool {
        self.young[(i / 64) as usize] & (1 << (i % 64)) != 0
    }
    /// Set or clear page `i`'s accessed bit.
    #[inline]
    pub fn set_young(&mut self, i: u32, on: bool) {
        let w = &mut self.young[(i / 64) as usize];
        if on {
            *w |= 1 << (i % 64);
        } else {
            *w &= !(1 << (i % 64));
        }
    }
}

/// Why a fault failed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FaultError {
    /// No memory could be found (the OOM killer's case).
    Oom,
    /// The fault's charge slept in reclaim and the sleep ended the task's quantum
    /// ([`crate::sched::Resched`]): nothing was mapped and the fault is taken again at the
    /// task's wake-up (the engine's restart, where the kernel's charge goes on after the sleep:
    /// the fault is counted once).
    Retry,
}

impl Kernel {
    /// `do_mmap()` of a private anonymous region of `nr_pages` for a task in `memcg`.
    pub fn do_mmap_anon(&mut self, nr_pages: u64, memcg: MemcgId) -> VmaId {
        self.cpu(self.cost.mmap_call);
        let id = match self.free_vmas.pop() {
            Some(id) => id,
            None => {
                self.vmas.push(Vma { pages: vec![], memcg: MemcgId::ROOT, live: false, mm: u32::MAX, locked: false, nr_resident: 0, swap: vec![], ptes: vec![], nr_ptes: 0, young: vec![], file: None, fill: crate::zswap::AnonFill::Byte, swap_ra: crate::swapfile::SWAP_RA_INIT, wrprotect: vec![] });
                VmaId(self.vmas.len() as u32 - 1)
            }
        };
        let v = &mut self.vmas[id.0 as usize];
        v.pages.clear();
        v.pages.resize(nr_pages as usize, PageId::NIL);
        v.memcg = memcg;
        v.live = true;
        v.mm = self.cur_mm;
        v.locked = false;
        v.nr_resident = 0;
        v.ptes.clear();
        v.ptes.resize((nr_pages as usize).div_ceil(PAGEBLOCK_NR as usize), false);
        v.nr_ptes = 0;
        v.young.clear();
        v.young.resize((nr_pages as usize).div_ceil(64), 0);
        v.file = None;
        v.fill = crate::zswap::AnonFill::Byte;
        v.swap_ra = crate::swapfile::SWAP_RA_INIT;
        v.wrprotect.clear();
        self.lru_gen_mm_add_vma(id);
        id
    }

    /// `pte_alloc()` (and the table `do_huge_pmd_anonymous_page()` deposits): the first fault
    /// in a 2 MiB range allocates its page table, charged to the memcg as kernel memory from
    /// 4.5 (Vladimir Davydov's "arch: x86: charge page tables to kmemcg",
    /// `KernelProfile::account_page_tables`). The engine accounts the page, it does not take
    /// a frame for it. False when the charge fails (the fault's OOM).
    fn pte_alloc(&mut self, vma: VmaId, index: u32) -> bool {
        let v = vma.0 as usize;
        let r = (index / PAGEBLOCK_NR as u32) as usize;
        if !self.profile.account_page_tables || self.vmas[v].ptes.get(r).copied().unwrap_or(true) {
            return true;
        }
        let memcg = self.vmas[v].memcg;
        if !self.memcg_kmem_charge(memcg, crate::types::PAGE_SIZE) {
            return false;
        }
        self.vmas[v].ptes[r] = true;
        self.vmas[v].nr_ptes += 1;
        true
    }

    /// Cost multiplier for touching memory of node `page_nid` from node `cpu_nid`, in tenths:
    /// the SLIT distance (`node_distance()`; `LOCAL_DISTANCE` 10, `REMOTE_DISTANCE` 20).
    #[inline]
    fn distance(&self, cpu_nid: u32, page_nid: u32) -> u64 {
        if cpu_nid == page_nid {
            LOCAL_DISTANCE as u64
        } else {
            REMOTE_DISTANCE as u64
        }
    }

    /// `handle_mm_fault()` of a write to page `index` of `vma` by a task on the current node
    /// ([`Kernel::handle_mm_fault_flags`] with `FAULT_FLAG_WRITE`).
    pub fn handle_mm_fault(&mut self, vma: VmaId, index: u32) -> Result<(), FaultError> {
        self.handle_mm_fault_walk(vma, index, true).map(|_| ())
    }

    /// `handle_mm_fault()` of an access (a store when `write`: `FAULT_FLAG_WRITE`) to page
    /// `index` of anonymous `vma` by a task on the current node. A mapped page takes no fault,
    /// unless a store meets a PTE in [`Vma::wrprotect`] (`do_wp_page()`). An unmapped one:
    /// `do_swap_page()` for a swap entry; else, for a store, `do_huge_pmd_anonymous_page()`
    /// when THP is enabled and the aligned 2 MiB range lies inside the VMA and is untouched
    /// (falling back to a base page when no huge page can be had: `thp_fault_fallback`), else
    /// `do_anonymous_page()`; for a load, the zero page ([`Kernel::do_anonymous_page_read`]).
    pub fn handle_mm_fault_flags(&mut self, vma: VmaId, index: u32, write: bool) -> Result<(), FaultError> {
        self.handle_mm_fault_walk(vma, index, write).map(|_| ())
    }

    /// `handle_mm_fault()`, returning the allocation's zonelist walk when the fault was a
    /// base-page `do_anonymous_page()` whose allocation and charge changed nothing but the
    /// counters of one zone and of the memcg (see [`Kernel::handle_mm_fault_run`]).
    fn handle_mm_fault_walk(&mut self, vma: VmaId, index: u32, write: bool) -> Result<Option<crate::page_alloc::FreelistWalk>, FaultError> {
        let v = vma.0 as usize;
        if self.vmas[v].pages[index as usize] != PageId::NIL {
            if write && self.vmas[v].wp_test(index) {
                self.do_wp_page_anon(vma, index);
            }
            // Mapped: no fault; the access sets the PTE's accessed bit.
            self.vmas[v].mkyoung(index);
            return Ok(None);
        }
        if !write && self.vmas[v].wp_test(index) {
            // The zero page is mapped: a load takes no fault.
            return Ok(None);
        }
        if self.zswap.as_ref().is_some_and(|z| z.shrink_pending()) {
            // zswap's shrink_worker, queued by a store that found the pool full (6.8+: run
            // now; 6.1: caught up with this fault's clock).
            self.zswap_shrink_worker();
        }
        // lru_gen_enter_fault() (6.1 handle_mm_fault()): an anonymous VMA is neither
        // VM_SEQ_READ nor VM_RAND_READ, so every page this fault adds to the LRU
        // (folio_add_lru(): the new page, or the swap-in and its readahead) is added active,
        // to the youngest generation; lru_gen_exit_fault() after.
        self.lru_gen_in_fault = self.profile.lru_gen;
        let r = self.do_anon_fault(vma, index, write);
        self.lru_gen_in_fault = false;
        r
    }

    /// `do_wp_page()` of a store to mapped anonymous page `index` of `vma` whose PTE is in
    /// [`Vma::wrprotect`]: the page is exclusive (`PageAnonExclusive()`: a swap-in whose swap
    /// PTE said so, `pte_swp_exclusive()`), so `wp_page_reuse()` makes the PTE writable and
    /// dirty; a fault (pgfault) before 6.11. From 6.11 (c18160dba5ff "mm: swap: reuse
    /// exclusive folio directly instead of wp page faults") `do_swap_page()` mapped it
    /// writable and the CPU sets the dirty bit: no fault. Either way a page still in the swap
    /// cache is dirty for its next unmap (the PTE's dirty bit moves to the folio), and
    /// reclaim writes it to its slot again.
    fn do_wp_page_anon(&mut self, vma: VmaId, index: u32) {
        let v = vma.0 as usize;
        if !self.profile.swapin_maps_writable {
            let memcg = self.vmas[v].memcg;
            self.count_pgfault(memcg, false);
            self.cpu(self.cost.anon_fault);
        }
        self.vmas[v].wp_clear_range(index, index + 1);
        let p = self.vmas[v].pages[index as usize];
        if self.pages[p].test(pg::SWAPCACHE) {
            self.pages[p].flags |= pg::DIRTY;
        }
    }

    /// `__handle_mm_fault()` of an anonymous VMA's unmapped page: the body of
    /// [`Kernel::handle_mm_fault_walk`].
    fn do_anon_fault(&mut self, vma: VmaId, index: u32, write: bool) -> Result<Option<crate::page_alloc::FreelistWalk>, FaultError> {
        let v = vma.0 as usize;
        if !self.pte_alloc(vma, index) {
            return Err(FaultError::Oom);
        }
        self.count_pgfault(self.vmas[v].memcg, false);
        let nid = self.cur_nid;
        if self.vmas[v].swap.get(index as usize).is_some_and(|&s| s != crate::swapfile::NO_SLOT) {
            // do_swap_page() counts the major fault when it has to read.
            return self.do_swap_page(vma, index, nid, write).map(|_| None).ok_or(FaultError::Oom);
        }
        let start = index & !(PAGEBLOCK_NR as u32 - 1);
        let end = start as usize + PAGEBLOCK_NR as usize;
        // A huge page (or the huge zero page) only where the PMD is none: the whole range
        // untouched, no swap entry and no zero-page PTE in it.
        let huge_range = |k: &Kernel| {
            let vm = &k.vmas[v];
            end <= vm.pages.len()
                && unmapped_prefix(&vm.pages[start as usize..end]) == PAGEBLOCK_NR as usize
                && !(vm.swap.len() >= end && vm.swap[start as usize..end].iter().any(|&s| s != crate::swapfile::NO_SLOT))
                && !vm.wp_any(start, end as u32)
        };
        if !write {
            let huge = self.thp_enabled && huge_range(self);
            self.do_anonymous_page_read(vma, index, huge);
            return Ok(None);
        }
        if self.thp_enabled && huge_range(self) && self.do_huge_pmd_anonymous_page(vma, start)? {
            return Ok(None);
        }
        let r = self.do_anonymous_page(vma, index, nid);
        if r == Err(FaultError::Retry) {
            // Counted when the fault is taken again.
            self.uncount_pgfault(self.vmas[v].memcg);
        }
        r
    }

    /// `do_anonymous_page()` of a load (no `FAULT_FLAG_WRITE`; x86 has no
    /// `mm_forbids_zeropage()`, and no userfaultfd is modelled): the PTE maps the shared zero
    /// page (`my_zero_pfn()`, `pte_mkspecial()`): no page allocated, nothing charged or put on
    /// an LRU list, not in RSS. With `huge` (THP enabled for the VMA and the PMD none),
    /// `do_huge_pmd_anonymous_page()` maps the huge zero page instead
    /// (`transparent_hugepage_use_zero_page()`, on by default), and a later store splits the
    /// PMD (`do_huge_pmd_wp_page()` -> `__split_huge_pmd()`) into PTEs of the zero page,
    /// each then copied on its own fault: so the 512 PTEs are marked here.
    pub(crate) fn do_anonymous_page_read(&mut self, vma: VmaId, index: u32, huge: bool) {
        self.cpu(self.cost.anon_fault);
        let v = &mut self.vmas[vma.0 as usize];
        if huge {
            let start = index & !(PAGEBLOCK_NR as u32 - 1);
            for i in start..start + PAGEBLOCK_NR as u32 {
                v.wp_set(i);
            }
        } else {
            v.wp_set(index);
        }
    }

    /// `handle_mm_fault()` of page `index` of anonymous `vma`, then, while nothing but the
    /// faults themselves happens, of the unmapped pages after it in the same 2 MiB range, up
    /// to `end`: each is a base-page `do_anonymous_page()` (the range has its page table, so
    /// no THP attempt), and is taken here without the zonelist walk and `alloc_pages()`'s
    /// checks when they would all come out as for the page before: no I/O completion or
    /// kswapd work due (`alloc_quiet_until()`), the same walk to the same zone
    /// (`freelist_walk_holds()`), a charge without reclaim or memory.high work
    /// (`charge_is_quiet()`), no swap entry at the page. The result is that of one
    /// `handle_mm_fault()` per page, with the task's return to user space between faults
    /// doing nothing (nothing over memory.high), and the first fault not having slept. Returns
    /// the index after the last page faulted.
    pub fn handle_mm_fault_run(&mut self, vma: VmaId, index: u32, end: u32) -> Result<u32, FaultError> {
        let slept = self.iowait_ns;
        let Some(w) = self.handle_mm_fault_walk(vma, index, true)? else {
            return Ok(index + 1);
        };
        // A first fault that slept (a THP attempt's charge or allocation that reclaimed and
        // waited, before the fallback to this base page) ends the run: its task's return
        // finds the CPU given to the other runnable tasks (touch_range() ends the quantum),
        // and the next fault comes after what they did meanwhile.
        if self.nr_pages_over_high != 0 || self.iowait_ns != slept || self.one_at_a_time {
            return Ok(index + 1);
        }
        let v = vma.0 as usize;
        let end = end.min((index | (PAGEBLOCK_NR as u32 - 1)) + 1).min(self.vmas[v].pages.len() as u32);
        let memcg = self.vmas[v].memcg;
        let until = self.alloc_quiet_until();
        let page_nid = self.zones[w.zone].node;
        let (fault, clear) = (self.cost.anon_fault, self.cost.clear_page * self.distance(w.nid, page_nid) / LOCAL_DISTANCE as u64);
        let lv = self.lruvec_idx(memcg, if self.nr_nodes == 1 { 0 } else { page_nid });
        let swapped = !self.vmas[v].swap.is_empty();
        let step = fault + clear;
        let mut i = index + 1;
        // Each page below is one more fault: lru_gen_enter_fault() .. lru_gen_exit_fault().
        self.lru_gen_in_fault = self.profile.lru_gen;
        while i < end {
            // The allocation happens after the fault's own CPU cost; the charge after it
            // touches only memcg counters, so it is made (or found not quiet) first.
            let t = self.now + fault;
            if t >= until || !self.freelist_walk_holds(&w, t) {
                break;
            }
            // The faults that will all come out the same, page k's allocation at t + k * step:
            // before `until` and the zonelist cache's zap, while the zone stays above its
            // watermark and keeps a fair batch, over unmapped pages without swap entries,
            // charged from the stock within every limit (a charge that refills the stock
            // goes alone, through try_charge_quiet()).
            let mut k = (end - i) as u64;
            k = k.min((until - t - 1) / step + 1);
            if w.zlc {
                k = k.min((self.nodes[w.nid as usize].zlc_last_zap + crate::page_alloc::ZLC_ZAP_INTERVAL - t - 1) / step + 1);
            }
            let zone = &self.zones[w.zone];
            k = k.min(zone.free - zone.wmark_low);
            if w.fair {
                k = k.min(zone.alloc_batch as u64);
            }
            // 6.7+ per-CPU lists: the frames the task's list holds (an empty list is refilled
            // by the next fault's rmqueue_pcplist(), outside the run).
            let pcp = self.profile.pcp_auto_tune.then(|| self.pcp_of(w.zone));
            match pcp {
                Some(pi) => k = k.min(self.pcps[pi].list.len() as u64),
                // from the zone: no frame of the run may be a fallback steal that boosts (5.0+)
                None => k = k.min(self.zones[w.zone].movable_run_bound()),
            }
            let from = i as usize;
            k = unmapped_prefix(&self.vmas[v].pages[from..from + k as usize]) as u64;
            if swapped {
                let sw = &self.vmas[v].swap;
                k = (0..k).take_while(|&j| sw.get(from + j as usize).is_none_or(|&s| s == crate::swapfile::NO_SLOT)).count() as u64;
            }
            let stocked = self.charge_from_stock(memcg).min(k);
            if stocked > 0 {
                k = stocked;
                self.charge_stock_commit(memcg, k);
            } else if k == 0 || !self.try_charge_quiet(memcg, 1) {
                break;
            } else {
                // The charge refilled the stock (`charge_batch_high()`): the pages after it
                // are charged from the stock in the same run, as the loop's next pass would
                // charge them (every bound on `k` above moves by exactly this one page), when
                // no periodic stats flush falls inside the run (`cpu()` would run it between
                // this page and the next).
                let more = self.charge_from_stock(memcg).min(k - 1);
                k = if more > 0 && self.now + (1 + more) * step < self.stats_flush_next {
                    self.charge_stock_commit(memcg, more);
                    1 + more
                } else {
                    1
                };
            }
            if pcp.is_some() && !self.zones[w.zone].below_high {
                // 6.7+: each fault's get_page_from_freelist() "Detect[s] whether the number
                // of free pages is below high watermark" before it takes its page: the
                // refill of the list by the fault before the run (rmqueue_pcplist() ->
                // rmqueue_bulk(), after its own test) may have taken the zone below it, and
                // the next fault's test then sets ZONE_BELOW_HIGH (nr_pcp_high() of later
                // frees reads it). Nothing in the run changes the zone's free pages (the
                // frames come off the list), so one test stands for every fault of it.
                let zone = &self.zones[w.zone];
                if !zone.watermark_ok(0, zone.wmark_high, self.profile.watermark_check_lower_orders) {
                    self.zones[w.zone].below_high = true;
                }
            }
            self.cpu(k * step);
            match pcp {
                Some(pi) => self.pcps[pi].take_run(&mut self.vmas[v].pages[from..from + k as usize]),
                None => self.zones[w.zone].take_order0_run(&mut self.vmas[v].pages[from..from + k as usize]),
            }
            self.zones[w.zone].alloc_batch -= k as i64;
            if self.lruvecs[lv].lrugen.enabled || self.profile.anon_fault_inactive || self.vmas[v].locked {
                // Generation lists, the inactive anon list from 5.9, or the unevictable list
                // of a VM_LOCKED VMA: page by page.
                for j in from..from + k as usize {
                    let pfn = self.vmas[v].pages[j];
                    self.anon_page_link(vma, j as u32, pfn, memcg, lv);
                }
            } else if self.profile.lru_add_batch > 0 {
                self.anon_pages_batch_run(vma, from, k as usize, memcg, lv, w.zone);
            } else {
                self.anon_pages_link_run(vma, from, k as usize, memcg, lv);
            }
            i += k as u32;
        }
        self.lru_gen_in_fault = false;
        // The counters of the faults taken above: PGFAULT, PGALLOC and the NUMA events of
        // each allocation, the pages mapped.
        let n = (i - index - 1) as u64;
        if n > 0 {
            self.vmstat.count(VmEvent::Pgfault, n);
            self.memcgs.count_event(memcg, crate::memcontrol::MemcgEvent::Pgfault, n);
            self.zone_statistics_n(w.zone, w.nid, n);
            self.vmstat.count(VmEvent::Pgalloc, n);
            self.vmas[v].nr_resident += n;
            self.memcgs.memcgs[memcg.idx()].nr_anon += n;
            // one PGPGIN per folio charged (mem_cgroup_charge_statistics())
            self.memcgs.count_event(memcg, crate::memcontrol::MemcgEvent::Pgpgin, n);
            self.vmstat.nr_anon_pages += n;
            self.page_events += n;
        }
        Ok(i)
    }

    /// The gfp of a THP fault's memcg charge: the allocation's (`vma_thp_gfp_mask()`, 6.1;
    /// `alloc_hugepage_gfpmask()`, 4.4): with defrag "madvise" on a mapping not madvised,
    /// no direct reclaim (`GFP_TRANSHUGE_LIGHT`): the charge fails at the limit; with
    /// "always", `GFP_TRANSHUGE`, whose `__GFP_NORETRY` gives up after the reclaim round.
    /// 3.13 charges with `GFP_KERNEL` (`mem_cgroup_newpage_charge(page, mm, GFP_KERNEL)` in
    /// mm/huge_memory.c) and `oom = false`: the first failed round ends it.
    pub(crate) fn thp_charge_gfp(&self) -> crate::memcontrol::ChargeGfp {
        use crate::memcontrol::ChargeGfp;
        if self.profile.thp_defrag_madvise {
            ChargeGfp::NoBlock
        } else if self.profile.charge_path == crate::profile::ChargePath::DoCharge {
            ChargeGfp::KernelNoOom
        } else {
            ChargeGfp::NoRetry
        }
    }

    /// `do_huge_pmd_anonymous_page()`: allocate an order-9 page, charge 512 pages, clear it.
    /// The request wakes no kswapd; with THP defrag "always" (the default before 4.6) it gives
    /// up after compaction and one reclaim round (`GFP_TRANSHUGE`), with "madvise" (the
    /// default since 4.6; memtwin's mappings are not madvised) after its attempt at the min
    /// watermark (`GFP_TRANSHUGE_LIGHT`). Returns `Ok(false)` when the caller must fall back
    /// to a base page.
    fn do_huge_pmd_anonymous_page(&mut self, vma: VmaId, start: u32) -> Result<bool, FaultError> {
        let nid = self.cur_nid;
        self.cpu(self.cost.thp_fault);
        // alloc_hugepage_vma(): since 4.0 (5265047ac301 "mm, thp: really limit transparent
        // hugepage allocation to local node") a THP fault asks the local node only.
        let thisnode = self.profile.thp_thisnode;
        let no_direct_reclaim = self.profile.thp_defrag_madvise;
        let Some(head) = self.alloc_pages(crate::page_alloc::PAGEBLOCK_ORDER, Gfp { nid, thp: true, no_kswapd: true, thisnode, no_direct_reclaim, movable: true, noretry: false }) else {
            self.vmstat.count(VmEvent::ThpFaultFallback, 1);
            return Ok(false);
        };
        // post_alloc_hook(): GFP_TRANSHUGE has no __GFP_ZERO, so under init_on_alloc the huge
        // page is zeroed here and again by clear_huge_page() below (6.1's
        // __do_huge_pmd_anonymous_page(); until 5708d96da20b "mm: avoid zeroing user movable
        // page twice with init_on_alloc=1", 6.13; no later profile here has init_on_alloc).
        self.post_alloc_init(PAGEBLOCK_NR);
        let memcg = self.vmas[vma.0 as usize].memcg;
        if self.try_charge_memcg_gfp(memcg, PAGEBLOCK_NR, self.thp_charge_gfp()).is_err() {
            // mem_cgroup_charge() failed: free the huge page and fall back.
            let z = self.zone_of(head);
            self.zones[z].free_pageblock(head.0 as u64);
            self.vmstat.count(VmEvent::ThpFaultFallback, 1);
            return Ok(false);
        }
        let page_nid = self.page_nid(head);
        let dist = self.distance(nid, page_nid);
        self.cpu(self.cost.clear_page * PAGEBLOCK_NR * dist / LOCAL_DISTANCE as u64);
        self.pages.init_range(head, PAGEBLOCK_NR as u32, InodeId(vma.0), start, memcg, pg::ANON | pg::SWAPBACKED | pg::TAIL);
        self.pages[head].flags = pg::ANON | pg::SWAPBACKED | pg::HEAD;
        for (i, slot) in self.vmas[vma.0 as usize].pages[start as usize..(start + PAGEBLOCK_NR as u32) as usize].iter_mut().enumerate() {
            *slot = PageId(head.0 + i as u32);
        }
        self.memcgs.memcgs[memcg.idx()].nr_anon += PAGEBLOCK_NR;
        // mem_cgroup_charge_statistics(): "pagein of a big page is an event"
        self.memcgs.count_event(memcg, crate::memcontrol::MemcgEvent::Pgpgin, 1);
        self.vmas[vma.0 as usize].nr_resident += PAGEBLOCK_NR;
        self.vmstat.nr_anon_pages += PAGEBLOCK_NR;
        self.vmstat.count(VmEvent::ThpFaultAlloc, 1);
        self.vmas[vma.0 as usize].mkyoung_range(start, start + PAGEBLOCK_NR as u32);
        if self.vmas[vma.0 as usize].locked {
            // folio_add_lru_vma() -> mlock_new_page() of the huge page (VM_LOCKED)
            let lv = self.folio_lruvec(head);
            self.mlock_new_page(head, lv);
        } else {
            self.anon_lru_add(head, PAGEBLOCK_NR);
        }
        self.page_events += PAGEBLOCK_NR;
        Ok(true)
    }

    /// `do_anonymous_page()`: allocate a zeroed order-0 page on the task's node (or wherever
    /// the zonelist falls back to), charge it, map it, put it on the anon LRU.
    /// Returns the allocation's zonelist walk when it and the charge changed nothing but
    /// counters (`Kernel::freelist_walk`, `charge_is_quiet()`).
    fn do_anonymous_page(&mut self, vma: VmaId, index: u32, nid: u32) -> Result<Option<crate::page_alloc::FreelistWalk>, FaultError> {
        // A fault its charge's sleep interrupted goes on after the sleep: its entry was paid.
        if !self.take_resumed(crate::sched::Resumed::ENTRY) {
            self.cpu(self.cost.anon_fault);
        }
        let pfn = self.alloc_pages(0, Gfp::node(nid)).ok_or(FaultError::Oom)?;
        let walk = self.freelist_walk.take();
        let memcg = self.vmas[vma.0 as usize].memcg;
        let quiet = self.charge_is_quiet(memcg, 1);
        // A task's fault can be taken again: its charge may end the quantum.
        self.resched.restartable_next = true;
        if let Err(e) = self.try_charge_memcg(memcg, 1, true) {
            let z = self.zone_of(pfn);
            self.zones[z].free_order0(pfn.0 as u64);
            return Err(if e == crate::memcontrol::ChargeError::Again { FaultError::Retry } else { FaultError::Oom });
        }
        let dist = self.distance(nid, self.page_nid(pfn));
        self.cpu(self.cost.clear_page * dist / LOCAL_DISTANCE as u64);
        self.anon_page_install(vma, index, pfn, memcg);
        Ok(if quiet { walk } else { None })
    }

    /// `folio_add_new_anon_rmap()` + `folio_add_lru_vma()`: the new anonymous page in frame
    /// `pfn`, charged to `memcg`, mapped at page `index` of `vma` (its PTE young) and put on
    /// the anon LRU ([`Kernel::anon_lru_add`]).
    pub(crate) fn anon_page_install(&mut self, vma: VmaId, index: u32, pfn: PageId, memcg: MemcgId) {
        let nid = if self.nr_nodes == 1 { 0 } else { self.page_nid(pfn) };
        let lv = self.lruvec_idx(memcg, nid);
        self.anon_page_link(vma, index, pfn, memcg, lv);
        self.vmas[vma.0 as usize].nr_resident += 1;
        let m = &mut self.memcgs.memcgs[memcg.idx()];
        m.nr_anon += 1;
        // mem_cgroup_charge_statistics() from charge_memcg(): one PGPGIN per folio charged
        m.events[crate::memcontrol::MemcgEvent::Pgpgin as usize] += 1;
        self.vmstat.nr_anon_pages += 1;
        self.page_events += 1;
    }

    /// `anon_page_link()` of the `n` pages of `vma` from `from`, whose frames are in
    /// `vma.pages` already, one after the other onto the head of the two-list LRU's active
    /// anon list (eras that add new anonymous pages active, before 5.9): each page written
    /// whole, the list's ends and counts once.
    fn anon_pages_link_run(&mut self, vma: VmaId, from: usize, n: usize, memcg: MemcgId, lv: usize) {
        self.anon_pages_chain(vma, from, n, 0, memcg, lv);
    }

    /// [`Kernel::anon_pages_link_run`] of the `n` pages of `vma` from `from` whose first
    /// `batched` ones waited in the CPU's `lru_add` batch (added already: their `Page`s,
    /// accessed bits and reclaim statistics written; [`Kernel::fbatch_holds_vma_run`]):
    /// those get their links and `PG_lru` (`lru_add_fn()` -> `lruvec_add_folio()` of each in
    /// turn), the others are written whole, and all go onto the list as one chain.
    fn anon_pages_chain(&mut self, vma: VmaId, from: usize, n: usize, batched: usize, memcg: MemcgId, lv: usize) {
        let vp = &self.vmas[vma.0 as usize].pages[from..from + n];
        let l = &mut self.lruvecs[lv].lists[LruList::ActiveAnon as usize];
        let old_head = l.head;
        for t in 0..n {
            // Added in turn at the head: each page's next is the one added before it.
            let next = if t == 0 { old_head } else { vp[t - 1] };
            let prev = if t + 1 < n { vp[t + 1] } else { PageId::NIL };
            if t < batched {
                let p = &mut self.pages[vp[t]];
                p.prev = prev;
                p.next = next;
                p.set_lru(LruList::ActiveAnon as u8);
                p.flags |= pg::LRU;
                continue;
            }
            let page = crate::mm_types::Page {
                mapping: InodeId(vma.0),
                index: (from + t) as u32,
                memcg,
                prev,
                next,
                flags: pg::ANON | pg::SWAPBACKED | pg::ACTIVE | pg::LRU,
                lru_refs: LruList::ActiveAnon as u8,
                mapcount: 0,
            };
            self.pages.install(vp[t], page);
        }
        if old_head != PageId::NIL {
            self.pages[old_head].prev = vp[0];
        } else {
            l.tail = vp[0];
        }
        l.head = vp[n - 1];
        l.len += n as u64;
        l.pages += n as u64;
        self.lru_stats.update(lv as u32, LruList::ActiveAnon as usize, n as u64, true);
        // The new pages' PTEs young (the faulting accesses), and the reclaim statistics of
        // `anon_lru_add_lv()` for pages added active.
        let (a, b) = ((from + batched) as u32, (from + n) as u32);
        self.vmas[vma.0 as usize].mkyoung_range(a, b);
        self.vmas[vma.0 as usize].wp_clear_range(a, b);
        self.update_page_reclaim_stat(lv, false, (n - batched) as u64, true);
    }

    /// Whether CPU `cpu`'s `lru_add` batch holds the pages of `vma` just before page `to`,
    /// in index order, each a new anonymous page (`PG_anon`, `PG_swapbacked`, `PG_active`
    /// and nothing else) of `memcg` on node `nid` waiting there since its fault: then
    /// `folio_batch_move_lru()` puts them at the head of the active anon list of the lruvec
    /// the run's pages go to (`folio_lruvec()`: the memcg's on the node), one after the
    /// other, as a chain continuing into the run ([`Kernel::anon_pages_chain`]).
    fn fbatch_holds_vma_run(&self, cpu: usize, vma: VmaId, to: usize, memcg: MemcgId, nid: u32) -> bool {
        let b = &self.lru_add_fbatches[cpu];
        let c = b.nr as usize;
        if c == 0 || c > to {
            return false;
        }
        let slots = &self.vmas[vma.0 as usize].pages[to - c..to];
        b.folios[..c] == *slots
            && slots.iter().all(|&p| {
                if p == PageId::NIL {
                    return false;
                }
                let page = &self.pages[p];
                page.flags == pg::ANON | pg::SWAPBACKED | pg::ACTIVE
                    && page.lru() == crate::swap::LRU_IN_FBATCH
                    && page.memcg == memcg
                    && (self.nr_nodes == 1 || self.page_nid(p) == nid)
            })
    }

    /// `anon_page_link()` of the `n` pages of `vma` from `from` (frames in `vma.pages`
    /// already) into CPU `cpu`'s `lru_add` batch, which has room for them without a move
    /// (`folio_add_lru()` of each: `PG_active` set, the page in the next slot), each `Page`
    /// written whole; their PTEs young and the reclaim statistics of pages added active.
    fn anon_pages_batch_add(&mut self, cpu: usize, vma: VmaId, from: usize, n: usize, memcg: MemcgId, lv: usize) {
        let vp = &self.vmas[vma.0 as usize].pages[from..from + n];
        let b = &mut self.lru_add_fbatches[cpu];
        debug_assert!(b.nr as usize + n <= self.profile.lru_add_batch.min(crate::swap::FOLIO_BATCH_MAX), "a batch add that moves the batch");
        for (t, &pfn) in vp.iter().enumerate() {
            let page = crate::mm_types::Page {
                mapping: InodeId(vma.0),
                index: (from + t) as u32,
                memcg,
                prev: PageId::NIL,
                next: PageId::NIL,
                flags: pg::ANON | pg::SWAPBACKED | pg::ACTIVE,
                lru_refs: crate::swap::LRU_IN_FBATCH,
                mapcount: 0,
            };
            self.pages.install(pfn, page);
            b.folios[b.nr as usize] = pfn;
            b.nr += 1;
        }
        let (a, e) = (from as u32, (from + n) as u32);
        self.vmas[vma.0 as usize].mkyoung_range(a, e);
        self.vmas[vma.0 as usize].wp_clear_range(a, e);
        self.update_page_reclaim_stat(lv, false, n as u64, true);
    }

    /// [`Kernel::anon_pages_link_run`] through the running CPU's `lru_add` batch
    /// (`lru_cache_add_active_or_unevictable()` -> `__lru_cache_add()` of each page, before
    /// 5.9): what `n` adds one at a time leave, in closed form. When the adds move the batch
    /// (`LruAddMove`), the pages already in it go onto their lists first, then the run's pages
    /// that the moves take are linked at once, in order; the last ones wait in the batch, page
    /// by page. (A run has no I/O completion due, so the moves' `swap_end_io()` are one.)
    fn anon_pages_batch_run(&mut self, vma: VmaId, from: usize, n: usize, memcg: MemcgId, lv: usize, zone: usize) {
        let size = self.profile.lru_add_batch.min(crate::swap::FOLIO_BATCH_MAX);
        let cpu = self.this_cpu();
        let c = self.lru_add_fbatches[cpu].nr as usize;
        let total = c + n;
        // The pages the batch holds after the last add.
        let left = match self.profile.lru_add_move {
            crate::swap::LruAddMove::AfterAdd => total % size,
            crate::swap::LruAddMove::BeforeAdd => (total - 1) % size + 1,
        };
        let moved_run = (total - left).saturating_sub(c);
        if total - left > 0 {
            // The batch's own pages, the first moved: when they are this VMA's pages before
            // the run (the faults before it), one chain with the run's moved pages.
            if c > 0 && self.fbatch_holds_vma_run(cpu, vma, from, memcg, self.zones[zone].node) {
                self.swap_end_io();
                self.lru_add_fbatches[cpu].nr = 0;
                self.anon_pages_chain(vma, from - c, c + moved_run, c, memcg, lv);
            } else {
                self.folio_batch_move_lru(cpu);
                if moved_run > 0 {
                    self.anon_pages_link_run(vma, from, moved_run, memcg, lv);
                }
            }
        }
        // The last ones wait in the batch (which the moves above emptied, or which has room
        // for them: no add below moves it).
        if moved_run < n {
            self.anon_pages_batch_add(cpu, vma, from + moved_run, n - moved_run, memcg, lv);
        }
    }

    /// The page and list side of `anon_page_install()`, with `lv` the lruvec of `memcg` on
    /// the frame's node; the caller counts the page.
    #[inline(always)]
    fn anon_page_link(&mut self, vma: VmaId, index: u32, pfn: PageId, memcg: MemcgId, lv: usize) {
        self.pages.init(pfn, InodeId(vma.0), index);
        let p = &mut self.pages[pfn];
        p.memcg = memcg;
        p.flags |= pg::ANON | pg::SWAPBACKED;
        let v = &mut self.vmas[vma.0 as usize];
        v.pages[index as usize] = pfn;
        v.mkyoung(index);
        // A store over the zero page (wp_page_copy()): the PTE is the new page's, writable.
        v.wp_clear_range(index, index + 1);
        if v.locked {
            // lru_cache_add_inactive_or_unevictable() -> mlock_new_page() (VM_LOCKED)
            self.mlock_new_page(pfn, lv);
        } else {
            self.anon_lru_add_lv(pfn, lv, 1);
        }
    }

    /// `zap_pte_range()` of the base pages of an anonymous VMA whose frames lie in one
    /// pageblock (from 6.7, in ascending order) and which sit next to each other on one LRU
    /// list (each page's `prev` the next one: faulted in that order, nothing moved since),
    /// none under writeback or with buffers: unlinked from the list at once
    /// (`lruvec_del_folio()` of each in turn leaves the same list), their `Page`s freed and
    /// their frames added to `free` ([`Kernel::free_mask_add`]). `pages` starts at the first
    /// page; returns how many went (0 when fewer than two qualify; the caller uncharges).
    fn zap_segment(&mut self, pages: &[PageId], free: &mut crate::page_alloc::FreeMask) -> u64 {
        const NOT: u16 = pg::HEAD | pg::TAIL | pg::WRITEBACK | pg::PRIVATE;
        let p = pages[0];
        let first = self.pages[p];
        if first.flags & (pg::LRU | NOT) != pg::LRU || pages.len() < 2 || self.one_at_a_time {
            return 0;
        }
        let z = self.zone_of(p);
        let zone = &self.zones[z];
        let block_start = zone.start_pfn + (p.0 as u64 - zone.start_pfn) / PAGEBLOCK_NR * PAGEBLOCK_NR;
        let block_end = (block_start + PAGEBLOCK_NR).min(zone.start_pfn + zone.managed);
        let ascending = self.profile.pcp_auto_tune;
        let mut m = 1usize;
        let mut last = first;
        let mut last_pfn = p.0 as u64;
        // Whether the segment's frames are p, p + 1, ... (a fault run's, as the buddy handed
        // them out): they are freed as one range and set in the bitmap a word at a time.
        let mut consecutive = true;
        while m < pages.len() {
            let q = pages[m];
            let pfn = q.0 as u64;
            if pfn < block_start || pfn >= block_end || last.prev != q || (ascending && pfn < last_pfn) {
                break;
            }
            let page = self.pages[q];
            if page.flags & (pg::LRU | NOT) != pg::LRU || page.memcg != first.memcg || page.lru() != first.lru() {
                break;
            }
            consecutive &= pfn == last_pfn + 1;
            last = page;
            last_pfn = pfn;
            m += 1;
        }
        if m < 2 {
            return 0;
        }
        let nid = if self.nr_nodes == 1 { 0 } else { zone.node };
        let lv = self.lruvec_idx(first.memcg, nid);
        let (x, y) = (first.next, last.prev);
        let l = &mut self.lruvecs[lv].lists[first.lru() as usize];
        if y != PageId::NIL {
            self.pages[y].next = x;
        } else {
            l.head = x;
        }
        if x != PageId::NIL {
            self.pages[x].prev = y;
        } else {
            l.tail = y;
        }
        l.len -= m as u64;
        l.pages -= m as u64;
        // Anonymous lists count entries, file lists pages: m either way (order-0 pages).
        self.lru_stats.update(lv as u32, first.lru() as usize, m as u64, false);
        let list = first.lru() as usize;
        if list >= crate::mmzone::NR_LRU_LISTS && !crate::lru_gen::lru_gen_is_active(&self.lruvecs[lv].lrugen, crate::lru_gen::list_gen(list)) {
            // lru_gen_update_size() of pages leaving an inactive generation
            self.lru_stats.update_gen_inactive(lv as u32, crate::lru_gen::list_type(list), m as u64, false);
        }
        self.cpu(self.cost.zap_page * m as u64);
        let seg = &pages[..m];
        if consecutive {
            self.pages.free_range(p, m as u32);
            self.free_mask_add_range(free, z, block_start, p.0 as u64, m as u64);
        } else {
            self.pages.free_each(seg);
            self.free_mask_add_block(free, z, block_start, seg);
        }
        m as u64
    }

    /// The LRU list a new anonymous page (or huge page, `nr` pages) goes on: the inactive
    /// anon list from 5.9 (b518154e59aa "mm/vmscan: protect the workingset on anonymous LRU":
    /// `lru_cache_add_inactive_or_unevictable()`), the active one before
    /// (`lru_cache_add_active_or_unevictable()`); with the pre-5.8 scan balance the add is
    /// counted in the lruvec's `recent_scanned` (and `recent_rotated` when active:
    /// `__pagevec_lru_add_fn()` -> `update_page_reclaim_stat()`).
    pub(crate) fn anon_lru_add(&mut self, pfn: PageId, nr: u64) {
        let lv = self.folio_lruvec(pfn);
        self.anon_lru_add_lv(pfn, lv, nr);
    }

    /// [`Kernel::anon_lru_add`] with `lv` the page's lruvec (`folio_lruvec()`).
    #[inline(always)]
    fn anon_lru_add_lv(&mut self, pfn: PageId, lv: usize, nr: u64) {
        // Under lru_gen folio_add_lru() sets PG_active during a fault (lru_gen_in_fault()).
        let active = !self.profile.anon_fault_inactive || self.lru_gen_in_fault;
        if self.profile.lru_add_batch > 0 {
            // folio_add_lru_vma() -> folio_add_lru(): into the CPU's batch.
            if active {
                self.pages[pfn].flags |= pg::ACTIVE;
            }
            self.folio_add_lru_batched(pfn);
        } else if active {
            self.pages[pfn].flags |= pg::ACTIVE;
            self.lruvecs[lv].add(&mut self.pages, &mut self.lru_stats, pfn, LruList::ActiveAnon);
        } else {
            self.lruvecs[lv].add(&mut self.pages, &mut self.lru_stats, pfn, LruList::InactiveAnon);
        }
        self.update_page_reclaim_stat(lv, false, nr, active);
    }

    /// `count_vm_event(PGFAULT)` + `count_memcg_event_mm(PGFAULT)` of `handle_mm_fault()`.
    pub(crate) fn count_pgfault(&mut self, memcg: MemcgId, _major: bool) {
        use crate::memcontrol::MemcgEvent;
        self.vmstat.count(VmEvent::Pgfault, 1);
        self.memcgs.count_event(memcg, MemcgEvent::Pgfault, 1);
    }

    /// Take back a [`Kernel::count_pgfault`] of a fault the engine will take again
    /// ([`FaultError::Retry`]).
    pub(crate) fn uncount_pgfault(&mut self, memcg: MemcgId) {
        use crate::memcontrol::MemcgEvent;
        self.vmstat.events[VmEvent::Pgfault as usize] -= 1;
        if memcg != MemcgId::NONE {
            self.memcgs.memcgs[memcg.idx()].events[MemcgEvent::Pgfault as usize] -= 1;
        }
    }

    /// `PGMAJFAULT` (vmstat and the memcg's): the fault had to read the page (`VM_FAULT_MAJOR`:
    /// `filemap_fault()` found no page, `do_swap_page()` read from swap).
    pub(crate) fn count_pgmajfault(&mut self, memcg: MemcgId) {
        use crate::memcontrol::MemcgEvent;
        self.vmstat.count(VmEvent::Pgmajfault, 1);
        self.memcgs.count_event(memcg, MemcgEvent::Pgmajfault, 1);
    }

    /// `mem_cgroup_uncharge()` of `nr` anonymous pages in `folios` folios of `memcg` that were
    /// freed (and `NR_ANON_PAGES`); a dying memcg left empty is freed. `uncharge_batch()`
    /// counts one `PGPGOUT` per folio (`ug->pgpgout++` in `uncharge_folio()`, 6.1; v1's
    /// memory.stat pgpgout), as `commit_charge()`'s side counts `PGPGIN`.
    pub(crate) fn uncharge_anon(&mut self, memcg: MemcgId, nr: u64, folios: u64) {
        if nr == 0 {
            return;
        }
        self.vmstat.nr_anon_pages -= nr;
        if memcg == MemcgId::NONE {
            return;
        }
        self.memcgs.counter_uncharge(memcg, nr);
        let m = &mut self.memcgs.memcgs[memcg.idx()];
        m.events[crate::memcontrol::MemcgEvent::Pgpgout as usize] += folios;
        m.nr_anon -= nr;
        if m.state == crate::memcontrol::MemcgState::Dying && m.counter.usage == 0 {
            self.mem_cgroup_try_free(memcg);
        }
    }

    /// `unmap_region()` -> `zap_pte_range()` / `zap_huge_pmd()`: free every page of `vma`,
    /// uncharge it, and free the VMA.
    pub fn do_munmap(&mut self, vma: VmaId) {
        self.cpu(self.cost.mmap_call);
        // unmap_region() / exit_mmap(): "lru_add_drain();" before the zap.
        self.lru_add_drain();
        self.lru_gen_mm_del_vma(vma);
        let v = vma.0 as usize;
        if self.vmas[v].file.is_some() {
            // zap_pte_range() of the file pages first; the private copies (anonymous) are
            // freed below as any anonymous page.
            let n = self.vmas[v].pages.len() as u32;
            self.zap_file_range(vma, 0, n);
            self.i_mmap_remove(vma);
        }
        let mut pages = std::mem::take(&mut self.vmas[v].pages);
        let memcg = self.vmas[v].memcg;
        let mut i = 0;
        let mut freed = 0u64;
        // Base pages of one pageblock go back to the buddy together, as the pageblock's
        // bitmap (`free_mask_add`), in the order they were zapped.
        let mut free = crate::page_alloc::FreeMask::EMPTY;
        let mut folios = 0u64;
        while i < pages.len() {
            let p = pages[i];
            if p == PageId::NIL {
                i += 1;
                continue;
            }
            let m = self.zap_segment(&pages[i..], &mut free);
            if m > 0 {
                freed += m;
                // each a base page: one PGPGOUT per folio uncharged
                folios += m;
                i += m as usize;
                continue;
            }
            let nid = if self.nr_nodes == 1 { 0 } else { self.page_nid(p) };
            let lv = self.lruvec_idx(self.pages[p].memcg, nid);
            if self.folio_in_lru_batch(p) {
                // (a page in another CPU's lru_add batch: its slot emptied)
                self.folio_unbatch(p);
            } else {
                self.lruvecs[lv].del(&mut self.pages, &mut self.lru_stats, p);
            }
            if self.pages[p].test(pg::WRITEBACK) {
                // The swap write in flight completes on its own; the page goes now.
                self.vmstat.nr_writeback -= 1;
            }
            if self.pages[p].test(pg::HEAD) {
                self.free_mask_flush(&mut free);
                self.cpu(self.cost.zap_thp);
                self.free_pageblock(p);
                freed += PAGEBLOCK_NR;
                i += PAGEBLOCK_NR as usize;
            } else {
                self.cpu(self.cost.zap_page);
                if self.pages[p].test(pg::PRIVATE) || self.one_at_a_time {
                    self.free_mask_flush(&mut free);
                    self.free_page(p);
                } else {
                    self.pages.free(p);
                    self.free_mask_add(&mut free, p.0 as u64);
                }
                freed += 1;
                i += 1;
            }
            folios += 1;
        }
        self.free_mask_flush(&mut free);
        self.uncharge_anon(memcg, freed, folios);
        // free_pgtables(): the page tables go with the mapping.
        let ptes = std::mem::take(&mut self.vmas[v].nr_ptes);
        self.memcg_kmem_uncharge(memcg, ptes * crate::types::PAGE_SIZE);
        pages.clear();
        self.free_vma_swap(vma);
        self.free_copied_swapcache_folios(vma);
        let vm = &mut self.vmas[v];
        vm.pages = pages;
        vm.wrprotect.clear();
        vm.live = false;
        vm.locked = false;
        vm.nr_resident = 0;
        vm.file = None;
        self.free_vmas.push(vma);
    }
}

/// How many pages from the start of `pages` are unmapped (`PageId::NIL`): the PTE walk of
/// a fault run (`pte_none()` of each PTE).
#[inline]
pub(crate) fn unmapped_prefix(pages: &[PageId]) -> usize {
    prefix_where_nil_is(pages, true)
}

/// How many pages from the start of `pages` are mapped (not `PageId::NIL`).
#[inline]
pub(crate) fn mapped_prefix(pages: &[PageId]) -> usize {
    prefix_where_nil_is(pages, false)
}

/// How many entries from the start of `pages` are (`nil`) or are not (`!nil`) `PageId::NIL`:
/// eight at a time while the whole chunk qualifies, then one at a time.
#[inline(always)]
fn prefix_where_nil_is(pages: &[PageId], nil: bool) -> usize {
    let mut n = 0;
    for c in pages.chunks_exact(8) {
        if !c.iter().fold(true, |a, p| a & ((*p == PageId::NIL) == nil)) {
            break;
        }
        n += 8;
    }
    n + pages[n..].iter().take_while(|p| (**p == PageId::NIL) == nil).count()
}

/// `fault_around_bytes` (mm/memory.c): 64 KiB, the window `do_fault_around()` maps.
pub const FAULT_AROUND_BYTES: u64 = 65536;

/// File mappings: `do_mmap()` of a file, `handle_mm_fault()` -> `do_fault()`
/// (`do_read_fault()`, `do_cow_fault()`, `do_shared_fault()`), write-protect faults
/// (`do_wp_page()`), and zapping.
impl Kernel {
    /// `do_mmap()` of `nr_pages` of `inode` from file page `pgoff` for a task in `memcg`
    /// (`MAP_SHARED` when `shared`, `PROT_EXEC` when `exec`); the opened file's readahead
    /// window is the device's (`file_ra_state_init()`).
    pub fn do_mmap_file(&mut self, inode: InodeId, pgoff: u32, nr_pages: u64, memcg: MemcgId, shared: bool, exec: bool) -> VmaId {
        let vma = self.do_mmap_anon(nr_pages, memcg);
        let ra_pages = self.inodes[inode.idx()].dev.map_or(1, |d| self.devices[d.idx()].ra_pages() as u32);
        self.vmas[vma.0 as usize].file = Some(Box::new(FileVma {
            inode,
            pgoff,
            shared,
            exec,
            seq_read: false,
            rand_read: false,
            young: vec![0; (nr_pages as usize).div_ceil(64)],
            ra: crate::readahead::FileRaState::new(ra_pages),
            mmap_miss: 0,
        }));
        self.i_mmap_insert(vma);
        vma
    }

    /// An access by the task to page `i` of file VMA `vma` (a store when `write`): no fault
    /// when the PTE is there and allows it (the CPU sets the accessed bit); else
    /// `handle_mm_fault()`: `do_read_fault()`, `do_cow_fault()` or `do_shared_fault()` for a
    /// missing PTE, `do_wp_page()` for a store to a read-only one (a private mapping's copy,
    /// or a shared page's `page_mkwrite()` after it was cleaned).
    ///
    /// Each access to a page-cache page (not to a private copy) counts in the page-cache
    /// hits and misses as a `read()` of that page does (`pagecache_hit_pages`,
    /// `pagecache_miss_pages`): a miss when the page is not in the page cache (the fault reads
    /// it: a major fault, mm/filemap.c `filemap_fault()`) or was read ahead for the stream
    /// and not accessed since (`do_sync_mmap_readahead()`'s read-around, mapped or not by
    /// `filemap_map_pages()`'s fault-around: the engine's `FRESH`), else a hit.
    pub fn handle_mm_fault_file(&mut self, vma: VmaId, i: u32, write: bool) -> Result<(), FaultError> {
        // lru_gen_enter_fault() (6.1): "the LRU algorithm doesn't apply to sequential or
        // random reads"; lru_gen_exit_fault() after.
        let v = vma.0 as usize;
        let f = self.vmas[v].file.as_ref().expect("a file VMA");
        self.lru_gen_in_fault = self.profile.lru_gen && !f.seq_read && !f.rand_read;
        let (inode, index) = (f.inode, f.pgoff + i);
        let mapped = self.vmas[v].pages[i as usize];
        let cached = if mapped == PageId::NIL {
            // A missing PTE: a page-cache access unless it is a swapped-out private copy.
            match self.vmas[v].swap.get(i as usize) {
                Some(&s) if s != crate::swapfile::NO_SLOT => None,
                _ => Some(self.mappings[inode.idx()].lookup(index)),
            }
        } else if self.pages[mapped].test(pg::ANON) {
            None
        } else {
            Some(Some(mapped))
        };
        if let Some(found) = cached {
            if found.is_some_and(|p| !self.pages[p].test(pg::FRESH)) {
                self.io.hits += 1;
            } else {
                self.io.misses += 1;
            }
        }
        let r = self.do_file_fault(vma, i, write);
        if r.is_ok() {
            // The access reached the page: no longer fresh (filemap_fault() clears the page it
            // returns; one fault-around mapped is cleared here).
            match cached {
                Some(Some(p)) if p == mapped => self.pages[p].flags &= !pg::FRESH,
                Some(_) => {
                    if let Some(p) = self.mappings[inode.idx()].lookup(index) {
                        self.pages[p].flags &= !pg::FRESH;
                    }
                }
                None => {}
            }
        }
        self.lru_gen_in_fault = false;
        r
    }

    /// `__handle_mm_fault()` of a file VMA: the body of [`Kernel::handle_mm_fault_file`].
    fn do_file_fault(&mut self, vma: VmaId, i: u32, write: bool) -> Result<(), FaultError> {
        let v = vma.0 as usize;
        let p = self.vmas[v].pages[i as usize];
        let (shared, memcg) = (self.vmas[v].file.as_ref().expect("a file VMA").shared, self.vmas[v].memcg);
        if p != PageId::NIL {
            if self.pages[p].test(pg::ANON) {
                // A private copy: a store to one a load swapped in is do_wp_page()'s.
                if write && self.vmas[v].wp_test(i) {
                    self.do_wp_page_anon(vma, i);
                }
                return Ok(());
            }
            self.vmas[v].file.as_mut().expect("a file VMA").set_young(i, true);
            if !write || (shared && self.pages[p].test(pg::DIRTY)) {
                return Ok(());
            }
            // do_wp_page(): the PTE is write-protected.
            self.count_pgfault(memcg, false);
            self.cpu(self.cost.anon_fault);
            if shared {
                self.do_page_mkwrite(p, memcg);
                return Ok(());
            }
            // wp_page_copy(): the private copy replaces the file page in this VMA.
            self.page_remove_file_rmap(vma, i, false);
            return self.cow_page(vma, i, p);
        }
        if !self.pte_alloc(vma, i) {
            return Err(FaultError::Oom);
        }
        if self.vmas[v].swap.get(i as usize).is_some_and(|&s| s != crate::swapfile::NO_SLOT) {
            // A private copy that was swapped out.
            self.count_pgfault(memcg, false);
            self.cpu(self.cost.anon_fault);
            let nid = self.cur_nid;
            return self.do_swap_page(vma, i, nid, write).map(|_| ()).ok_or(FaultError::Oom);
        }
        // A fault that had to wait for I/O returns VM_FAULT_RETRY after dropping mmap_lock,
        // and the architecture's fault handler takes it again (FAULT_FLAG_TRIED): a second
        // handle_mm_fault(), counted again in pgfault before 6.4, whose fault-around now maps
        // the pages read.
        let mut tried = false;
        loop {
            if !tried || self.profile.pgfault_counts_retries {
                self.count_pgfault(memcg, false);
            }
            self.cpu(self.cost.anon_fault);
            if write && !shared {
                // do_cow_fault(): read the file page (__do_fault()), copy it; the file page is
                // not mapped.
                match self.filemap_fault(vma, i, tried)? {
                    None => tried = true,
                    Some(p) => return self.cow_page(vma, i, p),
                }
                continue;
            }
            if !write && self.profile.fault_around && self.do_fault_around(vma, i) {
                // do_read_fault(): filemap_map_pages() mapped the page: no ->fault.
                return Ok(());
            }
            match self.filemap_fault(vma, i, tried)? {
                None => tried = true,
                Some(p) => {
                    self.page_add_file_rmap(vma, i, p);
                    if write {
                        // do_shared_fault(): ->page_mkwrite, then fault_dirty_shared_page().
                        self.do_page_mkwrite(p, memcg);
                    }
                    return Ok(());
                }
            }
        }
    }

    /// `do_page_mkwrite()` (ext4's `block_page_mkwrite()`: the page dirtied) +
    /// `fault_dirty_shared_page()` -> `balance_dirty_pages_ratelimited()`: the task enters
    /// `balance_dirty_pages()` once it has dirtied `nr_dirtied_pause` pages, not on every
    /// fault.
    fn do_page_mkwrite(&mut self, p: PageId, memcg: MemcgId) {
        let inode = self.pages[p].mapping;
        self.folio_mark_dirty(p);
        self.balance_dirty_pages_ratelimited(inode, memcg);
    }

    /// `wp_page_copy()` / the copy of `do_cow_fault()`: a new anonymous page, charged to the
    /// VMA's memcg, holding a copy of file page `src`, mapped at page `i` of `vma`.
    fn cow_page(&mut self, vma: VmaId, i: u32, src: PageId) -> Result<(), FaultError> {
        let _ = src;
        let nid = self.cur_nid;
        let pfn = self.alloc_pages(0, Gfp::node(nid)).ok_or(FaultError::Oom)?;
        // post_alloc_hook(): GFP_HIGHUSER_MOVABLE without __GFP_ZERO, zeroed under
        // init_on_alloc before the copy overwrites it.
        self.post_alloc_init(1);
        let memcg = self.vmas[vma.0 as usize].memcg;
        if self.try_charge_memcg(memcg, 1, true).is_err() {
            let z = self.zone_of(pfn);
            self.zones[z].free_order0(pfn.0 as u64);
            return Err(FaultError::Oom);
        }
        // copy_user_highpage(): a page copy, as read() copies one.
        self.cpu(self.cost.copy_page);
        self.anon_page_install(vma, i, pfn, memcg);
        Ok(())
    }

    /// `do_fault_around()` (3.15+): map the resident pages of the `fault_around_bytes`
    /// window holding page `i` (aligned in the VMA, within it and within its PMD) with
    /// `filemap_map_pages()`. Returns whether page `i` itself got mapped.
    fn do_fault_around(&mut self, vma: VmaId, i: u32) -> bool {
        let nr = (FAULT_AROUND_BYTES / crate::types::PAGE_SIZE) as u32;
        if nr <= 1 {
            return false;
        }
        let len = self.vmas[vma.0 as usize].pages.len() as u32;
        let start = i & !(nr - 1);
        let pmd_end = (i | (PAGEBLOCK_NR as u32 - 1)) + 1;
        let end = (start + nr).min(len).min(pmd_end);
        self.filemap_map_pages(vma, start, end);
        self.vmas[vma.0 as usize].pages[i as usize] != PageId::NIL
    }

    /// `zap_page_range()` of pages `first..end` of file VMA `vma` (munmap, MADV_DONTNEED):
    /// file pages are unmapped (a young PTE marks the page accessed), private copies freed
    /// and uncharged.
    pub fn zap_file_range(&mut self, vma: VmaId, first: u32, end: u32) {
        let v = vma.0 as usize;
        let memcg = self.vmas[v].memcg;
        let mut freed = 0;
        for i in first..end {
            let p = self.vmas[v].pages[i as usize];
            if p == PageId::NIL || self.pages[p].test(pg::ANON) {
                // A private copy, a swap entry of one, or nothing.
                freed += self.zap_anon_pte(vma, i) as u64;
            } else {
                self.cpu(self.cost.zap_page);
                self.page_remove_file_rmap(vma, i, true);
            }
        }
        self.uncharge_anon(memcg, freed, freed);
    }

    /// `zap_pte_range()` of the anonymous PTE of page `i` of `vma` (MADV_DONTNEED, or a file
    /// VMA's private copies): a mapped page is unmapped and freed (a base page: the huge
    /// pages DONTNEED would split are left), and one still in the swap cache - a read fault
    /// mapped it, or its swap-out was in flight - leaves it with its slot
    /// (`free_pages_and_swap_cache()` -> `free_swap_cache()`: nobody else maps it); a swap
    /// entry is freed with any page readahead left for it (`free_swap_and_cache()`); a
    /// zero-page PTE just goes. Returns whether a charged page was freed (the caller
    /// uncharges it).
    pub(crate) fn zap_anon_pte(&mut self, vma: VmaId, i: u32) -> bool {
        let v = vma.0 as usize;
        self.vmas[v].wp_clear_range(i, i + 1);
        let p = self.vmas[v].pages[i as usize];
        let slot = self.vmas[v].swap.get(i as usize).copied().unwrap_or(crate::swapfile::NO_SLOT);
        let mut freed = false;
        if p != PageId::NIL {
            if self.pages[p].flags & (pg::HEAD | pg::TAIL) != 0 {
                return false;
            }
            self.cpu(self.cost.zap_page);
            let lv = self.folio_lruvec(p);
            if self.folio_in_lru_batch(p) {
                self.folio_unbatch(p);
            } else {
                self.lruvecs[lv].del(&mut self.pages, &mut self.lru_stats, p);
            }
            if self.pages[p].test(pg::WRITEBACK) {
                // The swap write in flight completes on its own; the page goes now.
                self.vmstat.nr_writeback -= 1;
            }
            if slot != crate::swapfile::NO_SLOT {
                self.swap.as_mut().expect("a slot implies a swap area").cache_set(slot, PageId::NIL);
            }
            self.vmas[v].pages[i as usize] = PageId::NIL;
            self.vmas[v].nr_resident -= 1;
            self.free_page(p);
            freed = true;
        }
        if slot != crate::swapfile::NO_SLOT {
            self.vmas[v].swap[i as usize] = crate::swapfile::NO_SLOT;
            self.swap_free(slot);
        }
        freed
    }
}
