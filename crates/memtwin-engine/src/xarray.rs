//! The page cache's index (lib/xarray.c, include/linux/xarray.h).
//!
//! An [`XArray`] is a radix tree of 64-slot nodes, as the kernel's: a leaf node (`struct
//! xa_node` at shift 0) holds the slots of one 64-page range ("chunk") of the file, and inner
//! nodes (shift 6, 12, ...) hold 64 children each. A node is allocated when the first entry
//! lands in its range (`xas_create()`) and freed when its last entry goes (`xas_store()` →
//! `xas_delete_node()`); the tree grows a level when an index beyond its reach is stored
//! (`xas_expand()`) and drops levels whose only child is child 0 (`xas_shrink()`). Host
//! memory is therefore proportional to the entries held (resident pages and shadow entries),
//! not to the file's size: a 1 TiB file read through a small machine keeps only the nodes of
//! the pages resident.
//!
//! Nodes live in arenas with free lists (inner nodes; leaves by layout: narrow, wide, run, see
//! `Leaf` and `RunLeaf`), so a node freed and one allocated later reuse the same memory, and
//! the hot path — a lookup — allocates nothing. A lookup remembers the last leaf it found (the
//! kernel's `xa_state` keeps its node across a walk in the same way), so a sequential read
//! costs one comparison per page; a walk from the root costs at most [`XA_MAX_LEVELS`] loads.
//!
//! Each leaf carries the occupancy the shadow-node shrinker needs ([`XaNode`]: pages, shadow
//! entries, list membership, the memcg its slab object is charged to), which the kernel keeps
//! in `xa_node` too (`count`, `nr_values`, `private_list`, the object's memcg).

use crate::types::MemcgId;
use std::cell::Cell;

/// Slots per xarray node is 1 << `XA_CHUNK_SHIFT` (`XA_CHUNK_SIZE` = 64, the kernel's
/// default without `CONFIG_BASE_SMALL`).
pub const XA_CHUNK_SHIFT: u32 = 6;
/// Slots per node (`XA_CHUNK_SIZE`).
pub const XA_CHUNK_SIZE: usize = 1 << XA_CHUNK_SHIFT;
const XA_CHUNK_MASK: u32 = XA_CHUNK_SIZE as u32 - 1;
/// Inner levels the tree can have above its leaves: a page index is a `u32`, whose chunk
/// number (`index >> XA_CHUNK_SHIFT`, 26 bits) takes at most 5 levels of 6 bits.
pub const XA_MAX_LEVELS: u32 = (32 - XA_CHUNK_SHIFT).div_ceil(XA_CHUNK_SHIFT);
/// No node (the arenas' null index).
const NIL: u32 = u32::MAX;

/// One xarray slot: 0 = empty, even = a page (`(id + 1) << 1`), odd = a shadow entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Slot(pub u64);

impl Slot {
    /// An empty slot.
    pub const EMPTY: Slot = Slot(0);
    /// A slot holding `page`.
    #[inline(always)]
    pub fn page(page: crate::types::PageId) -> Slot {
        Slot(((page.0 as u64) + 1) << 1)
    }
    /// The page in this slot, if any. One rotate, subtract and compare (issue 17: the two
    /// tests and two flag moves before were about 16 instructions a page event of (b)): the
    /// rotate moves a shadow entry's bit 0 to bit 63, so after the subtract an empty slot
    /// (`u64::MAX`) and a shadow entry (`>= 2^63 - 1`) are above `u32::MAX` and a page's slot
    /// (`(id + 1) << 1`, `id` a `u32`) is its id.
    #[inline(always)]
    pub fn as_page(self) -> Option<crate::types::PageId> {
        let id = self.0.rotate_right(1).wrapping_sub(1);
        (id <= u32::MAX as u64).then_some(crate::types::PageId(id as u32))
    }
    /// The shadow entry in this slot, if any (`xa_is_value()`).
    #[inline(always)]
    pub fn as_shadow(self) -> Option<u64> {
        (self.0 & 1 == 1).then_some(self.0)
    }
}

/// Occupancy of one 64-slot xarray node: what `workingset_update_node()` looks at to put a
/// node holding only shadow entries on the shadow-node list_lru.
#[derive(Copy, Clone, Debug)]
pub struct XaNode {
    /// Pages in the node (`node->count - node->nr_values`).
    pub pages: u8,
    /// Shadow entries in the node (`node->nr_values`).
    pub shadows: u8,
    /// On a memcg's shadow-node list.
    pub on_lru: bool,
    /// A number unique within the mapping, given each time the node goes on a list, to
    /// recognise stale list entries (a list entry names (inode, chunk, gen); the node it named
    /// may have left the list, or been freed and another allocated for the same range).
    pub gen: u32,
    /// The memcg whose shadow-node list holds the node.
    pub owner: MemcgId,
    /// The memcg the node's slab object is charged to (`NONE`: not charged).
    pub charged: MemcgId,
    /// The node's slab object is allocated (counted in `KmemStat::pagecache_slab`); freed
    /// with the charge.
    pub slab: bool,
    /// 0: a leaf node (`shift` 0). Else the chunk is one slot of the shift-6 node above it
    /// holding (the canonical or a sibling slot of) a multi-index entry of this order (6..=11:
    /// a large folio or its shadow, `XA_STATE_ORDER()` in `__filemap_add_folio()`, 5.17+,
    /// [`crate::profile::KernelProfile::xa_multi_index`]): the kernel has no leaf here; the
    /// engine keeps the 64 slots in a host leaf for its look-ups, never charged nor listed
    /// (the shift-6 node's accounting is [`XArray::shift6`]).
    pub multi: u8,
}

impl XaNode {
    /// Whether `workingset_update_node()` would change the node's shadow-list membership: it
    /// holds only shadow entries and is off the list, or it is on the list and holds a page or
    /// nothing. When false the kernel's function does nothing but test, and the engine's
    /// callers that have the node at hand skip the call (and its leaf lookup).
    #[inline(always)]
    pub fn shadow_list_stale(&self) -> bool {
        (self.pages == 0 && self.shadows > 0) != self.on_lru
    }

    /// Whether the node holds no page and no shadow entry (`xas_delete_node()` frees it).
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.pages == 0 && self.shadows == 0
    }
}

impl Default for XaNode {
    fn default() -> Self {
        XaNode { pages: 0, shadows: 0, on_lru: false, gen: 0, owner: MemcgId::ROOT, charged: MemcgId::NONE, slab: false, multi: 0 }
    }
}

/// A leaf node: the 64 slots of one chunk and their occupancy. Its slots are stored in one of
/// two layouts by what they hold (a storage choice of the engine; the kernel's `xa_node` has
/// 64 pointer-sized slots whatever they hold): a narrow leaf, `u32` slots, while it holds only
/// pages (a page's slot value fits 32 bits: frames are below 2^29); a wide leaf, 64-bit
/// [`Slot`]s, while it holds a shadow entry. A leaf is widened when a shadow entry is stored
/// in it and narrowed again when its last one goes, so the page cache of resident pages costs
/// 4 bytes a slot, not 8.
#[derive(Clone, Debug)]
struct Leaf<S> {
    /// `slots[]`.
    slots: [S; XA_CHUNK_SIZE],
    /// Occupancy and shadow-list state.
    node: XaNode,
    /// The chunk (`index >> XA_CHUNK_SHIFT`) the leaf covers; `NIL` while free.
    chunk: u32,
    /// Value (shadow) entries among `slots` (wide leaves; 0 in narrow ones).
    values: u8,
}

/// A leaf whose 64 slots are all pages in consecutive frames: a chunk that one large folio of
/// order 6 or more covers (the kernel stores such a folio as one multi-index entry in the node
/// above the leaves, `xas_store()` with `xas_set_order()`; its pages are consecutive frames).
/// It keeps the first slot's frame only; a store of anything else into it turns it back into
/// a narrow leaf.
#[derive(Clone, Debug)]
struct RunLeaf {
    /// Occupancy and shadow-list state.
    node: XaNode,
    /// The chunk the leaf covers; `NIL` while free.
    chunk: u32,
    /// The frame in slot 0; slot `o` holds frame `base + o`.
    base: u32,
}

/// Host slots of a short leaf.
pub const SHORT_SLOTS: usize = 4;

/// The leaf of a small file's only chunk (the file ends within its first [`SHORT_SLOTS`]
/// pages, [`XArray::set_size_hint`]): those slots inline, pages only, the others empty (an
/// 8 KiB file's leaf holds 16 bytes of slots, not 256). A store of anything else (a shadow
/// entry, a page past them: a write extending the file) turns it into a narrow leaf. The
/// simulated kernel's node is the same 64-slot `xa_node` either way (its slab charge, its
/// place on the shadow-node list): this is host memory only.
#[derive(Clone, Debug)]
struct ShortLeaf {
    slots: [u32; SHORT_SLOTS],
    /// Occupancy and shadow-list state.
    node: XaNode,
    /// The chunk the leaf covers; `NIL` while free.
    chunk: u32,
}

/// The tag of a wide leaf's id, of a run leaf's and of a short leaf's (ids of narrow leaves
/// have all clear). Leaf ids are below 2^29, so no tagged id is `NIL`.
const WIDE: u32 = 1 << 31;
const RUN: u32 = 1 << 30;
const SHORT: u32 = 1 << 29;
const TAGS: u32 = WIDE | RUN | SHORT;

/// An inner node: 64 children (inner nodes or leaves, by level).
#[derive(Clone, Debug)]
struct XaInner {
    children: [u32; XA_CHUNK_SIZE],
    /// Children: for a shift-6 node (level 1), leaves and multi-index chunks alike, which is
    /// the kernel's `node->count` (a multi-index entry counts one per slot, siblings included:
    /// `xas_store()`'s `count += !next - !entry` over its slots).
    count: u8,
    /// A shift-6 node's multi-index entries (level 1 only): `pages` the slots holding a
    /// resident large folio, `shadows` those holding its shadow (`node->nr_values`: a value
    /// entry counts once per slot, siblings included, `values += !xa_is_value(first) - !value`),
    /// and the node's list membership and charge as a leaf's. Unused above level 1.
    acct: XaNode,
}

/// The shadow-node list key of a shift-6 node: its first chunk with this bit set (chunk
/// numbers are below 2^26).
pub const SHIFT6_KEY: u32 = 1 << 31;

/// `struct xarray`: see the module documentation.
#[derive(Clone, Debug)]
pub struct XArray {
    /// `xa_head`: the root node (a leaf when `levels` is 0), or `NIL`.
    root: u32,
    /// Inner levels above the leaves; the tree covers chunks below 64^levels.
    levels: u32,
    narrow: Vec<Leaf<u32>>,
    free_narrow: Vec<u32>,
    wide: Vec<Leaf<Slot>>,
    free_wide: Vec<u32>,
    runs: Vec<RunLeaf>,
    free_runs: Vec<u32>,
    shorts: Vec<ShortLeaf>,
    free_shorts: Vec<u32>,
    /// Pages of the file when it was set up ([`XArray::set_size_hint`]).
    size_hint: u32,
    inner: Vec<XaInner>,
    free_inner: Vec<u32>,
    /// (chunk, leaf) of the last leaf a walk found.
    cache: Cell<(u32, u32)>,
}

impl Default for XArray {
    fn default() -> Self {
        XArray {
            root: NIL,
            levels: 0,
            narrow: Vec::new(),
            free_narrow: Vec::new(),
            wide: Vec::new(),
            free_wide: Vec::new(),
            runs: Vec::new(),
            free_runs: Vec::new(),
            shorts: Vec::new(),
            free_shorts: Vec::new(),
            size_hint: 0,
            inner: Vec::new(),
            free_inner: Vec::new(),
            cache: Cell::new((NIL, NIL)),
        }
    }
}

impl XArray {
    #[inline(always)]
    fn fits(&self, chunk: u32) -> bool {
        let bits = XA_CHUNK_SHIFT * self.levels;
        bits >= 32 || chunk >> bits == 0
    }

    /// The leaf of `chunk`, if allocated (`xas_load()` down to shift 0): an id valid until the
    /// next store, [`XArray::create`] or [`XArray::free_leaf`] (a store may move the leaf to
    /// the other layout).
    #[inline(always)]
    pub fn leaf_id(&self, chunk: u32) -> Option<u32> {
        let (c, id) = self.cache.get();
        if c == chunk {
            return Some(id);
        }
        self.walk(chunk)
    }

    fn walk(&self, chunk: u32) -> Option<u32> {
        if self.root == NIL || !self.fits(chunk) {
            return None;
        }
        let mut n = self.root;
        for l in (0..self.levels).rev() {
            n = self.inner[n as usize].children[((chunk >> (XA_CHUNK_SHIFT * l)) & XA_CHUNK_MASK) as usize];
            if n == NIL {
                return None;
            }
        }
        self.cache.set((chunk, n));
        Some(n)
    }

    /// The entry at `index` (`xa_load()`).
    #[inline(always)]
    pub fn get(&self, index: u32) -> Slot {
        match self.leaf_id(index >> XA_CHUNK_SHIFT) {
            Some(id) => self.slot(id, index & XA_CHUNK_MASK),
            None => Slot::EMPTY,
        }
    }

    /// Slot `off` of leaf `id`.
    #[inline(always)]
    pub fn slot(&self, id: u32, off: u32) -> Slot {
        if id & TAGS == 0 {
            Slot(self.narrow[id as usize].slots[off as usize] as u64)
        } else if id & WIDE != 0 {
            self.wide[(id & !WIDE) as usize].slots[off as usize]
        } else if id & SHORT != 0 {
            match self.shorts[(id & !SHORT) as usize].slots.get(off as usize) {
                Some(&s) => Slot(s as u64),
                None => Slot::EMPTY,
            }
        } else {
            Slot::page(crate::types::PageId(self.runs[(id & !RUN) as usize].base + off))
        }
    }

    /// The slots of leaf `id` when it is a narrow one (page entries as [`Slot`]'s `u32`
    /// values), for a walk over a leaf's pages with one look-up.
    #[inline(always)]
    pub fn narrow_slots(&self, id: u32) -> Option<&[u32; XA_CHUNK_SIZE]> {
        if id & TAGS == 0 {
            Some(&self.narrow[id as usize].slots)
        } else {
            None
        }
    }

    /// The 64 slots of leaf `id`, in order.
    pub fn slots(&self, id: u32) -> impl Iterator<Item = Slot> + '_ {
        (0..XA_CHUNK_SIZE as u32).map(move |o| self.slot(id, o))
    }

    /// The occupancy of leaf `id`.
    #[inline(always)]
    pub fn node(&self, id: u32) -> &XaNode {
        if id & TAGS == 0 {
            &self.narrow[id as usize].node
        } else if id & WIDE != 0 {
            &self.wide[(id & !WIDE) as usize].node
        } else if id & SHORT != 0 {
            &self.shorts[(id & !SHORT) as usize].node
        } else {
            &self.runs[(id & !RUN) as usize].node
        }
    }

    /// The occupancy of leaf `id`, to change.
    #[inline(always)]
    pub fn node_mut(&mut self, id: u32) -> &mut XaNode {
        if id & TAGS == 0 {
            &mut self.narrow[id as usize].node
        } else if id & WIDE != 0 {
            &mut self.wide[(id & !WIDE) as usize].node
        } else if id & SHORT != 0 {
            &mut self.shorts[(id & !SHORT) as usize].node
        } else {
            &mut self.runs[(id & !RUN) as usize].node
        }
    }

    /// The chunk leaf `id` covers.
    #[inline]
    pub fn chunk(&self, id: u32) -> u32 {
        if id & TAGS == 0 {
            self.narrow[id as usize].chunk
        } else if id & WIDE != 0 {
            self.wide[(id & !WIDE) as usize].chunk
        } else if id & SHORT != 0 {
            self.shorts[(id & !SHORT) as usize].chunk
        } else {
            self.runs[(id & !RUN) as usize].chunk
        }
    }

    /// `xas_store()` of `slot` at `index`, whose leaf exists; returns the entry it replaces.
    /// Widens the leaf for a shadow entry, narrows it when its last shadow entry goes.
    #[inline(always)]
    pub fn store(&mut self, index: u32, slot: Slot) -> Slot {
        let chunk = index >> XA_CHUNK_SHIFT;
        let off = (index & XA_CHUNK_MASK) as usize;
        let id = self.leaf_id(chunk).expect("store() into an allocated range");
        // The stores of the page cache's hot paths, in the caller: a page into a narrow leaf;
        // any entry into a wide leaf that keeps a shadow entry after it.
        if id & TAGS == 0 && slot.0 & 1 == 0 && slot.0 <= u32::MAX as u64 {
            let old = std::mem::replace(&mut self.narrow[id as usize].slots[off], slot.0 as u32);
            return Slot(old as u64);
        }
        if id & WIDE != 0 {
            let leaf = &mut self.wide[(id & !WIDE) as usize];
            let old = leaf.slots[off];
            let values = leaf.values + (slot.0 & 1) as u8 - (old.0 & 1) as u8;
            if values > 0 {
                leaf.slots[off] = slot;
                leaf.values = values;
                return old;
            }
        }
        self.store_slow(chunk, off, id, slot)
    }

    /// [`XArray::store`] of `slot` at `index` into its leaf `id` (from [`XArray::create`] or
    /// [`XArray::leaf_id`], with no store since), returning the entry it replaces and the
    /// leaf's occupancy after the store (`xas_store()` leaves `xas->xa_node` at the node it
    /// stored into): the callers' one look-up of the leaf for both.
    #[inline(always)]
    pub fn store_in(&mut self, id: u32, index: u32, slot: Slot) -> (Slot, &mut XaNode) {
        let chunk = index >> XA_CHUNK_SHIFT;
        let off = (index & XA_CHUNK_MASK) as usize;
        debug_assert_eq!(self.leaf_id(chunk), Some(id));
        if id & TAGS == 0 && slot.0 & 1 == 0 && slot.0 <= u32::MAX as u64 {
            let leaf = &mut self.narrow[id as usize];
            let old = std::mem::replace(&mut leaf.slots[off], slot.0 as u32);
            return (Slot(old as u64), &mut leaf.node);
        }
        if id & WIDE != 0 {
            let w = (id & !WIDE) as usize;
            let old = self.wide[w].slots[off];
            let values = self.wide[w].values + (slot.0 & 1) as u8 - (old.0 & 1) as u8;
            if values > 0 {
                let leaf = &mut self.wide[w];
                leaf.slots[off] = slot;
                leaf.values = values;
                return (old, &mut leaf.node);
            }
        }
        let old = self.store_slow(chunk, off, id, slot);
        let id = self.leaf_id(chunk).expect("a store keeps its leaf");
        (old, self.node_mut(id))
    }

    /// [`XArray::store`] that changes the leaf's layout, or may.
    #[inline(never)]
    fn store_slow(&mut self, chunk: u32, off: usize, mut id: u32, slot: Slot) -> Slot {
        if id & RUN != 0 {
            if slot == self.slot(id, off as u32) {
                return slot;
            }
            id = self.unrun(chunk, id);
        }
        let narrow_fits = slot.0 & 1 == 0 && slot.0 <= u32::MAX as u64;
        if id & SHORT != 0 {
            if narrow_fits && off < SHORT_SLOTS {
                let old = std::mem::replace(&mut self.shorts[(id & !SHORT) as usize].slots[off], slot.0 as u32);
                return Slot(old as u64);
            }
            id = self.unshort(chunk, id);
        }
        if id & WIDE == 0 {
            if narrow_fits {
                let old = std::mem::replace(&mut self.narrow[id as usize].slots[off], slot.0 as u32);
                return Slot(old as u64);
            }
            id = self.widen(chunk, id);
        }
        let leaf = &mut self.wide[(id & !WIDE) as usize];
        let old = std::mem::replace(&mut leaf.slots[off], slot);
        leaf.values = leaf.values + (slot.0 & 1) as u8 - (old.0 & 1) as u8;
        if leaf.values == 0 && leaf.slots.iter().all(|s| s.0 <= u32::MAX as u64) {
            self.narrow_leaf(chunk, id);
        }
        old
    }

    /// Empty every shadow entry of leaf `chunk` (the shadow-node shrinker); returns how many.
    /// A leaf left with no entry at all (no page: the shrinker's nodes, which it frees next
    /// with [`XArray::free_leaf`], `shadow_lru_isolate()`) keeps its wide layout until then:
    /// no narrow copy is made only to be freed (issue 17).
    pub fn clear_values(&mut self, chunk: u32) -> u32 {
        let Some(id) = self.leaf_id(chunk) else { return 0 };
        if id & WIDE == 0 {
            return 0;
        }
        let leaf = &mut self.wide[(id & !WIDE) as usize];
        let n = leaf.values as u32;
        for s in &mut leaf.slots {
            if s.0 & 1 == 1 {
                *s = Slot::EMPTY;
            }
        }
        leaf.values = 0;
        if leaf.node.pages == 0 {
            debug_assert!(leaf.slots.iter().all(|s| *s == Slot::EMPTY), "a leaf without pages holds only values");
            return n;
        }
        if leaf.slots.iter().all(|s| s.0 <= u32::MAX as u64) {
            self.narrow_leaf(chunk, id);
        }
        n
    }

    /// Point the tree's reference to `chunk`'s leaf at `new` (after a change of layout).
    fn relink(&mut self, chunk: u32, new: u32) {
        if self.levels == 0 {
            self.root = new;
        } else {
            let mut n = self.root;
            for l in (1..self.levels).rev() {
                n = self.inner[n as usize].children[((chunk >> (XA_CHUNK_SHIFT * l)) & XA_CHUNK_MASK) as usize];
            }
            self.inner[n as usize].children[(chunk & XA_CHUNK_MASK) as usize] = new;
        }
        self.cache.set((chunk, new));
    }

    /// Move narrow leaf `id` of `chunk` to the wide layout; returns its new id.
    #[cold]
    fn widen(&mut self, chunk: u32, id: u32) -> u32 {
        let l = &mut self.narrow[id as usize];
        let mut slots = [Slot::EMPTY; XA_CHUNK_SIZE];
        for (w, n) in slots.iter_mut().zip(l.slots.iter()) {
            *w = Slot(*n as u64);
        }
        let wide = Leaf { slots, node: l.node, chunk, values: 0 };
        l.chunk = NIL;
        self.free_narrow.push(id);
        let new = alloc_in(&mut self.wide, &mut self.free_wide, wide) | WIDE;
        self.relink(chunk, new);
        new
    }

    /// Move wide leaf `id` of `chunk` (no shadow entry left) to the narrow layout.
    fn narrow_leaf(&mut self, chunk: u32, id: u32) {
        let l = &mut self.wide[(id & !WIDE) as usize];
        let mut slots = [0u32; XA_CHUNK_SIZE];
        for (n, w) in slots.iter_mut().zip(l.slots.iter()) {
            *n = w.0 as u32;
        }
        let narrow = Leaf { slots, node: l.node, chunk, values: 0 };
        l.chunk = NIL;
        self.free_wide.push(id & !WIDE);
        let new = alloc_in(&mut self.narrow, &mut self.free_narrow, narrow);
        self.relink(chunk, new);
    }

    /// Store the 64 slots of `chunk`'s leaf as a run leaf when they are pages in consecutive
    /// frames (a chunk a large folio of order 6 or more fills; see [`RunLeaf`]).
    pub fn compact_run(&mut self, chunk: u32) {
        let Some(id) = self.leaf_id(chunk) else { return };
        if id & TAGS != 0 {
            return;
        }
        let l = &self.narrow[id as usize];
        let first = l.slots[0];
        if first == 0 || first & 1 != 0 {
            return;
        }
        if !l.slots.iter().enumerate().all(|(o, &s)| s == first + 2 * o as u32) {
            return;
        }
        let run = RunLeaf { node: l.node, chunk, base: (first >> 1) - 1 };
        self.narrow[id as usize].chunk = NIL;
        self.free_narrow.push(id);
        let new = alloc_in(&mut self.runs, &mut self.free_runs, run) | RUN;
        self.relink(chunk, new);
    }

    /// Move run leaf `id` of `chunk` to the narrow layout; returns its new id.
    #[cold]
    fn unrun(&mut self, chunk: u32, id: u32) -> u32 {
        let r = &mut self.runs[(id & !RUN) as usize];
        let mut slots = [0u32; XA_CHUNK_SIZE];
        for (o, s) in slots.iter_mut().enumerate() {
            *s = Slot::page(crate::types::PageId(r.base + o as u32)).0 as u32;
        }
        let narrow = Leaf { slots, node: r.node, chunk, values: 0 };
        r.chunk = NIL;
        self.free_runs.push(id & !RUN);
        let new = alloc_in(&mut self.narrow, &mut self.free_narrow, narrow);
        self.relink(chunk, new);
        new
    }

    /// Move short leaf `id` of `chunk` to the narrow layout; returns its new id.
    #[cold]
    fn unshort(&mut self, chunk: u32, id: u32) -> u32 {
        let l = &mut self.shorts[(id & !SHORT) as usize];
        let mut slots = [0u32; XA_CHUNK_SIZE];
        slots[..SHORT_SLOTS].copy_from_slice(&l.slots);
        let narrow = Leaf { slots, node: l.node, chunk, values: 0 };
        l.chunk = NIL;
        self.free_shorts.push(id & !SHORT);
        let new = alloc_in(&mut self.narrow, &mut self.free_narrow, narrow);
        self.relink(chunk, new);
        new
    }

    /// The file has `pages` pages: a leaf made for a chunk in which it ends within the first
    /// [`SHORT_SLOTS`] pages is a short leaf. Host memory only: nothing the simulated kernel
    /// sees depends on it.
    pub fn set_size_hint(&mut self, pages: u64) {
        self.size_hint = pages.min(u32::MAX as u64) as u32;
    }

    /// Every allocated leaf's id (arena order: narrow, wide, run, short leaves).
    pub fn leaf_ids(&self) -> impl Iterator<Item = u32> + '_ {
        let n = self.narrow.iter().enumerate().filter(|(_, l)| l.chunk != NIL).map(|(i, _)| i as u32);
        let w = self.wide.iter().enumerate().filter(|(_, l)| l.chunk != NIL).map(|(i, _)| i as u32 | WIDE);
        let r = self.runs.iter().enumerate().filter(|(_, l)| l.chunk != NIL).map(|(i, _)| i as u32 | RUN);
        let s = self.shorts.iter().enumerate().filter(|(_, l)| l.chunk != NIL).map(|(i, _)| i as u32 | SHORT);
        n.chain(w).chain(r).chain(s)
    }

    /// Every allocated leaf as (chunk, occupancy), in [`XArray::leaf_ids`] order.
    pub fn leaves(&self) -> impl Iterator<Item = (u32, &XaNode)> {
        self.leaf_ids().map(|id| (self.chunk(id), self.node(id)))
    }

    /// Every allocated leaf's occupancy, to change.
    pub fn nodes_mut(&mut self) -> impl Iterator<Item = &mut XaNode> {
        let n = self.narrow.iter_mut().filter(|l| l.chunk != NIL).map(|l| &mut l.node);
        let w = self.wide.iter_mut().filter(|l| l.chunk != NIL).map(|l| &mut l.node);
        let r = self.runs.iter_mut().filter(|l| l.chunk != NIL).map(|l| &mut l.node);
        let s = self.shorts.iter_mut().filter(|l| l.chunk != NIL).map(|l| &mut l.node);
        // Shift-6 nodes holding multi-index entries (charged as leaves are); free and
        // childless inner nodes have `charged` NONE.
        let i = self.inner.iter_mut().map(|x| &mut x.acct).filter(|a| a.charged != MemcgId::NONE);
        n.chain(w).chain(r).chain(s).chain(i)
    }

    /// The shift-6 node above `chunk` (the level-1 inner node), if the tree has one there.
    #[inline]
    fn parent_of(&self, chunk: u32) -> Option<u32> {
        if self.levels == 0 || self.root == NIL || !self.fits(chunk) {
            return None;
        }
        let mut n = self.root;
        for l in (1..self.levels).rev() {
            n = self.inner[n as usize].children[((chunk >> (XA_CHUNK_SHIFT * l)) & XA_CHUNK_MASK) as usize];
            if n == NIL {
                return None;
            }
        }
        Some(n)
    }

    /// The shift-6 node above `chunk`: its multi-index accounting (see `XaInner::acct`) and
    /// its `node->count` (leaves and multi-index slots), if the tree has one.
    #[inline]
    pub fn shift6(&self, chunk: u32) -> Option<(&XaNode, u8)> {
        self.parent_of(chunk).map(|n| (&self.inner[n as usize].acct, self.inner[n as usize].count))
    }

    /// [`XArray::shift6`], to change.
    #[inline]
    pub fn shift6_mut(&mut self, chunk: u32) -> Option<&mut XaNode> {
        self.parent_of(chunk).map(|n| &mut self.inner[n as usize].acct)
    }

    /// Whether `workingset_update_node()` (mm/workingset.c) would file the shift-6 node above
    /// `chunk` on the shadow-node list: `node->count && node->count == node->nr_values`
    /// (only multi-index shadow entries, no leaf below it and no resident folio).
    #[inline]
    pub fn shift6_shadow_only(&self, chunk: u32) -> bool {
        self.shift6(chunk).is_some_and(|(a, count)| count > 0 && count == a.shadows)
    }

    /// Every shift-6 node charged for multi-index entries, as (its first chunk's key, node).
    pub fn shift6_nodes(&self) -> impl Iterator<Item = &XaNode> {
        self.inner.iter().map(|x| &x.acct).filter(|a| a.charged != MemcgId::NONE || a.slab)
    }

    /// Every shift-6 node on a shadow-node list.
    pub fn shift6_listed(&self) -> impl Iterator<Item = &XaNode> {
        self.inner.iter().map(|x| &x.acct).filter(|a| a.on_lru)
    }

    /// Give the tree a shift-6 level if it has none (`xas_expand()`), so that a multi-index
    /// entry has its node. (The kernel keeps a lone order-6 entry at index 0 in the head,
    /// with no node; the engine gives it one: one 576-byte node for a file whose only entry
    /// is one 256 KiB-2 MiB folio at offset 0.)
    pub fn ensure_shift6(&mut self) {
        if self.levels > 0 {
            return;
        }
        if self.root != NIL {
            let r = self.alloc_inner();
            self.inner[r as usize].children[0] = self.root;
            self.inner[r as usize].count = 1;
            self.root = r;
        }
        self.levels = 1;
    }

    fn alloc_inner(&mut self) -> u32 {
        let n = XaInner { children: [NIL; XA_CHUNK_SIZE], count: 0, acct: XaNode::default() };
        match self.free_inner.pop() {
            Some(id) => {
                self.inner[id as usize] = n;
                id
            }
            None => {
                // A first node takes room for one (a Vec's first allocation would hold four
                // of these 260-byte nodes).
                if self.inner.capacity() == 0 {
                    self.inner.reserve_exact(1);
                }
                self.inner.push(n);
                self.inner.len() as u32 - 1
            }
        }
    }

    fn alloc_leaf(&mut self, chunk: u32) -> u32 {
        let first = (chunk as u64) << XA_CHUNK_SHIFT;
        let end = self.size_hint as u64;
        if end > first && end - first <= SHORT_SLOTS as u64 {
            return alloc_in(&mut self.shorts, &mut self.free_shorts, ShortLeaf { slots: [0; SHORT_SLOTS], node: XaNode::default(), chunk }) | SHORT;
        }
        alloc_in(&mut self.narrow, &mut self.free_narrow, Leaf { slots: [0; XA_CHUNK_SIZE], node: XaNode::default(), chunk, values: 0 })
    }

    /// The leaf of `chunk`, allocated (with the inner nodes above it, the tree grown as
    /// needed: `xas_expand()` + `xas_create()`) if missing.
    #[inline]
    pub fn create(&mut self, chunk: u32) -> u32 {
        match self.leaf_id(chunk) {
            Some(id) => id,
            None => self.create_leaf(chunk),
        }
    }

    /// [`XArray::create`] of a missing leaf.
    #[inline(never)]
    fn create_leaf(&mut self, chunk: u32) -> u32 {
        while !self.fits(chunk) {
            if self.root != NIL {
                let r = self.alloc_inner();
                self.inner[r as usize].children[0] = self.root;
                self.inner[r as usize].count = 1;
                self.root = r;
            }
            self.levels += 1;
        }
        let id = if self.levels == 0 {
            debug_assert_eq!(self.root, NIL);
            let id = self.alloc_leaf(chunk);
            self.root = id;
            id
        } else {
            if self.root == NIL {
                self.root = self.alloc_inner();
            }
            let mut n = self.root;
            for l in (1..self.levels).rev() {
                let off = ((chunk >> (XA_CHUNK_SHIFT * l)) & XA_CHUNK_MASK) as usize;
                let mut c = self.inner[n as usize].children[off];
                if c == NIL {
                    c = self.alloc_inner();
                    self.inner[n as usize].children[off] = c;
                    self.inner[n as usize].count += 1;
                }
                n = c;
            }
            let off = (chunk & XA_CHUNK_MASK) as usize;
            debug_assert_eq!(self.inner[n as usize].children[off], NIL);
            let id = self.alloc_leaf(chunk);
            self.inner[n as usize].children[off] = id;
            self.inner[n as usize].count += 1;
            id
        };
        self.cache.set((chunk, id));
        id
    }

    /// `xas_delete_node()`: free the leaf of `chunk` (which holds no entry any more) and every
    /// inner node left childless, then `xas_shrink()`.
    pub fn free_leaf(&mut self, chunk: u32) {
        let Some(id) = self.leaf_id(chunk) else { return };
        debug_assert!(self.slots(id).all(|s| s == Slot::EMPTY));
        self.cache.set((NIL, NIL));
        if id & TAGS == 0 {
            self.narrow[id as usize].chunk = NIL;
            self.free_narrow.push(id);
        } else if id & WIDE != 0 {
            self.wide[(id & !WIDE) as usize].chunk = NIL;
            self.free_wide.push(id & !WIDE);
        } else if id & SHORT != 0 {
            self.shorts[(id & !SHORT) as usize].chunk = NIL;
            self.free_shorts.push(id & !SHORT);
        } else {
            self.runs[(id & !RUN) as usize].chunk = NIL;
            self.free_runs.push(id & !RUN);
        }
        if self.levels == 0 {
            self.root = NIL;
            return;
        }
        let mut path = [(NIL, 0usize); XA_MAX_LEVELS as usize + 1];
        let mut n = self.root;
        for (d, l) in (0..self.levels).rev().enumerate() {
            let off = ((chunk >> (XA_CHUNK_SHIFT * l)) & XA_CHUNK_MASK) as usize;
            path[d] = (n, off);
            n = self.inner[n as usize].children[off];
        }
        for d in (0..self.levels as usize).rev() {
            let (p, off) = path[d];
            let node = &mut self.inner[p as usize];
            node.children[off] = NIL;
            node.count -= 1;
            if node.count > 0 {
                break;
            }
            debug_assert!(node.acct.charged == MemcgId::NONE && !node.acct.slab && !node.acct.on_lru, "a shift-6 node is uncharged before its last child goes");
            node.acct = XaNode::default();
            self.free_inner.push(p);
            if d == 0 {
                self.root = NIL;
                self.levels = 0;
                return;
            }
        }
        // xas_shrink(): a root whose only child is child 0 gives way to it.
        while self.levels > 0 {
            let r = &self.inner[self.root as usize];
            if r.count != 1 || r.children[0] == NIL {
                break;
            }
            let child = r.children[0];
            // xas_shrink(): "if (!xa_is_node(entry) && node->shift) break;" - a shift-6 node
            // whose only entry is a multi-index one stays.
            if self.levels == 1 && self.node(child).multi != 0 {
                break;
            }
            self.inner[self.root as usize].acct = XaNode::default();
            self.free_inner.push(self.root);
            self.root = child;
            self.levels -= 1;
        }
    }

    fn next_in(&self, n: u32, l: u32, base: u64, from: u64) -> Option<u32> {
        if l == 0 {
            return Some(base as u32);
        }
        let s = XA_CHUNK_SHIFT * (l - 1);
        let start = if from > base { ((from - base) >> s) as usize } else { 0 };
        let node = &self.inner[n as usize];
        for off in start..XA_CHUNK_SIZE {
            let c = node.children[off];
            if c != NIL {
                if let Some(r) = self.next_in(c, l - 1, base + ((off as u64) << s), from) {
                    return Some(r);
                }
            }
        }
        None
    }

    /// The first chunk at or after `from` that has a leaf (`xas_find()` at shift 0).
    pub fn next_chunk(&self, from: u32) -> Option<u32> {
        if self.root == NIL || !self.fits(from) {
            return None;
        }
        self.next_in(self.root, self.levels, 0, from as u64)
    }

    /// The first index in `from..=last` holding an entry (page or shadow), `xa_find()`.
    pub fn next_entry(&self, from: u32, last: u32) -> Option<u32> {
        if from > last {
            return None;
        }
        let mut chunk = from >> XA_CHUNK_SHIFT;
        let mut off = (from & XA_CHUNK_MASK) as usize;
        loop {
            let c = self.next_chunk(chunk)?;
            if c != chunk {
                off = 0;
            }
            let leaf = self.leaf_id(c)?;
            if let Some(o) = (off..XA_CHUNK_SIZE).find(|&o| self.slot(leaf, o as u32) != Slot::EMPTY) {
                let index = (c << XA_CHUNK_SHIFT) | o as u32;
                return (index <= last).then_some(index);
            }
            if (c as u64 + 1) << XA_CHUNK_SHIFT > last as u64 {
                return None;
            }
            chunk = c + 1;
            off = 0;
        }
    }

    /// Host bytes of the tree.
    pub fn host_bytes(&self) -> usize {
        self.narrow.capacity() * std::mem::size_of::<Leaf<u32>>()
            + self.wide.capacity() * std::mem::size_of::<Leaf<Slot>>()
            + self.runs.capacity() * std::mem::size_of::<RunLeaf>()
            + self.shorts.capacity() * std::mem::size_of::<ShortLeaf>()
            + self.inner.capacity() * std::mem::size_of::<XaInner>()
            + (self.free_narrow.capacity() + self.free_wide.capacity() + self.free_runs.capacity() + self.free_shorts.capacity() + self.free_inner.capacity()) * 4
    }

    /// Allocated (leaf, inner) nodes.
    pub fn nr_nodes(&self) -> (usize, usize) {
        (
            self.narrow.len() - self.free_narrow.len() + self.wide.len() - self.free_wide.len() + self.runs.len() - self.free_runs.len()
                + self.shorts.len() - self.free_shorts.len(),
            self.inner.len() - self.free_inner.len(),
        )
    }
}

/// Put `leaf` in a free entry of `arena` (or a new one); returns its index. A first leaf takes
/// room for one leaf only: a Vec's first allocation holds four, 2 KiB for every small file (a
/// million 8K files held 2.1 GiB of leaves, 1.6 of them empty).
fn alloc_in<T>(arena: &mut Vec<T>, free: &mut Vec<u32>, leaf: T) -> u32 {
    match free.pop() {
        Some(id) => {
            arena[id as usize] = leaf;
            id
        }
        None => {
            if arena.capacity() == 0 {
                arena.reserve_exact(1);
            }
            arena.push(leaf);
            arena.len() as u32 - 1
        }
    }
}
