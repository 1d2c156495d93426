"""The X11 backend on a real Xvfb display with real applications (Mousepad, xterm)."""

import signal
import threading

import anyio
import pytest

from actors.observer import Observer
from actors.backends.x11 import keymap
from actors.backends.x11.desktop import X11Desktop
from actors.backends.x11.session import MissingProgram
from actors.errors import ConfigError
from bench.suites.desktop.suite import TASKS, to_task
from runtime.errors import Refused
from protocols import (
    Click, DoubleClick, Drag, Hotkey, Key, Move, Point, RightClick, Scroll, Target, Task, TripleClick, TypeText,
    Wait,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
async def desktop():
    d = X11Desktop(1024, 700)
    yield d
    d.close()


def editor_task():
    return to_task(next(t for t in TASKS if t["id"] == "editor-write-note"))


async def test_every_action_type_reaches_a_real_editor_and_the_file_is_saved(desktop):
    task = editor_task()
    await desktop.reset(task, 1)
    tree = await desktop.tree()
    area = next(e for e in tree.walk() if e.role == "textbox")
    bar = next(e for e in tree.walk() if e.role == "menubar").bbox
    # right-clicked past the menus, where nothing pops up: on the bare root window Openbox's menu opens, and
    # on a loaded machine it can open after the Escape, take the typed keys and run "Exit" for the "e"
    quiet_spot = Point(x=int(bar.x + bar.width - 20), y=int(bar.y + bar.height / 2))
    assert tree.role == "desktop"
    details = await desktop.details()
    assert details["app_name"] == "Mousepad" and "notes.txt" in details["window_title"]
    actions = [  # the pointer actions first, on the empty document, so none of them can move typed text
        Click(target=Target(node_id=area.node_id)), DoubleClick(target=Target(node_id=area.node_id)),
        Move(point=Point(x=0.5, y=0.5, unit="norm")), Scroll(direction="down", amount=2),
        Drag(point=Point(x=600, y=400), end=Point(x=620, y=405)), RightClick(point=quiet_spot),
        Key(key="escape"), Click(target=Target(node_id=area.node_id)), TypeText(text="Grüße 東京 ✓ x"),
        Hotkey(keys=("ctrl", "end")), Key(key="s", modifiers=("ctrl",)), Wait(seconds=0.05),
    ]
    for step, action in enumerate(actions, 1):
        acted = await desktop.act(step, action)
        assert acted.error is None, (action, acted.error)
    state = await desktop.inspect(task.evaluation_spec)
    saved = state["paths"]["notes.txt"]["content"]
    assert saved == "Grüße 東京 ✓ x", (saved, await desktop.details())  # the window that took lost keys
    png, viewport = await desktop.screenshot()
    assert png.startswith(b"\x89PNG") and (viewport.width, viewport.height) == (1024, 700)


async def test_a_triple_click_selects_a_whole_line_in_a_real_editor(desktop):
    """Typing over the selection shows what was selected: one whole line of the six alike lines (the
    click falls on one of them whatever the font's height), where a double click takes one word."""
    task = editor_task()
    await desktop.reset(task, 1)
    area = next(e for e in (await desktop.tree()).walk() if e.role == "textbox")
    lines = ["select all of me"] * 6
    assert (await desktop.act(1, Click(target=Target(node_id=area.node_id)))).error is None
    assert (await desktop.act(2, TypeText(text="\n".join(lines)))).error is None
    assert (await desktop.act(3, TripleClick(point=Point(x=area.bbox.x + 20, y=area.bbox.y + 30)))).error is None
    assert (await desktop.act(4, TypeText(text="new"))).error is None
    assert (await desktop.act(5, Key(key="s", modifiers=("ctrl",)))).error is None
    await desktop.act(6, Wait(seconds=0.05))
    saved = (await desktop.inspect(task.evaluation_spec))["paths"]["notes.txt"]["content"].split("\n")
    assert sorted(saved) == ["new", *lines[1:]], saved


async def test_characters_the_keymap_lacks_get_a_key_each_so_typed_text_arrives_whole(desktop):
    """xdotool alone rebinds one scratch key per character, and a loaded editor once read "Grüße" as "Grßße".
    Xvfb has 15 spare keys to lend: the second text reuses those the first no longer needs."""
    task = editor_task()
    await desktop.reset(task, 1)
    conn = desktop.windows.conn
    first = conn.display.info.min_keycode

    def keys_of(text):
        mapping = conn.get_keyboard_mapping(first, conn.display.info.max_keycode - first + 1)
        return {c: [code for code, syms in enumerate(mapping) if keymap.keysym(c) in syms] for c in set(text)}

    tree = await desktop.tree()
    area = next(e for e in tree.walk() if e.role == "textbox")
    assert (await desktop.act(1, Click(target=Target(node_id=area.node_id)))).error is None
    texts = ["äöüßÄÖÜéèêàçñ€ ", "αβγδ東京✓ ok"]
    for step, text in enumerate(texts, 2):
        assert (await desktop.act(step, TypeText(text=text))).error is None
        keys = keys_of(text)
        assert all(keys.values()), keys
        assert len({codes[0] for codes in keys.values()}) == len(keys)  # a key of its own per character
    assert (await desktop.act(4, Key(key="s", modifiers=("ctrl",)))).error is None
    await desktop.act(5, Wait(seconds=0.05))
    state = await desktop.inspect(task.evaluation_spec)
    assert state["paths"]["notes.txt"]["content"] == "".join(texts)


async def test_a_text_in_parts_waits_for_a_stalled_editor_to_read_each_part_before_its_keys_are_lent_again(desktop):
    """An editor reads a keycode through the keymap it holds when it reads the event: one that has not run
    for a second (stopped here, as a loaded machine stalls it) and then reads two parts of a text typed on
    the same spare keys would type the second part's characters for the first's."""
    task = editor_task()
    await desktop.reset(task, 1)
    area = next(e for e in (await desktop.tree()).walk() if e.role == "textbox")
    assert (await desktop.act(1, Click(target=Target(node_id=area.node_id)))).error is None
    text = "äöüßÄÖÜéèêàçñ€ αβγδ東京✓ ok ÿ№ΩЖжщ"  # more characters the keymap lacks than Xvfb has spare keys
    editor = next(proc.popen for proc in desktop.session.procs if proc.name == "mousepad")
    editor.send_signal(signal.SIGSTOP)
    resume = threading.Timer(1.0, editor.send_signal, (signal.SIGCONT,))
    resume.start()
    try:
        assert (await desktop.act(2, TypeText(text=text))).error is None
    finally:
        resume.join()
    assert (await desktop.act(3, Key(key="s", modifiers=("ctrl",)))).error is None
    with anyio.fail_after(10):  # the editor saves once it has caught up with all it was sent
        while not (saved := (await desktop.inspect(task.evaluation_spec))["paths"]["notes.txt"]["content"]):
            await anyio.sleep(0.05)
    assert saved == text


async def test_input_outside_the_screen_is_a_step_error(desktop):
    await desktop.reset(Task(task_id="t", instruction="-"), 1)
    acted = await desktop.act(1, Click(point=Point(x=1024, y=10)))
    assert acted.error == "`point` (1024, 10) is outside the 1024x700 screen"


async def test_a_hung_application_leaves_the_observation_partial_with_its_screenshot(desktop):
    """An application that stops answering (stopped here, as a hung one is) costs the step its tree,
    not its screenshot or window; once it answers again the tree is whole."""
    await desktop.reset(editor_task(), 1)
    editor = next(proc.popen for proc in desktop.session.procs if proc.name == "mousepad")
    editor.send_signal(signal.SIGSTOP)  # a hung application: its tree's calls go unanswered
    try:
        observation = await Observer(desktop).capture(tree_timeout=0.5)
    finally:
        editor.send_signal(signal.SIGCONT)
    assert observation.partial == ("tree",) and observation.tree is None
    assert observation.screenshot.startswith(b"\x89PNG") and "notes.txt" in observation.window_title
    complete = await Observer(desktop).capture(tree_timeout=30)
    assert complete.partial == () and any(e.role == "textbox" for e in complete.tree.walk())


@pytest.mark.parametrize("config, error, message", [
    ([{"type": "lanch", "parameters": {"command": ["xterm"]}}], Refused,
     "task t: setup step 0: unknown type 'lanch'; known types: create_file, create_folder, execute, launch"),
    ([{"type": "launch", "parameters": {"comand": ["xterm"]}}], Refused, r"setup step 0 \(launch\): Object"),
    ("launch xterm", Refused, "setup config must be a list of steps, got str"),
    ([{"type": "create_file", "parameters": {"path": "../escape.txt"}}], ConfigError, "must be relative to the home"),
    ([{"type": "launch", "parameters": {"command": ["no-such-app-xyz"]}}], ConfigError,
     "'no-such-app-xyz' is not installed"),
])
async def test_bad_setup_steps_are_refused_with_a_clear_error(desktop, config, error, message):
    with pytest.raises(error, match=message):
        await desktop.reset(Task(task_id="t", instruction="-", raw_config={"config": config}), 1)


def test_a_missing_program_names_its_package():
    from actors.backends.x11.session import require
    with pytest.raises(MissingProgram, match="'nope-xyz' is not installed \\(Debian package 'nope'"):
        require("nope-xyz", "nope")


@pytest.mark.parametrize("screen", ["big", [1024], [1024, 0], [1024.5, 700], [10**6, 700], [True, 700]])
async def test_a_malformed_screen_size_is_refused_before_any_display_starts(desktop, screen):
    """Issue 17: a Reset with a malformed config is refused (the node serves on), never a crash."""
    with pytest.raises(Refused, match=r"task t: `screen` must be \[width, height\]"):
        await desktop.reset(Task(task_id="t", instruction="-", raw_config={"screen": screen}), 1)
    assert desktop.session is None
