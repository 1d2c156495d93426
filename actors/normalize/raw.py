"""Turning a raw platform tree (nested dicts) into a UIElement tree, for any platform.

Trees from real applications reach 100k nodes and depths no recursion limit
allows, and UIElement is frozen (children before parents), so the build is
two flat passes: number the kept nodes in document order, then create the
elements from the last to the first. Node ids are those numbers, unique
within one observation, and written back into the raw node as `node_id` so
a backend holding the raw tree can match its platform properties to the
element an agent named.
"""

from __future__ import annotations

from typing import Any, Callable

from protocols import BBox, UIElement

RawNode = dict[str, Any]


def build_tree(
    raw: RawNode,
    fields: Callable[[RawNode], dict[str, Any]],
    keep: Callable[[RawNode], bool] = lambda node: True,
) -> UIElement | None:
    """`fields(node)` gives role, name, bbox and text; a node `keep` refuses is dropped with its subtree."""
    if not isinstance(raw, dict):
        raise TypeError(f"a raw tree must be a dict, got {type(raw).__name__}")
    order: list[tuple[RawNode, int]] = []
    stack: list[tuple[RawNode, int]] = [(raw, -1)]
    while stack:
        node, parent = stack.pop()
        if not keep(node):
            continue
        node["node_id"] = str(len(order))
        order.append((node, parent))
        children = node.get("children", [])
        if not isinstance(children, list):
            raise TypeError(f"node {node['node_id']}: `children` must be a list, got {type(children).__name__}")
        stack.extend((child, len(order) - 1) for child in reversed(children))
    built: list[list[UIElement]] = [[] for _ in order]
    element = None
    for index in range(len(order) - 1, -1, -1):
        node, parent = order[index]
        try:
            element = UIElement(node_id=str(index), children=tuple(reversed(built[index])), **fields(node))
        except (TypeError, ValueError, KeyError) as exc:
            raise ValueError(f"raw node {index} ({node.get('role') or node.get('ControlType')!r}): {exc}") from exc
        if parent >= 0:
            built[parent].append(element)
    return element


def box(x: float, y: float, width: float, height: float) -> BBox | None:
    """A bbox, or None for the empty and degenerate boxes toolkits report for hidden objects."""
    if width <= 0 or height <= 0:
        return None
    return BBox(float(x), float(y), float(width), float(height))
