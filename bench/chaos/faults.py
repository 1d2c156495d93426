"""The faults a chaos run injects, and when: kinds, a seeded schedule, and one strike each.

Every kind is something that happens to real runs: a browser or one of its
renderers dies (out of memory, a crash), a node process dies, the
supervisor itself is killed (a laptop lid, an OOM killer, a ctrl-C too
many) and the same command is run again, or someone floods a port. The
supervisor's own death is struck by the caller, who must also resume the
run; this module finds every other victim below the supervisor's pid and
strikes it.
"""

from __future__ import annotations

import os
import random
import signal

import msgspec

from bench.chaos import processes
from bench.chaos.floods import Flood, FloodOutcome, flood, refuses_wrong_token

__all__ = ["FLOODS", "KINDS", "SUITE_KINDS", "Fault", "Strike", "schedule", "strike", "target"]

BROWSER, RENDERER, NODE, SUPERVISOR = "browser", "renderer", "node", "supervisor"
NODE_FLOOD, VIEWER_FLOOD = "node-flood", "viewer-flood"
FLOODS = (NODE_FLOOD, VIEWER_FLOOD)
KINDS = (BROWSER, RENDERER, NODE, SUPERVISOR, NODE_FLOOD, VIEWER_FLOOD)
SUITE_KINDS = {
    "sim": (NODE, SUPERVISOR, NODE_FLOOD, VIEWER_FLOOD),
    "miniwob": KINDS,
}
"""What can be hit in each suite's runs (a sim VM has no browser)."""

_FINDERS = {
    BROWSER: processes.browser_mains,
    RENDERER: processes.renderers,
    NODE: processes.nodes,
    SUPERVISOR: lambda supervisor: [supervisor],
}


class Fault(msgspec.Struct, frozen=True):
    """Strike `kind` once `after_results` results are written, `delay` seconds later."""

    kind: str
    after_results: int
    delay: float


class Strike(msgspec.Struct, frozen=True):
    """One fault as injected: the pid killed or the port flooded, and what a flood saw."""

    kind: str
    results_before: int
    pid: int | None = None
    port: int | None = None
    flood: FloodOutcome | None = None

    @property
    def injected(self) -> bool:
        """A kill hit a live process (a gone one is never a Strike); a flood counts only if a live
        process answered at least one of its handshakes (a flood of a port whose process had
        ended tests nothing)."""
        if self.kind in FLOODS:
            return self.flood is not None and self.flood.reached > 0
        return True


def schedule(count: int, kinds: tuple[str, ...], episodes: int, rng: random.Random) -> list[Fault]:
    """`count` faults in random order, each kind as often as the others (give or take one),
    at random points of the first 60% of a run of `episodes` results (a fault waits for its
    victim, and a resumed run has less left to do, so later points would often come too late)."""
    order = [kinds[i % len(kinds)] for i in range(count)]
    rng.shuffle(order)
    points = sorted(rng.randrange(max(1, episodes * 3 // 5)) for _ in order)
    return [Fault(kind, point, round(rng.uniform(0.0, 1.0), 2)) for kind, point in zip(order, points)]


def target(kind: str, supervisor: int, rng: random.Random) -> int | None:
    """The pid a kill of `kind` hits, or the port a flood of `kind` hits; None while there is none."""
    if kind == NODE_FLOOD:
        ports = [port for pid in processes.nodes(supervisor) for port in processes.listening_ports(pid)
                 if refuses_wrong_token(port)]
    elif kind == VIEWER_FLOOD:
        ports = processes.listening_ports(supervisor)
    else:
        pids = _FINDERS[kind](supervisor)
        return rng.choice(pids) if pids else None
    return rng.choice(ports) if ports else None


def strike(kind: str, victim: int, results_before: int, settings: Flood) -> Strike | None:
    """SIGKILL the pid `victim`, or flood the port `victim`, as `kind` says; None if the
    process was already gone (the caller looks for another victim)."""
    if kind in FLOODS:
        return Strike(kind, results_before, port=victim, flood=flood(victim, settings))
    try:
        os.kill(victim, signal.SIGKILL)
    except ProcessLookupError:
        return None
    return Strike(kind, results_before, pid=victim)
