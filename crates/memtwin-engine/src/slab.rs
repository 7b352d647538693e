//! Kernel memory outside the page cache, as /proc/meminfo shows it: `Slab` (mm/slab_common.c,
//! the kmalloc caches) and `Percpu` (mm/percpu.c).

use crate::kernel::Kernel;

/// Sizes of the generic kmalloc caches on x86_64 (`kmalloc_info[]`, mm/slab_common.c).
pub const KMALLOC_SIZES: [u64; 13] = [8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192];

/// The bytes a `kmalloc(size)` really takes: the smallest kmalloc cache that fits, or whole
/// pages (`kmalloc_large()`, a power-of-two number of pages) above 8 KiB.
pub fn kmalloc_size(size: u64) -> u64 {
    if size == 0 {
        return 0;
    }
    match KMALLOC_SIZES.iter().find(|&&c| c >= size) {
        Some(&c) => c,
        None => size.next_power_of_two().max(4096),
    }
}

/// `kvmalloc(size)`: `kmalloc()` first (with `__GFP_NORETRY` above a page), `vmalloc()` only
/// if that fails. On a machine with free memory the kmalloc succeeds: a slab object up to
/// 8 KiB, else `kmalloc_large()` — a power-of-two block of pages, up to `KMALLOC_MAX_SIZE`
/// (4 MiB) — which is not in `Slab`. Returns (slab bytes, other kernel bytes).
pub fn kvmalloc_size(size: u64) -> (u64, u64) {
    if size <= 8192 {
        (kmalloc_size(size), 0)
    } else if size <= 4 << 20 {
        (0, size.next_power_of_two())
    } else {
        (0, size.div_ceil(4096) * 4096)
    }
}

/// Kernel memory totals.
#[derive(Clone, Debug, Default)]
pub struct KmemStat {
    /// `Percpu`: bytes of percpu memory (all CPUs' copies).
    pub percpu: u64,
    /// `Slab`: bytes in slab caches.
    pub slab: u64,
    /// Other kernel memory: `kmalloc_large()` pages and vmalloc areas (large list_lru arrays
    /// and shrinker state).
    pub other: u64,
    /// Part of `slab` held by superblocks and mounts.
    pub superblock_slab: u64,
    /// Part of `percpu` held by superblocks and mounts.
    pub superblock_percpu: u64,
    /// Part of `slab` held by memcgs' shrinker state.
    pub shrinker_slab: u64,
    /// Part of `other` held by memcgs' shrinker state.
    pub shrinker_other: u64,
    /// Part of `slab` held by the dentries and inodes of files created during the run.
    pub file_objects_slab: u64,
    /// Part of `slab` held by list_lrus (recomputed by `account_list_lrus()`).
    pub list_lru_slab: u64,
    /// Part of `other` held by list_lrus.
    pub list_lru_other: u64,
    /// Memory in use at the start of the experiment outside the page cache and the
    /// structures above (`free`'s "used" after boot), bytes.
    pub boot_used: u64,
    /// What the machine had at the start of the experiment (boot), included in the totals.
    pub boot_percpu: u64,
    /// See `boot_percpu`.
    pub boot_slab: u64,
}

impl Kernel {
    /// `pcpu_alloc()`: `bytes` per possible CPU.
    pub fn pcpu_alloc(&mut self, bytes: u64) -> u64 {
        let total = bytes * self.nr_cpu_ids as u64;
        self.kmem.percpu += total;
        total
    }

    /// `free_percpu()` of an allocation that took `total` bytes over all CPUs.
    pub fn pcpu_free(&mut self, total: u64) {
        self.kmem.percpu -= total;
    }

    /// `kmalloc()`; returns the bytes taken.
    pub fn kmalloc(&mut self, size: u64) -> u64 {
        let b = kmalloc_size(size);
        self.kmem.slab += b;
        b
    }

    /// `kfree()` of an object that took `bytes`.
    pub fn kfree(&mut self, bytes: u64) {
        self.kmem.slab -= bytes;
    }

    /// Memory in use as `free` reports it ("used": total - free - buffers/cache): the boot
    /// baseline plus the kernel memory the run added, plus anonymous memory (none yet).
    pub fn used_bytes(&self) -> u64 {
        let k = &self.kmem;
        k.boot_used + (k.percpu - k.boot_percpu) + (k.slab - k.boot_slab) + k.other + self.vmstat.nr_anon_pages * crate::types::PAGE_SIZE
    }
}

/// `sizeof(struct radix_tree_node)` with `RADIX_TREE_MAP_SHIFT` 6 on x86_64 (4.x: 576 bytes;
/// `struct xa_node` keeps the size), the page cache's tree node.
pub const RADIX_TREE_NODE_SIZE: u64 = 576;

/// SLUB's `calculate_order()` for objects of `size` bytes on a machine with `cpus` CPUs
/// (mm/slub.c, 3.x-6.x): the smallest order whose slab holds `slub_min_objects` = 4 x
/// (fls(nr_cpu_ids) + 1) objects, at most `slub_max_order` 3 (`PAGE_ALLOC_COSTLY_ORDER`).
/// Returns (order, objects per slab).
pub fn slub_order(size: u64, cpus: u32) -> (u32, u64) {
    let fls = 32 - cpus.max(1).leading_zeros() as u64;
    let min_objects = 4 * (fls + 1);
    let mut order = 0;
    while order < 3 && (crate::types::PAGE_SIZE << order) / size < min_objects {
        order += 1;
    }
    (order, (crate::types::PAGE_SIZE << order) / size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kmalloc_rounds_to_its_caches() {
        assert_eq!(kmalloc_size(1), 8);
        assert_eq!(kmalloc_size(24), 32);
        assert_eq!(kmalloc_size(64), 64);
        assert_eq!(kmalloc_size(65), 96);
        assert_eq!(kmalloc_size(100), 128);
        assert_eq!(kmalloc_size(200), 256);
        assert_eq!(kmalloc_size(8192), 8192);
        assert_eq!(kmalloc_size(8193), 16384);
        assert_eq!(kvmalloc_size(98_320), (0, 128 << 10));
        assert_eq!(kvmalloc_size(5 << 20), (0, 5 << 20));
    }
}
