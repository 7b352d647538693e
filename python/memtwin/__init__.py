"""memtwin: a digital twin of Linux memory management.

    >>> import memtwin
    >>> r = memtwin.run("scenarios/seed000-memcg-reread.toml", variant="recharge")
    >>> r.steps[["elapsed_s", "sys_s", "read_bytes"]]

The engine is Rust (memtwin-engine); this package is the CLI, the Python API and reports.
"""

from memtwin._memtwin import ScenarioError, lru_gen_metric_names, metric_names, profiles, sched_metric_names, vmscan_throttled_metric_names


def _scenario_error_str(self) -> str:
    """The message as the CLI prints it (`PLACE: error: WHAT` / `  fix: HOW`), not the args tuple."""
    return str(self.args[0]) if self.args else ""


ScenarioError.__str__ = _scenario_error_str
# Each error as (place, what, fix); the message lists them all.
ScenarioError.errors = property(lambda self: list(self.args[1]) if len(self.args) > 1 else [])
from memtwin.api import Result, Scenario, load, run
# The modules memtwin.sweep and memtwin.size are imported first, then their functions take the
# package attributes: memtwin.sweep(...) and memtwin.size(...) (import the modules by their
# dotted names, `from memtwin.sweep import Grid`).
import memtwin.size as _size_module  # noqa: E402,F401
import memtwin.sweep as _sweep_module  # noqa: E402,F401
from memtwin.size import size  # noqa: E402
from memtwin.sweep import sweep  # noqa: E402

__all__ = ["ScenarioError", "Result", "Scenario", "load", "run", "metric_names", "lru_gen_metric_names", "vmscan_throttled_metric_names", "sched_metric_names", "profiles", "sweep", "size"]
__version__ = "0.1.0"
