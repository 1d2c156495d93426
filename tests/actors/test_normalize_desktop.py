"""AT-SPI and UIA trees to UIElement trees, on trees captured from real applications
(AT-SPI: Mousepad and galculator under Xvfb) and on the UIA fixture."""

import json
import time

import pytest

from actors.normalize import atspi, uia
from actors.normalize.raw import build_tree
from actors.llm.tree_text import render_tree
from actors.backends.treewalk import Walk, WalkLimits, WalkStopped
from bench.perf.trees import walk_raw, tiled as big_tree
from tests.paths import FIXTURES



def load(name):
    return json.loads((FIXTURES / name).read_text())


def test_mousepad_tree_keeps_what_is_showing_with_ARIA_roles():
    tree = atspi.normalize(load("atspi-mousepad.json"))
    elements = list(tree.walk())
    roles = {e.role for e in elements}
    assert {"desktop", "application", "window", "menubar", "menu", "textbox"} <= roles
    (area,) = [e for e in elements if e.role == "textbox"]
    assert area.text == "hello world\nsecond line\n" and area.bbox.width > 600
    assert not any("Unix (LF)" in e.name for e in elements)  # a closed menu's items are not showing
    assert [e.name for e in elements if e.role == "menu"] == ["File", "Edit", "Search", "View", "Document", "Help"]
    assert len({e.node_id for e in elements}) == len(elements)


def test_galculator_buttons_have_boxes_and_render_as_text():
    tree = atspi.normalize(load("atspi-galculator.json"))
    buttons = {e.name: e for e in tree.walk() if e.role == "button"}
    assert {"=", "1", "2", "C"} <= set(buttons) and all(b.bbox for b in buttons.values())
    text = render_tree(tree)
    assert f'[{buttons["="].node_id}] button "="' in text and "@(" in text


def test_uia_fixture_maps_control_types_drops_offscreen_and_keeps_raw_ids():
    raw = load("uia-notepad.json")
    tree = uia.normalize(raw)
    elements = list(tree.walk())
    assert tree.role == "window" and tree.name == "notes.txt - Notepad"
    (document,) = [e for e in elements if e.role == "document"]
    assert document.text == "buy milk\r\ncall mom" and document.bbox.x == 208 and document.bbox.height == 730
    assert "Format" not in {e.name for e in elements}  # IsOffscreen
    assert {"titlebar", "menuitem", "tab", "status", "textbox", "button"} <= {e.role for e in elements}
    assert raw["children"][3]["node_id"] == document.node_id  # raw properties stay findable
    assert raw["children"][3]["AutomationId"] == "RichEditBox"


@pytest.mark.parametrize("mutate, message", [
    (lambda raw: raw["children"][0].pop("ControlType"), "a UIA node needs `ControlType`"),
    (lambda raw: raw["children"][1].update(ControlType="BogusControl"), "unknown UIA ControlType 'BogusControl'"),
    (lambda raw: raw.update(children={"not": "a list"}), "`children` must be a list"),
])
def test_malformed_uia_fixture_is_refused_naming_the_problem(mutate, message):
    raw = load("uia-notepad.json")
    mutate(raw)
    with pytest.raises((ValueError, TypeError), match=message):
        uia.normalize(raw)


def test_a_100k_node_tree_normalizes_and_renders_in_bounded_time():
    raw = big_tree(100_000)
    assert sum(1 for _ in walk_raw(raw)) >= 100_000
    began = time.perf_counter()
    tree = atspi.normalize(raw)
    seconds = time.perf_counter() - began
    assert sum(1 for _ in tree.walk()) > 50_000  # what is not showing is left out
    assert seconds < 20, seconds  # generous: the machine is shared; bench/perf/trees.py prints the real figure
    assert len(render_tree(tree, max_lines=500, max_tokens=10**6).splitlines()) == 500 + 6  # 5 named, 1 counted


def test_a_very_deep_tree_does_not_recurse():
    raw = node = {"role": "panel", "name": "top"}
    for depth in range(20_000):
        child = {"role": "panel", "name": f"level {depth}"}
        node["children"] = [child]
        node = child
    assert build_tree(raw, lambda n: {"role": n["role"], "name": n["name"]}).find("19999").name == "level 19998"


def slow(node):
    time.sleep(0.01)
    return {}


def endless_tree() -> dict:
    endless = {"kids": []}
    endless["kids"] = [endless, endless]
    return endless


def level_reader(read):
    """A `Walk.run_levels` reader over nested dicts whose children are under "kids"."""
    return lambda nodes: [(read(node), node["kids"]) for node in nodes]


WALKS = {"depth first": lambda walk, root, read: walk.run(root, read, lambda n: n["kids"]),
         "by levels": lambda walk, root, read: walk.run_levels(root, level_reader(read))}


def test_walk_caps_width_and_depth():
    wide = {"id": 0, "kids": [{"id": i, "kids": []} for i in range(1, 50)]}
    raw = Walk(WalkLimits(max_children=10)).run(wide, lambda n: {"id": n["id"]}, lambda n: n["kids"])
    assert len(raw["children"]) == 10 and raw["truncated"]


@pytest.mark.parametrize("walked", sorted(WALKS))
def test_a_walk_stops_at_its_deadline_and_when_cancelled(walked):
    with pytest.raises(WalkStopped, match="ran past 0.1 s"):  # one node per level: the deadline is checked
        WALKS[walked](Walk(WalkLimits(seconds=0.1, max_nodes=10**9, max_children=1)), endless_tree(), slow)
    walk = Walk()
    walk.cancelled.set()
    with pytest.raises(WalkStopped, match="cancelled"):
        WALKS[walked](walk, endless_tree(), slow)


def test_a_walk_by_levels_gives_the_depth_first_walks_tree_under_the_same_caps():
    tree = {"id": 0, "kids": [{"id": i, "kids": [{"id": 10 * i + j, "kids": []} for j in range(3)]}
                              for i in range(1, 6)]}
    ids = level_reader(lambda n: {"id": n["id"]})
    for limits in (WalkLimits(), WalkLimits(max_children=2), WalkLimits(max_depth=1)):
        assert Walk(limits).run_levels(tree, ids) == Walk(limits).run(tree, lambda n: {"id": n["id"]},
                                                                      lambda n: n["kids"])
    capped = Walk(WalkLimits(max_nodes=4)).run_levels(tree, ids)  # the upper levels first
    assert [child["id"] for child in capped["children"]] == [1, 2, 3] and capped["truncated"]
    assert all(child["children"] == [] for child in capped["children"])
