"""A UIElement tree as compact text for prompts: one line per element, indented.

    [12] button "Submit" @(40,80 400x40)
      [13] text "Name: alice"

Ids are the elements' node_ids, so an agent can answer with one and the
harness can ground it. Elements with neither a name, a text nor a box are
structural noise and are folded into their children.
"""

from __future__ import annotations

from protocols import UIElement


def render_tree(root: UIElement, *, max_lines: int = 2000, max_text: int = 80) -> str:
    lines: list[str] = []
    stack: list[tuple[UIElement, int]] = [(root, 0)]
    while stack and len(lines) < max_lines:
        element, depth = stack.pop()
        shown = bool(element.name or element.text or element.bbox)
        if shown:
            lines.append("  " * depth + _line(element, max_text))
        child_depth = depth + 1 if shown else depth
        stack.extend((child, child_depth) for child in reversed(element.children))
    if stack:
        lines.append(f"... ({sum(1 for element, _ in stack for _ in element.walk())} more elements)")
    return "\n".join(lines)


def _line(element: UIElement, max_text: int) -> str:
    parts = [f"[{element.node_id}] {element.role}"]
    if element.name:
        parts.append(_quote(element.name, max_text))
    if element.text and element.text != element.name:
        parts.append("text=" + _quote(element.text, max_text))
    if element.bbox is not None:
        box = element.bbox
        parts.append(f"@({box.x:.0f},{box.y:.0f} {box.width:.0f}x{box.height:.0f})")
    return " ".join(parts)


def _quote(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return '"' + (text if len(text) <= limit else text[: limit - 1] + "…") + '"'
