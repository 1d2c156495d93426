"""How many episodes this machine runs at once when nobody says, and how many share a browser:
what its cores and memory fit.

A browser VM is CPU-bound (about one core per Chromium under MiniWoB's load;
bench.perf.browser measured that more browsers than cores make a run slower,
not faster); a simulated VM only sleeps. So the default concurrency is the
cores over the CPU one of the suite's VMs takes, bounded by the memory
available for VMs, and by `MOST` for suites that take no CPU. That core
count holds for an agent that decides at once (the scripted baselines); an
LLM agent takes seconds a step, during which its VM uses no CPU (a MiniWoB
step costs ~0.05 CPU s), so with `--agent llm` memory, the run's LLM slots
and `MOST` bound it instead.

Browsers that several slots can share (a suite whose node app seats several,
on node processes the run starts itself) are shared by all the run's slots:
bench.perf.browser measured one browser for K slots at 136-146, 91-97 and
61-72 MiB PSS a slot for K = 2, 4, 8 (a browser each: 162-177, 122-126,
93-98), and one start-up instead of K: K = 8 runs 1.04-1.41x as fast as
K = 1, against 0.45-0.72x with a browser each (docs/performance.md). The memory bound then counts one
browser and a context's worth per slot.

Nodes someone else started (`--connect`) run on their own machines: this
one's cores and memory say nothing about them. A run on them has a slot per
seat of the nodes (`runtime.seats.greet_nodes` asks them), fewer if
`--concurrency` says so; it is known only once the nodes answered, when the
run starts.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from bench.config import RunConfig
from bench.suites.base import Suite
from runtime.seats import RemoteNode

__all__ = ["MOST", "SLOT_MEMORY_BYTES", "VM_MEMORY_BYTES", "connected_concurrency", "fitting_concurrency",
           "fitting_slots_per_browser", "machine_cap", "shares_browsers"]

MOST = 8
VM_MEMORY_BYTES = 400 * 2**20
"""Memory set aside per CPU-bound VM: a browser's ~210 MiB PSS, and as much again for its pages."""
SLOT_MEMORY_BYTES = 100 * 2**20
"""Memory set aside for each further slot on a shared browser: its contexts' ~50 MiB, and as much again."""


def shares_browsers(suite: Suite, config: RunConfig) -> bool:
    """Whether the run's VM slots share browsers unless told one slot per browser. Nodes Ray places
    share one only when told how many slots (each node then needs that many VMs' room on one host)."""
    return (suite.shares_browser and not config.connect and config.vm != "ray"
            and config.slots_per_browser != 1)


def fitting_concurrency(suite: Suite, config: RunConfig) -> tuple[int, str]:
    """The concurrency, and why (a line for the person running it); not for `--connect` (see
    `connected_concurrency`)."""
    if suite.vms_at_most is not None:
        return suite.vms_at_most, f"a {suite.name} run has {suite.vms_at_most} VM(s) at most"
    if suite.vm_cpus <= 0:
        return MOST, f"{suite.name} VMs take no CPU"
    if config.vm == "ray":
        return MOST, "VMs placed on Ray wait for room on its hosts"
    per_browser = config.slots_per_browser if shares_browsers(suite, config) else 1
    by_memory = _slots_in_memory(_available_memory(), per_browser)
    if config.agent == "llm":
        chosen = min(MOST, by_memory, config.llm_slots)
        return chosen, (f"an LLM agent leaves its VM idle while the model answers, so cores do not bound it: "
                        f"memory for {by_memory}, {config.llm_slots} LLM call(s) at once, at most {MOST}")
    cores = os.cpu_count() or 1
    by_cores = max(1, int(cores / suite.vm_cpus))
    chosen = min(MOST, by_cores, by_memory)
    return chosen, (f"what this machine fits: {cores} cores for VMs of {suite.vm_cpus:g} CPU, "
                    f"memory for {by_memory}, at most {MOST}")


def machine_cap(suite: Suite, config: RunConfig, wanted: int, said: str) -> tuple[int, str]:
    """At most `wanted` VMs at once, fewer when the suite cannot have that many, or when this
    machine's memory does not hold that many of VMs that run here and take CPU (browsers,
    desktops: more than fit swap or are killed, they do not run faster); and `said` (how
    `wanted` came to be), with why it was lowered."""
    if suite.vms_at_most is not None and wanted > suite.vms_at_most:
        return suite.vms_at_most, f"{said}, but a {suite.name} run has {suite.vms_at_most} VM(s) at most"
    if suite.vm_cpus <= 0 or config.vm == "ray" or config.connect:
        return wanted, said
    per_browser = config.slots_per_browser if shares_browsers(suite, config) else 1
    fits = _slots_in_memory(_available_memory(), per_browser)
    if wanted <= fits:
        return wanted, said
    return fits, f"{said}, but this machine's memory holds {fits} of the {suite.name} suite's VMs"


def connected_concurrency(nodes: Sequence[RemoteNode], given: int | None) -> tuple[int, str]:
    """The concurrency of a run on `--connect` nodes: their seats, or `given` if fewer; and why."""
    seats = sum(node.seats for node in nodes)
    found = ", ".join(f"{node.url} {node.seats}" + (f" (could not be asked: {node.problem})" if node.problem else "")
                      for node in nodes)
    if given is None:
        return seats, f"a VM slot per seat of the --connect nodes: {found}"
    if given < seats:
        return given, f"--concurrency {given} of the {seats} seats of the --connect nodes: {found}"
    return seats, f"--concurrency {given}, but the --connect nodes have {seats} seat(s): {found}"


def fitting_slots_per_browser(concurrency: int) -> tuple[int, str]:
    """How many of the run's VM slots share one browser, and why."""
    return concurrency, (f"one browser for the run's {concurrency} slot(s), a context each: less memory a slot "
                         f"and one start-up instead of {concurrency}")


def _slots_in_memory(memory: int, per_browser: int | None) -> int:
    """The most VM slots (at least one) `memory` holds, `per_browser` of them on each browser
    (None: all of them on one)."""

    def needs(slots: int) -> int:
        browsers = 1 if per_browser is None else -(-slots // per_browser)
        return browsers * VM_MEMORY_BYTES + (slots - browsers) * SLOT_MEMORY_BYTES

    slots = 1
    while slots < _COUNTED and needs(slots + 1) <= memory:
        slots += 1
    return slots


_COUNTED = 1024
"""Memory for more slots than this is not counted further: far past `MOST`, it changes nothing."""


def _available_memory() -> int:
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return MOST * VM_MEMORY_BYTES  # unknown: let the cores decide
