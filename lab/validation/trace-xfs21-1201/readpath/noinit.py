"""xfs21b: `memtwin ...` with the guest kernel's command line given `init_on_alloc=0` (Debian's 6.1 sets
CONFIG_INIT_ON_ALLOC_DEFAULT_ON; the parameter turns post_alloc_hook()'s kernel_init_pages() off), for an A/B of
the clearing's CPU time; diagnostic only. PYTHONPATH=$PWD/python python3 noinit.py real ... --on qemu ..."""
import sys
from memtwin import qemu, cli
_orig = qemu.qemu_command
def qemu_command(*a, **k):
    cmd = _orig(*a, **k)
    i = cmd.index("-append")
    cmd[i + 1] += " init_on_alloc=0"
    return cmd
qemu.qemu_command = qemu_command
sys.exit(cli.main(sys.argv[1:]))
