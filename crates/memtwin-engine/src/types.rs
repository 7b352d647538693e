//! Typed ids, the virtual clock's unit and small shared helpers.
//!
//! Every object the engine models lives in an arena (`Vec`) and is named by a typed index, the
//! way the kernel names objects by pointer: a [`PageId`] for `struct page`/`struct folio`, a
//! [`MemcgId`] for `struct mem_cgroup`, an [`InodeId`] for `struct inode` and its
//! `address_space`. Raw integers never cross a module boundary.

/// Size of a base page (x86_64 `PAGE_SIZE`).
pub const PAGE_SIZE: u64 = 4096;
/// `PAGE_SHIFT` on x86_64.
pub const PAGE_SHIFT: u32 = 12;

macro_rules! typed_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);
        impl $name {
            /// The arena index of this id.
            #[inline(always)]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}

typed_id!(
    /// A page frame: index into [`crate::mm_types::PageArena`] (`struct page`).
    PageId
);
typed_id!(
    /// A memory cgroup: index into [`crate::memcontrol::MemcgTree`] (`struct mem_cgroup`).
    /// The root memcg is always `MemcgId(0)`.
    MemcgId
);
typed_id!(
    /// A file: index into the inode table (`struct inode` and its `address_space`).
    InodeId
);
typed_id!(
    /// A directory: index into `Kernel::dirs` (a directory's `struct inode` and `struct
    /// dentry`). The root directory is always `DirId(0)`.
    DirId
);
typed_id!(
    /// A block device (`struct block_device` with its `backing_dev_info`).
    DevId
);
typed_id!(
    /// A simulated process (`struct task_struct`).
    TaskId
);

impl MemcgId {
    /// `root_mem_cgroup`.
    pub const ROOT: MemcgId = MemcgId(0);
    /// No memcg: an uncharged page (`folio_memcg(folio) == NULL`).
    pub const NONE: MemcgId = MemcgId(u32::MAX);
}

impl DirId {
    /// `/`.
    pub const ROOT: DirId = DirId(0);
}

impl PageId {
    /// The null page link used by intrusive LRU lists.
    pub const NIL: PageId = PageId(u32::MAX);
}

/// Virtual time in nanoseconds. The engine has exactly one clock; every task, device and
/// kernel thread reads and advances time in this unit.
pub type Nanos = u64;

/// One second of virtual time.
pub const NSEC_PER_SEC: Nanos = 1_000_000_000;

/// Convert virtual nanoseconds to seconds for reporting.
#[inline]
pub fn secs(ns: Nanos) -> f64 {
    ns as f64 / NSEC_PER_SEC as f64
}

/// Number of pages covering `bytes` (rounded up), as `DIV_ROUND_UP(bytes, PAGE_SIZE)`.
#[inline]
pub fn pages_for(bytes: u64) -> u64 {
    bytes.div_ceil(PAGE_SIZE)
}

/// A small deterministic PRNG (SplitMix64). The scenario's `seed` drives it; nothing in the
/// engine reads entropy from the host, so a scenario and seed always give the same output.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A uniform integer in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

/// `int_sqrt()` from lib/math/int_sqrt.c: the integer square root, rounded down.
pub fn int_sqrt(x: u64) -> u64 {
    if x < 2 {
        return x;
    }
    let mut r = (x as f64).sqrt() as u64;
    while r * r > x {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= x {
        r += 1;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_sqrt_matches_definition() {
        for x in 0..10_000u64 {
            let r = int_sqrt(x);
            assert!(r * r <= x && (r + 1) * (r + 1) > x, "x={x} r={r}");
        }
        assert_eq!(int_sqrt(100), 10);
        assert_eq!(int_sqrt(1 << 40), 1 << 20);
    }

    #[test]
    fn rng_is_deterministic_and_bounded() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..1000 {
            let x = a.below(13);
            assert_eq!(x, b.below(13));
            assert!(x < 13);
        }
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }

    #[test]
    fn pages_for_rounds_up() {
        assert_eq!(pages_for(0), 0);
        assert_eq!(pages_for(1), 1);
        assert_eq!(pages_for(4096), 1);
        assert_eq!(pages_for(4097), 2);
    }
}
