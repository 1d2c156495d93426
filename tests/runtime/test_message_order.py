"""Issue 17: messages in the wrong order or with absurd values never take a node down.

A simulated-VM node (the real node app, served in this process on a real
socket) gets every request in every state: before a Reset, after a malformed
Reset, after a good one. Each answer is either the reply or a polite
refusal, and the node goes on serving; values that are no duration or count
(NaN, infinities, negative steps) and bytes nested 10,000 deep are protocol
errors, closing that connection with 1008 and the reason.
"""

import re
from contextlib import asynccontextmanager
from functools import partial

import anyio
import msgspec
import pytest

from protocols import Ack, Act, Click, Inspect, Inspected, Observe, Observed, Point, ProtocolError, Reset, Task, decode
from runtime.actor import spawn
from runtime.errors import RequestRefused
from runtime.node import serve_node
from runtime.remote import connect_node, run_local_node
from runtime.websocket import ConnectionClosed, connect

from actors.backends.sim.node import build as build_sim
from actors.backends.sim.vm import SimVM
from actors.observer import Observer

pytestmark = pytest.mark.anyio

TOKEN = "order-token"
FAST = {"sim": {"scale": 0.0, "layout": [{"role": "button", "name": "OK"}]}}


def reset(raw_config=FAST, attempt=1):
    return Reset(task=Task(task_id="t1", instruction="click OK", raw_config=raw_config), episode_id="t1#1", attempt=attempt)


def requests():
    """One of every request a VM node's actors take, with the actor it goes to."""
    return [
        ("observer", Observe(step=0, tree_timeout=1)),
        ("vm", Act(step=0, action=Click(point=Point(x=1, y=1)))),
        ("vm", Inspect(spec={})),
        ("vm", Observe(step=0, tree_timeout=1)),  # the wrong actor
        ("observer", reset()),  # the wrong actor
    ]


@asynccontextmanager
async def sim_node():
    async with anyio.create_task_group() as tg:
        port = await tg.start(partial(serve_node, build_sim(), token=TOKEN))
        url = f"ws://127.0.0.1:{port}"
        node = await tg.start(connect_node, url, TOKEN)
        yield node, url
        tg.cancel_scope.cancel()


async def assert_serves(node):
    """The node still answers: a good Reset and an Observe go through."""
    with anyio.fail_after(10):
        assert await node.ref("vm").ask(reset()) == Ack()
        observed = await node.ref("observer").ask(Observe(step=0, tree_timeout=1))
    assert isinstance(observed, Observed) and observed.observation.screenshot.startswith(b"\x89PNG")


async def test_every_request_before_a_reset_is_refused_by_name_and_the_node_serves_on():
    async with sim_node() as (node, _url):
        for actor, message in requests():
            with anyio.fail_after(10), pytest.raises(RequestRefused) as info:
                await node.ref(actor).ask(message)
            assert info.value.actor == actor
            assert "ExceptionGroup" not in str(info.value)
        await assert_serves(node)


@pytest.mark.parametrize(
    "raw_config, named",
    [
        ({"sim": {"layout": [{"name": "OK"}]}}, "'role'"),
        ({"sim": {"scale": "fast"}}, "$.scale"),
        ({"sim": {"scale": float("nan")}}, "$.scale"),
        ({"sim": {"latencies": {"reset": {"mean": float("inf")}}}}, "$.latencies.reset.mean"),
        ({"sim": {"faults": [{"kind": "meteor"}]}}, "$.faults[0].kind"),
        ({"sim": 7}, "Expected `object`"),
    ],
    ids=["layout-without-role", "scale-text", "scale-nan", "latency-inf", "unknown-fault", "not-an-object"],
)
async def test_a_reset_with_a_malformed_config_is_refused_naming_the_field_and_the_node_serves_on(raw_config, named):
    async with sim_node() as (node, _url):
        with anyio.fail_after(10), pytest.raises(RequestRefused) as info:
            await node.ref("vm").ask(reset(raw_config))
        assert "malformed sim config" in str(info.value) and named in str(info.value)
        # A refused Reset leaves no half-reset VM behind: observing is refused, not a crash.
        with anyio.fail_after(10), pytest.raises(RequestRefused):
            await node.ref("observer").ask(Observe(step=0, tree_timeout=1))
        await assert_serves(node)


async def test_requests_after_a_reset_are_answered_and_foreign_ones_still_refused():
    async with sim_node() as (node, _url):
        await assert_serves(node)
        assert isinstance(await node.ref("vm").ask(Inspect(spec={})), Inspected)
        with pytest.raises(RequestRefused, match="VMController does not handle Observe"):
            await node.ref("vm").ask(Observe(step=0, tree_timeout=1))
        with pytest.raises(RequestRefused, match="Observer does not handle Reset"):
            await node.ref("observer").ask(reset())
        await assert_serves(node)


def raw_envelope(to, body: bytes) -> bytes:
    """A well-formed envelope around `body`, raw msgpack of any shape."""
    return msgspec.msgpack.encode([1, "ask", 1, to, msgspec.Raw(body)])


def observe_body(**fields) -> bytes:
    return msgspec.msgpack.encode({"msg": "observe", **fields})


@pytest.mark.parametrize(
    "data, reason",
    [
        (raw_envelope("observer", observe_body(step=0, tree_timeout=float("nan"))), "$.tree_timeout"),
        (raw_envelope("observer", observe_body(step=0, tree_timeout=float("inf"))), "$.tree_timeout"),
        (raw_envelope("observer", observe_body(step=0, tree_timeout=-1.0)), "$.tree_timeout"),
        (raw_envelope("observer", observe_body(step=-1, tree_timeout=1.0)), "$.step"),
        (raw_envelope("vm", msgspec.msgpack.encode({"msg": "reset", "task": {"task_id": "t", "instruction": "i"},
                                                    "episode_id": "e", "attempt": 0})), "$.attempt"),
        (raw_envelope("vm", msgspec.msgpack.encode({"msg": "events_dropped", "count": -3})), "$.count"),
        (raw_envelope("vm", b"\x82\xa3msg\xa7inspect\xa4spec\x81\xa1a" + b"\x91" * 10_000 + b"\x00"), "nested too deeply"),
        (raw_envelope("vm", b"\x81\xa3msg" + b"\x91" * 10_000 + b"\x00"), "nested too deeply"),
    ],
    ids=["tree-timeout-nan", "tree-timeout-inf", "tree-timeout-negative", "step-negative", "attempt-zero",
         "count-negative", "nested-10000-in-a-field", "nested-10000-as-the-tag"],
)
async def test_absurd_numbers_and_deep_nesting_are_protocol_errors_closing_1008_with_the_reason(data, reason):
    async with sim_node() as (node, url):
        ws = await connect(url, token=TOKEN)
        await ws.send(data)
        with anyio.fail_after(5), pytest.raises(ConnectionClosed) as info:
            await ws.receive()
        assert info.value.code == 1008, info.value
        assert reason in info.value.reason
        await assert_serves(node)


@pytest.mark.parametrize("tree_timeout", [float("nan"), float("inf"), -1.0])
async def test_an_in_process_observe_with_an_absurd_tree_timeout_is_refused(tree_timeout):
    """Nothing decodes an in-process Observe: the Observer checks it itself."""
    async with anyio.create_task_group() as tg:
        observer = await spawn(tg, Observer(SimVM()))
        with pytest.raises(RequestRefused, match="tree_timeout must be a finite number of seconds"):
            await observer.ask(Observe(step=0, tree_timeout=tree_timeout))
        tg.cancel_scope.cancel()


async def test_a_miniwob_node_refuses_every_request_before_a_reset_and_a_malformed_reset_and_serves_on():
    """The same on a real browser node (Chromium in a node process): the Observer's three
    captures each refuse, and the refusal arrives as one, not as an ExceptionGroup crash."""
    async with anyio.create_task_group() as tg:
        node = await tg.start(partial(run_local_node, "bench.suites.miniwob.node:build", ready_timeout=60))
        for actor, message in requests():
            with anyio.fail_after(30), pytest.raises(RequestRefused) as info:
                await node.ref(actor).ask(message)
            assert "ExceptionGroup" not in str(info.value), info.value
        for raw_config in ({}, {"browser": {"viewport": "big"}}, {"browser": 7}):
            with anyio.fail_after(30), pytest.raises(RequestRefused, match=r"raw_config\['browser'\]"):
                await node.ref("vm").ask(reset(raw_config))
        assert node.closed is None, f"the node went away: {node.closed}"
        tg.cancel_scope.cancel()


@pytest.mark.parametrize("timings, field", [
    ({"screenshot": float("nan")}, "$.observation.timings.screenshot"),
    ({"total": float("inf")}, "$.observation.timings.total"),
    ({"tree": -0.5}, "$.observation.timings.tree"),
])
def test_a_reply_with_absurd_capture_timings_is_a_protocol_error_naming_the_field(timings, field):
    """What a node answers is decoded by the same rules: NaN timings never reach a run folder
    (JSON would write them as null, unreadable later)."""
    body = msgspec.msgpack.encode({"msg": "observed", "observation": {"timings": timings}})
    with pytest.raises(ProtocolError, match=re.escape(field)):
        decode(msgspec.msgpack.encode([1, "reply", 1, "observer", msgspec.Raw(body)]))
