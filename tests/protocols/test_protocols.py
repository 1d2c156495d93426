"""Protocol structs: every action type round-trips; nonsense is refused naming the field."""

import gc

import msgspec
import pytest
from hypothesis import given, strategies as st

import protocols as p
from protocols.keys import canonical_key

TARGET = p.Target(node_id="n1", bbox=p.BBox(1, 2, 30, 40), role="button", name="OK")
EVERY_ACTION = [
    p.Click(point=p.Point(x=0.5, y=0.5, unit="norm")),
    p.Click(target=TARGET, modifiers=("ctrl",)),
    p.DoubleClick(point=p.Point(x=10, y=20)),
    p.TripleClick(target=TARGET, modifiers=("shift",)),
    p.RightClick(target=TARGET),
    p.Move(point=p.Point(x=1, y=1)),
    p.Drag(point=p.Point(x=1, y=1), end=p.Point(x=5, y=5)),
    p.Scroll(direction="down", amount=2, point=p.Point(x=3, y=3)),
    p.TypeText(text="héllo ☃", target=TARGET),
    p.Key(key="enter", modifiers=("shift",)),
    p.Hotkey(keys=("ctrl", "c")),
    p.Wait(seconds=0.5),
    p.Answer(text="42"),
    p.Done(),
    p.Fail(reason="infeasible"),
]


def test_every_action_type_is_covered():
    assert {type(a) for a in EVERY_ACTION} == set(p.ACTION_TYPES)


@pytest.mark.parametrize("action", EVERY_ACTION, ids=lambda a: type(a).__name__)
def test_action_round_trips_through_json_and_msgpack(action):
    assert msgspec.json.decode(msgspec.json.encode(action), type=p.Action) == action
    envelope, message = p.decode(p.encode("ask", p.Act(step=1, action=action), id=1, to="vm"))
    assert message == p.Act(step=1, action=action)


@pytest.mark.parametrize("raw, complaint", [
    ({"type": "click"}, "click needs `point` or `target`"),
    ({"type": "double_click", "target": {"role": "button"}}, "a target needs `node_id` or `bbox` - at `$.target`"),
    ({"type": "drag", "point": {"x": 1, "y": 1}}, "drag needs `end` or `end_target`"),
    ({"type": "key", "key": "Return"}, "`key`: unknown key name 'Return' (did you mean 'enter'?)"),
    ({"type": "key", "key": "a", "modifiers": ["hyper"]}, "`modifiers`: 'hyper' is not one of"),
    ({"type": "hotkey", "keys": ["ctrl", "nope"]}, "`keys[1]`: unknown key name 'nope'"),
    ({"type": "hotkey", "keys": []}, "`keys` must name at least one key"),
    ({"type": "scroll", "direction": "down", "amount": 0}, "`amount` must be a positive"),
    ({"type": "scroll", "direction": "sideways"}, "at `$.direction`"),
    ({"type": "type", "text": ""}, "`text` must not be empty"),
    ({"type": "click", "point": {"x": 2, "y": 0.5, "unit": "norm"}}, "normalized point must lie in [0, 1]"),
    ({"type": "teleport"}, "Invalid value 'teleport' - at `$.type`"),
])
def test_nonsense_action_is_refused_at_decode_naming_the_field(raw, complaint):
    with pytest.raises(msgspec.ValidationError) as info:
        msgspec.json.decode(msgspec.json.encode(raw), type=p.Action)
    assert complaint in str(info.value)


def test_envelope_errors_name_what_was_wrong():
    good = p.encode("tell", p.Observe(step=1, tree_timeout=1))
    wrong_version = msgspec.msgpack.encode([2, "tell", 0, "", msgspec.msgpack.decode(good)[4]])
    with pytest.raises(p.ProtocolError, match="unsupported wire version 2"):
        p.decode(wrong_version)
    with pytest.raises(p.ProtocolError, match="unknown envelope kind 'shout'"):
        p.decode(msgspec.msgpack.encode([1, "shout", 0, "", {"msg": "flush"}]))
    with pytest.raises(p.ProtocolError, match="invalid message: Invalid value 'bogus' - at `\\$.msg`"):
        p.decode(msgspec.msgpack.encode([1, "tell", 0, "", {"msg": "bogus"}]))
    with pytest.raises(p.ProtocolError, match="invalid message: click needs"):
        p.decode(msgspec.msgpack.encode([1, "tell", 0, "", {"msg": "act", "step": 1, "action": {"type": "click"}}]))


def test_bad_utf8_in_a_string_field_is_a_protocol_error():
    with pytest.raises(p.ProtocolError, match="malformed envelope: 'utf-8' codec can't decode"):
        p.decode(b"\xdd\x00\x00\x00\x05\x00\xa1\x80")
    body = msgspec.msgpack.encode({"msg": "observe", "step": 1})
    bad_body = body.replace(b"observe", b"obs\xffrve")
    with pytest.raises(p.ProtocolError, match="malformed message body"):
        p.decode(msgspec.msgpack.encode([1, "tell", 0, "", msgspec.Raw(bad_body)]))


@given(st.binary(max_size=200))
def test_arbitrary_bytes_decode_or_raise_protocol_error(data):
    try:
        p.decode(data)
    except p.ProtocolError as exc:
        assert str(exc)


def test_observation_with_screenshot_and_tree_round_trips():
    tree = p.UIElement(node_id="root", role="window", children=(
        p.UIElement(node_id="b", role="button", name="OK", bbox=p.BBox(0, 0, 10, 10)),))
    observation = p.Observation(screenshot=bytes(range(256)) * 4096, viewport=p.Viewport(1280, 800), tree=tree,
                                url="http://127.0.0.1/", partial=("tree",))
    _, message = p.decode(p.encode("reply", p.Observed(observation=observation), id=3))
    assert message.observation == observation
    assert msgspec.json.decode(p.to_json(observation), type=p.Observation) == observation
    assert tree.find("b").name == "OK" and tree.find("zz") is None


def test_loose_key_spellings_map_to_canonical_names():
    assert [canonical_key(k) for k in ("Return", "ESC", "A", "PgDn", "F5")] == ["enter", "escape", "a", "pagedown", "f5"]
    with pytest.raises(ValueError, match="unknown key name 'hyperspace'"):
        canonical_key("hyperspace")


def test_task_refuses_an_empty_id():
    with pytest.raises(msgspec.ValidationError, match="`task_id` must not be empty"):
        msgspec.convert({"task_id": "", "instruction": "x"}, p.Task)


def test_an_observation_from_an_older_run_folder_still_decodes_without_its_raw_tree_and_dom():
    old = b'{"window_title": "Form", "raw_tree": [{"role": "button"}], "dom_html": "<html></html>"}'
    observation = msgspec.json.decode(old, type=p.Observation)
    assert observation.window_title == "Form"
    assert b"raw_tree" not in p.to_json(observation) and b"dom_html" not in p.to_json(observation)


def test_what_a_run_keeps_is_never_walked_by_the_cycle_collector():
    """Frozen and acyclic, declared gc=False: a run holds every step's observations and records."""
    tree = p.UIElement(node_id="r", role="document", children=(p.UIElement(node_id="b", role="button", name="OK"),))
    observation = p.Observation(screenshot=b"png", viewport=p.Viewport(10, 10), tree=tree)
    record = p.StepRecord(episode_id="e", step=1, action=p.Click(target=p.Target(node_id="b")), reasoning="r")
    task = p.Task(task_id="t", instruction="x", raw_config={"k": [1]})
    _, decoded = p.decode(p.encode("reply", p.Observed(observation=observation), id=1))
    for kept in (tree, observation, record, record.action, task, p.Observed(observation=observation), decoded,
                 decoded.observation, decoded.observation.tree):
        assert not gc.is_tracked(kept), type(kept).__name__
