"""Chromium's accessibility tree (CDP) as the protocol's `UIElement` tree.

Input is what two CDP calls return, captured together:
`Accessibility.getFullAXTree` (roles, names, states) and
`DOMSnapshot.captureSnapshot` (layout boxes), joined on the DOM's backend
node id. That id becomes the element's `node_id`: it stays the same for as
long as the DOM node lives, so an agent can name an element it saw one step
ago, and the browser can tell when that element is gone.

Chromium's tree is noisy: ignored nodes, anonymous `generic` wrappers, line
breaks, inline text boxes and text that only repeats its parent's name. They
are folded away (their children move up), so an agent reads what a person
would see.
"""

from __future__ import annotations

from typing import Any

from protocols import BBox, UIElement

FOLDED_ROLES = frozenset({"none", "InlineTextBox", "LineBreak", "presentation"})
ROLE_NAMES = {"RootWebArea": "document", "StaticText": "text", "LabelText": "label", "WebArea": "document"}
VALUE_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton", "slider", "textarea"})


def layout_boxes(snapshot: dict[str, Any]) -> dict[int, BBox]:
    """Backend node id → its box in viewport pixels, from the main document of a DOM snapshot."""
    documents = snapshot.get("documents") or []
    if not documents:
        return {}
    document = documents[0]
    backend_ids = document["nodes"]["backendNodeId"]
    layout = document["layout"]
    dx, dy = document.get("scrollOffsetX", 0), document.get("scrollOffsetY", 0)
    boxes: dict[int, BBox] = {}
    for index, (x, y, width, height) in zip(layout["nodeIndex"], layout["bounds"]):
        backend_id = backend_ids[index]
        if backend_id not in boxes and (width > 0 or height > 0):
            boxes[backend_id] = BBox(x - dx, y - dy, max(width, 0), max(height, 0))
    return boxes


def normalize(ax_nodes: list[dict[str, Any]], boxes: dict[int, BBox]) -> UIElement | None:
    """The normalized tree of `ax_nodes` (a getFullAXTree reply's `nodes`), or None when empty."""
    if not ax_nodes:
        return None
    by_id = {node["nodeId"]: node for node in ax_nodes}
    root = next((node for node in ax_nodes if "parentId" not in node), ax_nodes[0])
    elements = _build(root, by_id, boxes, parent_name="")
    if len(elements) == 1:
        return elements[0]
    return UIElement(node_id="root", role="document", children=tuple(elements))


def _build(node: dict[str, Any], by_id: dict[str, Any], boxes: dict[int, BBox], parent_name: str) -> list[UIElement]:
    """The elements `node` becomes: itself with its children, or its children alone when folded.

    Recursion depth is the page's nesting depth, which Chromium itself bounds.
    """
    role = _value(node.get("role"))
    name = " ".join(str(_value(node.get("name")) or "").split())
    folded = node.get("ignored") or role in FOLDED_ROLES or (role == "generic" and not name)
    children = [
        element
        for child_id in node.get("childIds", ())
        if child_id in by_id
        for element in _build(by_id[child_id], by_id, boxes, parent_name if folded else name)
    ]
    if folded:
        return children
    if role == "StaticText" and (not name or name == parent_name):
        return []  # whitespace, or the text of a button that already carries it as its name
    backend_id = node.get("backendDOMNodeId")
    return [UIElement(
        node_id=str(backend_id) if backend_id is not None else f"ax{node['nodeId']}",
        role=ROLE_NAMES.get(role, str(role).lower()),
        name=name,
        bbox=boxes.get(backend_id) if backend_id is not None else None,
        text=_state_text(role, node),
        children=tuple(children),
    )]


def _state_text(role: str, node: dict[str, Any]) -> str:
    """What the element holds or is: a field's value, or `checked` / `selected`."""
    if role in VALUE_ROLES:
        return str(_value(node.get("value")) or "")
    states = {prop["name"]: _value(prop.get("value")) for prop in node.get("properties", ())}
    if states.get("checked") in ("true", "mixed", True):
        return "checked"
    if states.get("selected") is True:
        return "selected"
    return ""


def _value(field: dict[str, Any] | None) -> Any:
    return None if field is None else field.get("value")
