//! `msync()` (mm/msync.c).

use crate::kernel::Kernel;
use crate::memory::VmaId;

impl Kernel {
    /// `msync(MS_SYNC)` of a whole VMA: for a shared file mapping, `vfs_fsync_range()` of its
    /// file (the engine writes back and waits for the whole file, as fsync of it); nothing for
    /// private or anonymous mappings (their pages are not the file's).
    pub fn msync(&mut self, vma: VmaId) {
        self.cpu(self.cost.syscall);
        let Some(f) = self.vmas[vma.0 as usize].file.as_ref() else { return };
        if f.shared {
            let inode = f.inode;
            self.vfs_fsync(inode);
        }
    }
}
