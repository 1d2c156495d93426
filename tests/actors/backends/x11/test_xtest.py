"""Input through XTEST on a real Xvfb display, typed into a real editor (Mousepad): shifted characters,
tabs and newlines arrive as typed, and a text needing more keys than the keymap has spare arrives whole,
typed a part at a time."""

from __future__ import annotations

import pytest

from actors.backends.x11.desktop import X11Desktop
from bench.suites.desktop.suite import TASKS, to_task
from protocols import Click, Key, Target, TypeText, Wait

pytestmark = pytest.mark.anyio

SHIFTED = 'Hello, World! (a+b) {c} ~_|"<>?:@#$%^&*\tend\nline 2'
MANY = "αβγδεζηθικλμνξοπρστυφχψωАБВГДЕЖЗИЙ"
"""34 characters the keymap lacks, more than Xvfb's spare keycodes."""


async def test_typed_text_arrives_whole_in_a_real_editor():
    desktop = X11Desktop(1024, 700)
    try:
        task = to_task(next(t for t in TASKS if t["id"] == "editor-write-note"))
        await desktop.reset(task, 1)
        assert len(set(MANY)) > desktop.input.spare_keys.capacity
        area = next(e for e in (await desktop.tree()).walk() if e.role == "textbox")
        for step, action in enumerate([Click(target=Target(node_id=area.node_id)), TypeText(text=SHIFTED),
                                       TypeText(text=MANY), Key(key="s", modifiers=("ctrl",)), Wait(seconds=0.05)]):
            assert (await desktop.act(step, action)).error is None
        assert (await desktop.inspect(task.evaluation_spec))["paths"]["notes.txt"]["content"] == SHIFTED + MANY
    finally:
        desktop.close()

