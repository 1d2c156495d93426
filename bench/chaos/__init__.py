"""A chaos run anyone can repeat: a suite run under injected faults, held against a fault-free run.

    python -m bench.chaos --suite miniwob|sim [--faults N] [--seed S] [SUPERVISOR FLAGS ...]

SIGKILLs of browser main and renderer processes, of node processes and of the
supervisor itself (then the same command again, which resumes the run
folder), and connection floods against a node's and the viewer's port, all on
127.0.0.1 and bounded. The report counts faults by kind, episodes, results
lost and duplicated, environment errors, and verdicts that differ from the
reference run (same tasks, same seeds, same deterministic agent). The target
is 0 lost, 0 duplicated, 0 differing.
"""

from bench.chaos.faults import KINDS, SUITE_KINDS
from bench.chaos.floods import Flood, FloodOutcome
from bench.chaos.report import ChaosReport, render
from bench.chaos.run import ChaosError, ChaosOptions, run_chaos

__all__ = [
    "KINDS", "SUITE_KINDS", "ChaosError", "ChaosOptions", "ChaosReport", "Flood", "FloodOutcome", "render",
    "run_chaos",
]
