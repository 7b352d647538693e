"""`python -m memtwin`: the same command as `memtwin` (memtwin.cli.main), for an environment whose
scripts directory is not on PATH."""
import sys

from memtwin.cli import main

sys.exit(main())
