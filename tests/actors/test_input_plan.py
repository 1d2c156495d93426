"""Actions to input primitives, and those to xdotool command lines and Windows calls."""

import pytest

from actors.backends.input_plan import Plan, StepError
from actors.backends.windows import input as win_input
from actors.backends.x11 import xdotool
from protocols import (
    BBox, Click, DoubleClick, Drag, Hotkey, Key, Move, Point, RightClick, Scroll, Target, TripleClick, TypeText,
    UIElement, Wait,
)

TREE = UIElement(node_id="0", role="window", children=(
    UIElement(node_id="1", role="button", name="OK", bbox=BBox(100, 200, 40, 20)),
    UIElement(node_id="2", role="generic"),
))
PLAN = Plan(1280, 800, TREE.find)


def test_pointer_actions_resolve_points_targets_and_held_modifiers():
    assert PLAN.ops(Click(point=Point(x=0.5, y=0.5, unit="norm"), modifiers=("ctrl",))) == [
        ("key_down", "ctrl"), ("move", 640, 400), ("click", "left", 1), ("key_up", "ctrl")]
    assert PLAN.ops(DoubleClick(target=Target(node_id="1")))[-1] == ("click", "left", 2)
    assert PLAN.ops(TripleClick(point=Point(x=1, y=2))) == [("move", 1, 2), ("click", "left", 3)]
    assert PLAN.ops(RightClick(point=Point(x=1, y=2))) == [("move", 1, 2), ("click", "right", 1)]
    assert PLAN.ops(Move(point=Point(x=1.0, y=1.0, unit="norm"))) == [("move", 1279, 799)]
    assert PLAN.ops(Drag(point=Point(x=10, y=10), end_target=Target(node_id="1"))) == [
        ("move", 10, 10), ("down", "left"), ("move", 120, 210), ("up", "left")]
    assert PLAN.ops(Scroll(direction="down", amount=2)) == [("scroll", "down", 2)]
    assert PLAN.ops(TypeText(text="hé", target=Target(bbox=BBox(0, 0, 10, 10)))) == [
        ("move", 5, 5), ("click", "left", 1), ("type", "hé")]
    assert PLAN.ops(Hotkey(keys=("ctrl", "shift", "t"))) == [
        ("key_down", "ctrl"), ("key_down", "shift"), ("key_down", "t"),
        ("key_up", "t"), ("key_up", "shift"), ("key_up", "ctrl")]
    assert PLAN.ops(Wait(seconds=0.5)) == [("wait", 0.5)]


@pytest.mark.parametrize("action, message", [
    (Click(point=Point(x=1280, y=5)), r"`point` \(1280, 5\) is outside the 1280x800 screen"),
    (Drag(point=Point(x=1, y=1), end=Point(x=5, y=9000)), r"`end` \(5, 9000\) is outside"),
    (Click(target=Target(node_id="9")), "target node '9' is not in the last observed tree"),
    (Click(target=Target(node_id="2")), r"target node '2' \(generic ''\) has no box on screen"),
])
def test_actions_that_cannot_be_carried_out_are_step_errors(action, message):
    with pytest.raises(StepError, match=message):
        PLAN.ops(action)


def test_xdotool_command_lines():
    ops = PLAN.ops(Key(key="pageup", modifiers=("ctrl", "shift"))) + [("type", "-a\nb;"), ("wait", 0.2)]
    assert xdotool.commands(ops) == [
        ["keydown", "Control_L", "keydown", "Shift_L", "key", "Prior", "keyup", "Shift_L", "keyup", "Control_L",
         "type", "--delay", "4", "--", "-a"],
        ["key", "Return", "type", "--delay", "4", "--", "b;"],
        0.2,
    ]
    assert [xdotool.keysym(k) for k in (",", "[", "a", "7", "f12", "meta")] == [
        "comma", "bracketleft", "a", "7", "F12", "Super_L"]


def test_windows_calls_and_unicode_events():
    calls = win_input.calls(PLAN.ops(Scroll(direction="left", amount=3, point=Point(x=5, y=5))) + [
        ("key_down", "meta"), ("press", "escape"), ("type", "é😀\n")])
    assert calls[:4] == [("moveTo", (5, 5), {}), ("hscroll", (-3,), {}), ("keyDown", ("win",), {}),
                         ("press", ("esc",), {})]
    assert win_input.calls(PLAN.ops(TripleClick(point=Point(x=1, y=2)))) == [
        ("moveTo", (1, 2), {}), ("click", (), {"button": "left", "clicks": 3, "interval": 0.05})]
    events = win_input.unicode_events("é😀\n")
    assert [unit for unit, flags in events[::2]] == [0xE9, 0xD83D, 0xDE00, 0x0D]  # surrogate pair, Enter as \r
    assert [flags for _, flags in events[:2]] == [win_input.KEYEVENTF_UNICODE,
                                                  win_input.KEYEVENTF_UNICODE | win_input.KEYEVENTF_KEYUP]
