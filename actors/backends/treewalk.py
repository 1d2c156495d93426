"""Walking a platform accessibility tree with caps, a deadline and a cancel flag.

AT-SPI and UI Automation are both reached one node at a time through slow
cross-process calls, and both can hang or explode (a list with 100k rows).
The walk therefore runs in a thread and stops by itself: past `max_depth`
or `max_children` it cuts and marks the parent `truncated`, past the
deadline or when `cancelled` is set it raises `WalkStopped`, so an
abandoned thread does not go on hammering the application.

`run` reads one node at a time, depth first (UI Automation answers one
call at a time anyway). `run_levels` reads a whole level of the tree at once:
over a message bus (AT-SPI on D-Bus) the calls for hundreds of nodes can be
sent before the first reply is read, so a level costs one round trip's
latency where a node-at-a-time walk pays one per node.

The result is plain nested dicts (the platform's properties plus
`children`), which is what recorders save as fixtures and what
`actors.normalize` turns into UIElement trees.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, TypeVar

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

    def _check(self, deadline: float) -> None:
        if self.cancelled.is_set():
            raise WalkStopped(f"tree walk cancelled after {self.nodes} nodes")
        if time.monotonic() > deadline:
            raise WalkStopped(f"tree walk ran past {self.limits.seconds:g} s after {self.nodes} nodes")

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
            kids = children(node) if depth < self.limits.max_depth else []
            room = max(0, self.limits.max_nodes - self.nodes - len(stack))
            keep = min(len(kids), self.limits.max_children, room)
            if keep < len(kids) or (depth >= self.limits.max_depth and out.get("child_count")):
                out["truncated"] = True
            out["children"] = [{} for _ in range(keep)]
            stack.extend((kid, depth + 1, slot) for kid, slot in zip(reversed(kids[:keep]), reversed(out["children"])))
        return top

    def run_levels(self, root: Node, expand: Callable[[list[Node], bool], Sequence[tuple[dict[str, Any] | None, list[Node]]]],
                   ) -> dict[str, Any]:
        """Read `root` and its descendants breadth first. `expand(nodes, with_children)` reads one level's
        nodes together and answers per node its properties (None for a node gone meanwhile, which is left
        out) and, when `with_children`, its children."""
        deadline = time.monotonic() + self.limits.seconds
        top: dict[str, Any] = {}
        level: list[tuple[Node, dict[str, Any], list[dict[str, Any]]]] = [(root, top, [top])]
        depth = 0
        while level:
            self._check(deadline)
            expanded = expand([node for node, _, _ in level], depth < self.limits.max_depth)
            following: list[tuple[Node, dict[str, Any], list[dict[str, Any]]]] = []
            for position, ((_, out, siblings), (properties, kids)) in enumerate(zip(level, expanded)):
                if properties is None:
                    siblings.remove(out)
                    continue
                out.update(properties)
                self.nodes += 1
                room = max(0, self.limits.max_nodes - self.nodes - len(following) - (len(level) - position - 1))
                keep = min(len(kids), self.limits.max_children, room)
                if keep < len(kids) or (depth >= self.limits.max_depth and out.get("child_count")):
                    out["truncated"] = True
                out["children"] = [{} for _ in range(keep)]
                following.extend((kid, slot, out["children"]) for kid, slot in zip(kids[:keep], out["children"]))
            level = following
            depth += 1
        return top
