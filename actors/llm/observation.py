"""Observations as prompt content, and the diff between two of them.

An observation is shown as text (URL, window, focused element and the
compact accessibility tree of `actors.llm.tree_text`) and/or as the screenshot,
or as set-of-marks (`som`: the screenshot with numbered boxes on its
interactive elements, and the list of those marks; `actors.llm.marks`).
A screenshot-only mode still sends the text header; a tree mode falls back
to the screenshot when a capture came without its tree, and `som` to both
when there is nothing to mark.

The change summarizer compares the rendered text of two observations and
sends only what changed: a few diff lines are cheaper and easier for a model
to judge than two full trees. When most lines changed (a new page, a
scroll), the diff is longer and harder to read than the page itself, so past
`threshold` the full current rendering is sent instead.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Literal

from protocols import Observation

from actors.llm.client import image_part, text_part
from actors.llm.marks import Mark, draw_marks, marks_of
from actors.llm.tree_text import TREE_TOKENS, render_tree

Mode = Literal["tree", "screenshot", "both", "som"]
MODES: tuple[Mode, ...] = ("tree", "screenshot", "both", "som")

MARKS_HEADING = "Marked elements (their numbers are drawn on the screenshot; name one as {\"mark\": N}):"

DIFF_THRESHOLD = 0.5
"""Fraction of changed lines past which the full current observation is sent."""


def render_observation(observation: Observation, *, tree: bool = True, tree_tokens: int = TREE_TOKENS) -> str:
    lines = [
        f"{label}: {value}"
        for label, value in (("URL", observation.url), ("Window", observation.window_title),
                             ("Application", observation.app_name), ("Focused element", observation.focused_element))
        if value
    ]
    if tree:
        lines.append(render_tree(observation.tree, max_tokens=tree_tokens) if observation.tree is not None
                     else "(no accessibility tree was captured)")
    return "\n".join(lines)


def uses_tree(observation: Observation, mode: Mode) -> bool:
    return mode != "screenshot" and observation.tree is not None


def uses_screenshot(observation: Observation, mode: Mode) -> bool:
    return bool(observation.screenshot) and (mode != "tree" or observation.tree is None)


def observation_parts(observation: Observation, mode: Mode, label: str,
                      tree_tokens: int = TREE_TOKENS) -> list[dict[str, Any]]:
    """Content parts showing `observation` under a heading `label`, its tree text within `tree_tokens`."""
    if mode == "som":
        marks = marks_of(observation)
        if marks and observation.screenshot:
            return _marked_parts(observation, marks, label)
        mode = "both"
    text = render_observation(observation, tree=uses_tree(observation, mode), tree_tokens=tree_tokens)
    parts = [text_part(f"{label}:\n{text}" if text else f"{label}:")]
    if uses_screenshot(observation, mode):
        parts.append(image_part(observation.screenshot))
    return parts


def _marked_parts(observation: Observation, marks: list[Mark], label: str) -> list[dict[str, Any]]:
    header = render_observation(observation, tree=False)
    lines = [f"{label}:", *([header] if header else []), MARKS_HEADING, *(mark.line() for mark in marks)]
    width = observation.viewport.width if observation.viewport else None
    return [text_part("\n".join(lines)), image_part(draw_marks(observation.screenshot, marks, width))]


@dataclass(frozen=True)
class ObservationDiff:
    """`kind`: "unchanged" (same text), "diff" (`text` holds the changed lines)
    or "full" (`text` is the whole current rendering). `changed` is the
    fraction of lines that differ; the screenshot is compared separately."""

    kind: Literal["unchanged", "diff", "full"]
    text: str
    changed: float
    screenshot_changed: bool


def diff_observations(before: Observation, after: Observation, *, threshold: float = DIFF_THRESHOLD,
                      tree_tokens: int = TREE_TOKENS) -> ObservationDiff:
    old = render_observation(before, tree_tokens=tree_tokens).splitlines()
    new = render_observation(after, tree_tokens=tree_tokens).splitlines()
    screenshot_changed = before.screenshot != after.screenshot
    if old == new:
        return ObservationDiff("unchanged", "", 0.0, screenshot_changed)
    changed = 1.0 - difflib.SequenceMatcher(None, old, new, autojunk=False).ratio()
    if changed > threshold:
        return ObservationDiff("full", "\n".join(new), changed, screenshot_changed)
    lines = difflib.unified_diff(old, new, lineterm="", n=1)
    body = [line for line in lines if not line.startswith(("---", "+++"))]
    return ObservationDiff("diff", "\n".join(body), changed, screenshot_changed)
