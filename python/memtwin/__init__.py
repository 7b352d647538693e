"""memtwin: a digital twin of Linux memory management.

    >>> import memtwin
    >>> r = memtwin.run("scenarios/seed000-memcg-reread.toml", variant="recharge")
    >>> r.steps[["elapsed_s", "sys_s", "read_bytes"]]

The engine is Rust (memtwin-engine); this package is the CLI, the Python API and reports.
"""

from memtwin._memtwin import ScenarioError, metric_names, profiles
from memtwin.api import Result, Scenario, load, run

__all__ = ["ScenarioError", "Result", "Scenario", "load", "run", "metric_names", "profiles"]
__version__ = "0.1.0"
