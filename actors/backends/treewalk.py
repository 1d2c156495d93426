"""Walking a platform accessibility tree with caps, a deadline and a cancel flag.

AT-SPI and UI Automation are both reached one node at a time through slow
cross-process calls, and both can hang or explode (a list with 100k rows).
The walk therefore runs in a thread and stops by itself: past `max_depth`
or `max_children` it cuts and marks the parent `truncated`, past the
deadline or when `cancelled` is set it raises `WalkStopped`, so an
abandoned thread does not go on hammering the application.

`run` reads one node at a time, depth first; `run_levels` reads a whole
level (in chunks of LEVEL_CHUNK nodes) per call, for a platform that can
pipeline its calls: AT-SPI's D-Bus answers a level's calls in one round
trip where a node at a time pays one per node. Past `max_nodes` the depth
first walk keeps the first subtrees whole, the level walk the upper levels.

The result is plain nested dicts (the platform's properties plus
`children`), which is what recorders save as fixtures and what
`actors.normalize` turns into UIElement trees.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

from protocols import TroupeError

Node = TypeVar("Node")
LEVEL_CHUNK = 256
"""The most nodes `run_levels` hands its reader at once: the deadline and the cancel flag are checked
between chunks."""


class WalkStopped(TroupeError):
    """The walk ran past its deadline or was cancelled."""


@dataclass(frozen=True)
class WalkLimits:
    max_depth: int = 40
    max_children: int = 500
    max_nodes: int = 20_000
    seconds: float = 10.0


@dataclass
class Walk:
    limits: WalkLimits = WalkLimits()
    cancelled: threading.Event = field(default_factory=threading.Event)
    nodes: int = 0

    def _check(self, deadline: float) -> None:
        if self.cancelled.is_set():
            raise WalkStopped(f"tree walk cancelled after {self.nodes} nodes")
        if time.monotonic() > deadline:
            raise WalkStopped(f"tree walk ran past {self.limits.seconds:g} s after {self.nodes} nodes")

    def _slots(self, out: dict[str, Any], kids: list[Node], depth: int, pending: int) -> list[tuple[Node, dict]]:
        """`out`'s children as far as the caps allow (`pending`: nodes already waiting to be read), each
        with the dict it is read into; `out` marked truncated where some were cut."""
        kids = kids if depth < self.limits.max_depth else []
        keep = min(len(kids), self.limits.max_children, max(0, self.limits.max_nodes - self.nodes - pending))
        if keep < len(kids) or (depth >= self.limits.max_depth and out.get("child_count")):
            out["truncated"] = True
        out["children"] = [{} for _ in range(keep)]
        return list(zip(kids[:keep], out["children"]))

    def run(self, root: Node, read: Callable[[Node], dict[str, Any]], children: Callable[[Node], list[Node]]) -> dict[str, Any]:
        """Read `root` and its descendants depth first, without recursion."""
        deadline = time.monotonic() + self.limits.seconds
        top: dict[str, Any] = {}
        stack: list[tuple[Node, int, dict[str, Any]]] = [(root, 0, top)]
        while stack:
            self._check(deadline)
            node, depth, out = stack.pop()
            out.update(read(node))
            self.nodes += 1
            slots = self._slots(out, children(node) if depth < self.limits.max_depth else [], depth, len(stack))
            stack.extend((kid, depth + 1, slot) for kid, slot in reversed(slots))
        return top

    def run_levels(self, root: Node,
                   read_level: Callable[[list[Node]], list[tuple[dict[str, Any], list[Node]]]]) -> dict[str, Any]:
        """Read `root` and its descendants a level at a time: `read_level(nodes)` gives each node's
        properties and children."""
        deadline = time.monotonic() + self.limits.seconds
        top: dict[str, Any] = {}
        level: list[tuple[Node, dict[str, Any]]] = [(root, top)]
        depth = 0
        while level:
            following: list[tuple[Node, dict[str, Any]]] = []
            for start in range(0, len(level), LEVEL_CHUNK):
                self._check(deadline)
                chunk = level[start:start + LEVEL_CHUNK]
                read = read_level([node for node, _ in chunk])
                self.nodes += len(chunk)
                for (_, out), (properties, kids) in zip(chunk, read):
                    out.update(properties)
                    following += self._slots(out, kids, depth, len(level) - start - len(chunk) + len(following))
            level, depth = following, depth + 1
        return top
