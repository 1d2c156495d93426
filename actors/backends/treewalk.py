"""Walking a platform accessibility tree with caps, a deadline and a cancel flag.

AT-SPI and UI Automation are both reached one node at a time through slow
cross-process calls, and both can hang or explode (a list with 100k rows).
The walk therefore runs in a thread and stops by itself: past `max_depth`
or `max_children` it cuts and marks the parent `truncated`, past the
deadline or when `cancelled` is set it raises `WalkStopped`, so an
abandoned thread does not go on hammering the application.

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

    def run(self, root: Node, read: Callable[[Node], dict[str, Any]], children: Callable[[Node], list[Node]]) -> dict[str, Any]:
        """Read `root` and its descendants depth first, without recursion."""
        deadline = time.monotonic() + self.limits.seconds
        top: dict[str, Any] = {}
        stack: list[tuple[Node, int, dict[str, Any]]] = [(root, 0, top)]
        while stack:
            if self.cancelled.is_set():
                raise WalkStopped(f"tree walk cancelled after {self.nodes} nodes")
            if time.monotonic() > deadline:
                raise WalkStopped(f"tree walk ran past {self.limits.seconds:g} s after {self.nodes} nodes")
            node, depth, out = stack.pop()
            out.update(read(node))
            self.nodes += 1
            kids = children(node) if depth < self.limits.max_depth else []
            room = max(0, self.limits.max_nodes - self.nodes - len(stack))
            keep = min(len(kids), self.limits.max_children, room)
            if keep < len(kids) or (depth >= self.limits.max_depth and out.get("child_count")):
                out["truncated"] = True
            out["children"] = [{} for _ in range(keep)]
            stack.extend((kid, depth + 1, slot) for kid, slot in zip(reversed(kids[:keep]), reversed(out["children"])))
        return top
