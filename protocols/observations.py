"""What an Observer captured of the screen after a step."""

from __future__ import annotations

import msgspec

from protocols.actions import Action
from protocols.numbers import Count, Seconds
from protocols.ui import UIElement


class Viewport(msgspec.Struct, frozen=True, array_like=True):
    width: Count
    height: Count


class CaptureTimings(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    """Seconds each part of a capture took; `total` is wall time, not the sum,
    because screenshot and tree are captured concurrently."""

    screenshot: Seconds = 0.0
    tree: Seconds = 0.0
    total: Seconds = 0.0


class Observation(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """One capture. `partial` names the parts that are missing (a tree call that
    ran out of time) so a step can go on with what it has."""

    screenshot: bytes = b""
    viewport: Viewport | None = None
    tree: UIElement | None = None
    url: str | None = None
    window_title: str | None = None
    app_name: str | None = None
    focused_element: str | None = None
    instruction: str | None = None
    """The goal as the environment states it, for tasks whose goal is generated
    at reset (a MiniWoB page's utterance); the episode then uses it as the task's."""
    timings: CaptureTimings = CaptureTimings()
    partial: tuple[str, ...] = ()
    reference: Action | None = None
    """The action recorded on this screen, when it is a replayed recording's: the
    episode copies it into the step record, where the step is scored against it."""
    previous_actions: tuple[str, ...] = ()
    """The actions that led to this screen as its recording states them, oldest first,
    when the screen is a recording's that continues from the recorded history whatever
    the agent did (a static benchmark such as Mind2Web): agents are shown these in
    place of their own earlier steps, which did not make this screen."""
