//! Files: inodes with a size, an owner and a place on a block device (fs/inode.c).
//! Each file occupies one contiguous extent of its device, so sequential file offsets are
//! sequential device addresses.

use crate::types::DevId;

/// `struct inode`, reduced to what the page cache and the block layer need.
#[derive(Clone, Debug)]
pub struct Inode {
    /// Path of the file, for reports.
    pub path: String,
    /// `i_size` in bytes.
    pub size: u64,
    /// `i_sb->s_bdev`; `None` for a tmpfs (shmem) file, whose pages live only in memory.
    pub dev: Option<DevId>,
    /// First device page of the file's extent.
    pub disk_base: u64,
    /// `i_uid`.
    pub uid: u32,
    /// `i_mode` permission bits.
    pub mode: u32,
    /// Whether the file exists yet: files that a `write { create = true }` makes start absent.
    pub exists: bool,
    /// The superblock the file lives on (index into `Kernel::superblocks`).
    pub sb: usize,
    /// Its dentry and inode in the caches.
    pub dentry: crate::dcache::DentryState,
}

impl Inode {
    /// `shmem_mapping()`: a tmpfs file.
    pub fn is_shmem(&self) -> bool {
        self.dev.is_none()
    }
}
