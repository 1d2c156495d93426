"""A UIElement tree as compact text for prompts: one line per element, indented.

    [12] button "Submit" @(40,80 400x40)
      [13] text "Name: alice"

Ids are the elements' node_ids, so an agent can answer with one and the
harness can ground it. Elements with neither a name, a text nor a box are
structural noise and are folded into their children.

The text is bounded: a token budget (about four characters a token) and a
line cap. What does not fit is not dropped silently: the first subtrees left
out are named, each with how many elements it holds, and a last line counts
the rest, so a model knows the screen has more than it was shown and where.
"""

from __future__ import annotations

from protocols import UIElement

TREE_TOKENS = 6000
"""The default budget of a tree's text, in tokens."""

CHARS_PER_TOKEN = 4
MAX_INDENT = 40
"""Levels a named elided subtree is indented at most (a very deep tree's would be mostly spaces)."""
ELIDED_NAMED = 5
"""Subtrees left out that are named one per line; the rest are counted in one."""


def render_tree(root: UIElement, *, max_lines: int = 2000, max_tokens: int = TREE_TOKENS, max_text: int = 80) -> str:
    budget = max_tokens * CHARS_PER_TOKEN
    lines: list[str] = []
    used = 0
    stack: list[tuple[UIElement, int]] = [(root, 0)]
    while stack:
        element, depth = stack[-1]
        shown = bool(element.name or element.text or element.bbox)
        if shown:
            line = "  " * depth + _line(element, max_text)
            if len(lines) >= max_lines or used + len(line) + 1 > budget:
                break
            lines.append(line)
            used += len(line) + 1
        stack.pop()
        child_depth = depth + 1 if shown else depth
        stack.extend((child, child_depth) for child in reversed(element.children))
    return "\n".join(lines + _elided(stack[::-1], max_text))


def _elided(subtrees: list[tuple[UIElement, int]], max_text: int) -> list[str]:
    """What the bound left out, in document order: the first subtrees named, the rest counted."""
    said = []
    for element, depth in subtrees[:ELIDED_NAMED]:
        size = sum(1 for _ in element.walk())
        said.append("  " * min(depth, MAX_INDENT) + _line(element, max_text)
                    + f" … elided: {size} element(s), over the budget")
    rest = subtrees[ELIDED_NAMED:]
    if rest:
        size = sum(1 for element, _ in rest for _ in element.walk())
        said.append(f"... ({size} more elements in {len(rest)} more subtrees, over the budget)")
    return said


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
