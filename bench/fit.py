"""How many episodes this machine runs at once when nobody says: what its cores and memory fit.

A browser VM is CPU-bound (about one core per Chromium under MiniWoB's load;
bench.perf.browser measured that more browsers than cores make a run slower,
not faster) and takes about 200 MiB; a simulated VM only sleeps. So the
default is the cores over the CPU one of the suite's VMs takes, bounded by
the memory available for VMs, and by `MOST` for suites that take no CPU.
"""

from __future__ import annotations

import os

from bench.config import RunConfig
from bench.suites.base import Suite

__all__ = ["MOST", "VM_MEMORY_BYTES", "fitting_concurrency"]

MOST = 8
VM_MEMORY_BYTES = 400 * 2**20
"""Memory set aside per CPU-bound VM: a browser's ~200 MiB PSS, and as much again for its pages."""


def fitting_concurrency(suite: Suite, config: RunConfig) -> tuple[int, str]:
    """The concurrency, and why (a line for the person running it)."""
    if config.connect:
        return len(config.connect), "one episode per --connect node"
    if suite.vms_at_most is not None:
        return suite.vms_at_most, f"a {suite.name} run has {suite.vms_at_most} VM(s) at most"
    if suite.vm_cpus <= 0:
        return MOST, f"{suite.name} VMs take no CPU"
    if config.vm == "ray":
        return MOST, "VMs placed on Ray wait for room on its hosts"
    cores = os.cpu_count() or 1
    by_cores = max(1, int(cores / suite.vm_cpus))
    by_memory = max(1, _available_memory() // VM_MEMORY_BYTES)
    chosen = min(MOST, by_cores, by_memory)
    return chosen, (f"what this machine fits: {cores} cores for VMs of {suite.vm_cpus:g} CPU, "
                    f"memory for {by_memory}, at most {MOST}")


def _available_memory() -> int:
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return MOST * VM_MEMORY_BYTES  # unknown: let the cores decide
