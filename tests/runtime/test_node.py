import os
import signal
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from functools import partial

import anyio
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocols import (
    Ack, Act, Acted, Click, Hello, Inspect, Inspected, Observation, Observe, Observed, Point, ProtocolError,
    Welcome, decode, encode,
)
from runtime.errors import ActorCrashed, ActorStopped, CallTimeout, RequestRefused
from runtime.node import serve_node
from runtime.remote import NodeDied, connect_node, run_local_node
from runtime.websocket import ConnectionClosed, connect
from tests import node_apps

pytestmark = pytest.mark.anyio

TOKEN = "node-token"
APP = "tests.node_apps:build"


@asynccontextmanager
async def node_in_process():
    """A node served from this process (no subprocess), and its URL."""
    async with anyio.create_task_group() as tg:
        port = await tg.start(partial(serve_node, node_apps.build(), token=TOKEN))
        yield tg, f"ws://127.0.0.1:{port}"
        tg.cancel_scope.cancel()


def envelope(v=1, kind="ask", id=1, to="echo", body=None):
    """Raw msgpack of an envelope, with any field as wrong as a test needs."""
    return msgspec.msgpack.encode([v, kind, id, to, body if body is not None else {"msg": "ack"}])


async def sent_and_closed(url, data):
    ws = await connect(url, token=TOKEN)
    await ws.send(data)
    with anyio.fail_after(5), pytest.raises(ConnectionClosed) as info:
        reply = await ws.receive()
        pytest.fail(f"expected the node to close the connection, got {decode(reply)}")
    return info.value


async def ask_raw(url, message, to="echo", id=7):
    ws = await connect(url, token=TOKEN)
    try:
        await ws.send(encode("ask", message, id=id, to=to))
        with anyio.fail_after(5):
            while True:
                reply, body = decode(await ws.receive())
                if reply.id == id:
                    return reply, body
    finally:
        await ws.close()


# --- the node's side of the wire (in process) ---------------------------------------------


async def test_remote_ask_round_trips_an_observation_with_a_1mb_screenshot():
    screenshot = os.urandom(2**20)
    sent = Observed(observation=Observation(screenshot=screenshot, url="about:blank"))
    async with node_in_process() as (tg, url):
        node = await tg.start(connect_node, url, TOKEN)
        reply = await node.ref("echo").ask(sent, timeout=5)
        assert reply == sent and reply.observation.screenshot == screenshot
        assert await node.ref("slow").ask(Observe(step=0, tree_timeout=1)) == Ack()  # None replies Ack


@pytest.mark.parametrize(
    "data, code, reason",
    [
        (envelope(kind="shout"), 1008, "unknown envelope kind 'shout'"),
        (envelope(v=2), 1008, "unsupported wire version 2"),
        (envelope(body={"msg": "teleport"}), 1008, "invalid message: Invalid value 'teleport'"),
        (envelope(body={"msg": "act", "step": 1, "action": {"type": "click"}}), 1008, "click needs `point` or `target`"),
        (envelope(body={"msg": "act", "step": 1, "action": {"type": "click", "point": {"x": -1, "y": 0}}}), 1008, "must not be negative"),
        (b"\xc1 not msgpack at all", 1008, "malformed envelope"),
        (b"", 1008, "malformed envelope"),
        (envelope(kind="reply"), 1008, "accepts only ask and tell"),
    ],
    ids=["kind", "version", "message-type", "action-without-point", "negative-point", "garbage", "empty", "reply-to-node"],
)
async def test_bad_envelopes_close_the_connection_with_the_reason_and_the_node_serves_on(data, code, reason):
    async with node_in_process() as (_tg, url):
        closed = await sent_and_closed(url, data)
        assert closed.code == code
        assert reason in closed.reason
        assert len(closed.reason.encode()) <= 123
        _, reply = await ask_raw(url, Observe(step=3, tree_timeout=1))
        assert reply.observation.screenshot == b"\x89PNG\0\0\0"


async def test_unknown_actor_is_an_error_naming_it_and_what_the_node_hosts():
    async with node_in_process() as (tg, url):
        node = await tg.start(connect_node, url, TOKEN)
        with pytest.raises(ActorCrashed, match=r"ghost: UnknownActor: no actor named 'ghost'.*echo, keeper, slow"):
            await node.ref("ghost").ask(Observe(step=1, tree_timeout=1))
        envelope_, body = await ask_raw(url, Observe(step=1, tree_timeout=1), to="ghost")
        assert envelope_.kind == "error" and body.error == "UnknownActor"


async def test_refusals_and_bad_replies_come_back_as_errors_and_the_actor_serves_on():
    async with node_in_process() as (tg, url):
        keeper = (await tg.start(connect_node, url, TOKEN)).ref("keeper")
        with pytest.raises(RequestRefused, match="^keeper: not today$"):
            await keeper.ask(Inspect(spec={"refuse": "not today"}))
        with pytest.raises(ActorCrashed, match="TypeError: keeper replied with a dict"):
            await keeper.ask(Acted())
        with pytest.raises(TypeError, match="only protocols messages"):
            await keeper.ask({"a": "dict"})
        assert await keeper.ask(Inspect()) == Inspected(state={"steps": []})


async def test_tells_arrive_in_order_and_a_slow_ask_does_not_hold_up_others():
    async with node_in_process() as (tg, url):
        node = await tg.start(connect_node, url, TOKEN)
        keeper, slow, echo = node.ref("keeper"), node.ref("slow"), node.ref("echo")
        for step in range(50):
            await keeper.tell(Observe(step=step, tree_timeout=1))
        assert await keeper.ask(Inspect()) == Inspected(state={"steps": list(range(50))})

        async with anyio.create_task_group() as asks:
            asks.start_soon(partial(slow.ask, Observe(step=node_apps.NEVER, tree_timeout=1), timeout=3))  # never answers
            started = anyio.current_time()
            await echo.ask(Observe(step=1, tree_timeout=1), timeout=2)
            assert anyio.current_time() - started < 1
            asks.cancel_scope.cancel()


async def test_ask_timeout_is_a_call_timeout():
    async with node_in_process() as (tg, url):
        slow = (await tg.start(connect_node, url, TOKEN)).ref("slow")
        started = anyio.current_time()
        with pytest.raises(CallTimeout, match="slow did not answer Observe within 0.2 s"):
            await slow.ask(Observe(step=5, tree_timeout=1), timeout=0.2)  # answers after 0.5 s
        assert anyio.current_time() - started < 0.4
        # The late reply arrives while this ask waits behind it; it is dropped, and
        # the actor and connection serve on.
        assert await slow.ask(Observe(step=0, tree_timeout=1), timeout=2) == Ack()
        assert anyio.current_time() - started >= 0.5
        assert slow._connection._pending == {}


async def test_an_actor_stuck_on_an_ask_whose_connection_closed_is_run_again_and_serves_the_next_asker():
    actor = node_apps.Lifecycle()

    async def ask_and_leave(url, step, timeout):
        async with anyio.create_task_group() as connection:
            node = await connection.start(connect_node, url, TOKEN)
            try:
                return await node.ref("slow").ask(Observe(step=step, tree_timeout=1), timeout=timeout)
            except CallTimeout as exc:
                return exc
            finally:
                connection.cancel_scope.cancel()  # the asker goes away: its connection closes

    async with anyio.create_task_group() as tg:
        url = f"ws://127.0.0.1:{await tg.start(partial(serve_node, [actor], token=TOKEN))}"
        assert await ask_and_leave(url, 0, 2) == Ack()
        await anyio.sleep(0.1)
        assert (actor.starts, actor.stops) == (1, 0)  # idle when its asker left: nothing to interrupt
        assert isinstance(await ask_and_leave(url, node_apps.NEVER, 0.2), CallTimeout)
        with anyio.fail_after(5):
            assert await ask_and_leave(url, 1, 5) == Ack()  # the stuck run was cancelled, not waited for
        assert (actor.starts, actor.stops) == (2, 1)
        tg.cancel_scope.cancel()


async def test_a_dropped_connection_fails_pending_asks_at_once_and_connect_node_raises_node_died():
    caught = []
    with pytest.raises(BaseExceptionGroup) as group:
        async with anyio.create_task_group() as outer:
            node_scope = anyio.CancelScope()

            async def run_node(task_status):
                with node_scope:
                    await serve_node(node_apps.build(), token=TOKEN, task_status=task_status)

            port = await outer.start(run_node)
            node = await outer.start(connect_node, f"ws://127.0.0.1:{port}", TOKEN)

            async def pending_ask():
                try:
                    await node.ref("slow").ask(Observe(step=node_apps.NEVER, tree_timeout=1))
                except ActorStopped as exc:
                    caught.append(exc)

            outer.start_soon(pending_ask)
            await anyio.sleep(0.1)
            node_scope.cancel()  # the node goes away; its connections close with 1001
            with anyio.fail_after(5):
                while not caught:
                    await anyio.sleep(0.01)
    assert "slow: connection lost: 1001 node shutting down" in str(caught[0])
    died = group.value.exceptions[0]
    assert isinstance(died, NodeDied) and died.close_code == 1001


async def test_a_node_answers_hello_itself_with_its_seats_and_an_id_of_its_own():
    async with node_in_process() as (tg, url):
        reply, welcome = await ask_raw(url, Hello(), to="")
        assert reply.kind == "reply" and welcome.seats is None and len(welcome.node) == 16
        assert (await tg.start(connect_node, url, TOKEN)).welcome == welcome
        port = await tg.start(partial(serve_node, node_apps.build_seated(2), token=TOKEN, seats=2))
        seated = (await tg.start(connect_node, f"ws://127.0.0.1:{port}", TOKEN)).welcome
        assert seated.seats == 2 and seated.node != welcome.node


async def test_a_node_older_than_hello_is_taken_for_one_without_seats(monkeypatch):
    """Such a node's codec has no `hello`: it closes the connection on it with 1008, as for any unknown message."""

    def older_decode(data):
        envelope_, message = decode(data)
        if isinstance(message, Hello):
            raise ProtocolError("invalid message: Invalid value 'hello' - at `$.msg`")
        return envelope_, message

    monkeypatch.setattr("runtime.node.decode", older_decode)
    async with node_in_process() as (tg, url):
        node = await tg.start(connect_node, url, TOKEN)
        assert node.welcome == Welcome()
        assert await node.ref("echo").ask(Inspect(spec={"a": 1}), timeout=5) == Inspect(spec={"a": 1})


async def test_wrong_token_means_connect_node_fails_with_node_died():
    async with node_in_process() as (_tg, url):
        with pytest.raises(NodeDied, match="401.*invalid token"):
            await connect_node(url, "wrong")


# --- property tests: no bytes take the node down ----------------------------------------------

_scalars = (
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False)
    | st.text(max_size=10) | st.binary(max_size=10)
)
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=6)
_bodies = st.one_of(
    st.sampled_from([
        {"msg": "ack"}, {"msg": "observe", "step": 2, "tree_timeout": 1}, {"msg": "inspect", "spec": {}},
        {"msg": "act", "step": 1, "action": {"type": "click", "point": {"x": 1, "y": 2}}},
        {"msg": "act", "step": 1, "action": {"type": "click"}},
        {"msg": "act", "step": 1, "action": {"type": "fly", "to": "moon"}},
        {"msg": "observe", "step": "two"},
    ]),
    st.fixed_dictionaries({"msg": st.sampled_from(["ack", "observe", "act", "failure", "nope"])}, optional={"step": _values, "action": _values}),
    _values,
)
_envelopes = st.one_of(
    st.tuples(
        st.sampled_from([1, 1, 1, 0, 2]) | st.integers(-(2**63), 2**63 - 1),
        st.sampled_from(["ask", "tell", "reply", "error", "bogus", ""]) | st.text(max_size=5),
        st.integers(0, 2**63 - 1),
        st.sampled_from(["echo", "ghost", ""]),
        _bodies,
    ).map(lambda fields: msgspec.msgpack.encode(list(fields))),
    st.lists(_values, max_size=7).map(msgspec.msgpack.encode),  # wrong arity, wrong types
    _values.map(msgspec.msgpack.encode),
)


def _should_close(data: bytes) -> bool:
    try:
        envelope_, _ = decode(data)
    except ProtocolError:
        return True
    return envelope_.kind not in ("ask", "tell")


async def _check_one(url: str, data: bytes) -> None:
    ws = await connect(url, token=TOKEN)
    try:
        await ws.send(data)
        if _should_close(data):
            with anyio.fail_after(2), pytest.raises(ConnectionClosed) as info:
                while True:
                    await ws.receive()
            assert info.value.code == 1008 and info.value.reason.strip()
        else:
            # A well-formed ask or tell: the connection stays usable.
            await ws.send(encode("ask", Observe(step=1, tree_timeout=1), id=2**63 - 1, to="echo"))
            with anyio.fail_after(2):
                while (decode(await ws.receive()))[0].id != 2**63 - 1:
                    pass
    finally:
        await ws.close()
    # Whatever that was, another connection is answered.
    reply, body = await ask_raw(url, Observe(step=2, tree_timeout=1))
    assert reply.kind == "reply" and body.observation.screenshot == b"\x89PNG\0\0"


async def _property(strategy, examples: int) -> None:
    async with node_in_process() as (_tg, url):
        closes = []

        @settings(max_examples=examples, deadline=None, database=None)
        @given(strategy)
        def every_message(data):
            closes.append(_should_close(data))
            anyio.from_thread.run(_check_one, url, data)

        await anyio.to_thread.run_sync(every_message)
        assert any(closes)


async def test_property_arbitrary_bytes_close_with_a_reason_and_the_node_serves_on():
    await _property(st.binary(max_size=300), examples=60)


async def test_property_plausible_envelopes_close_with_a_reason_and_the_node_serves_on():
    await _property(_envelopes, examples=120)


# --- real node processes ---------------------------------------------------------------


async def test_a_spawned_node_answers_asks_and_is_terminated_and_reaped_on_cancel(anyio_backend):
    async with anyio.create_task_group() as tg:
        node = await tg.start(partial(run_local_node, APP, backend=anyio_backend))
        assert node.pid and node.url.startswith("ws://127.0.0.1:")
        reply = await node.ref("echo").ask(Observe(step=2**20, tree_timeout=1), timeout=10)
        assert len(reply.observation.screenshot) == 2**20 + 4
        assert await node.ref("echo").ask(Act(step=3, action=Click(point=Point(1, 2)))) == Act(
            step=3, action=Click(point=Point(1, 2))
        )
        tg.cancel_scope.cancel()
    with pytest.raises(ChildProcessError):
        os.waitpid(node.pid, os.WNOHANG)  # noqa: ASYNC222 - WNOHANG: already reaped: no zombie left behind
    with pytest.raises(ProcessLookupError):
        os.kill(node.pid, 0)


async def test_sigkill_mid_ask_fails_the_ask_promptly_and_raises_node_died():
    caught = []
    started = None
    with pytest.raises(BaseExceptionGroup) as group:
        async with anyio.create_task_group() as tg:
            node = await tg.start(run_local_node, APP)

            async def pending_ask():
                try:
                    await node.ref("slow").ask(Observe(step=node_apps.NEVER, tree_timeout=1))
                except ActorStopped as exc:
                    caught.append((anyio.current_time(), exc))

            tg.start_soon(pending_ask)
            await anyio.sleep(0.2)
            started = anyio.current_time()
            os.kill(node.pid, signal.SIGKILL)
            with anyio.fail_after(5):
                while not caught:
                    await anyio.sleep(0.01)
    failed_at, exc = caught[0]
    assert failed_at - started < 1.0
    assert "slow: connection lost: 1006" in str(exc)
    died = group.value.exceptions[0]
    assert isinstance(died, NodeDied) and died.returncode == -signal.SIGKILL
    assert f"(pid {node.pid}) was killed by SIGKILL" in str(died)


async def test_a_hosted_actor_crash_kills_the_node_and_node_died_carries_its_stderr():
    with pytest.raises(BaseExceptionGroup) as group:
        async with anyio.create_task_group() as tg:
            node = await tg.start(run_local_node, APP)
            with pytest.raises((ActorCrashed, ActorStopped)):
                await node.ref("keeper").ask(Inspect(spec={"crash": "display :99 vanished"}), timeout=10)
            with anyio.fail_after(10):
                await anyio.sleep_forever()
    died = group.value.exceptions[0]
    assert isinstance(died, NodeDied), died
    assert died.returncode == 1
    assert "exited with code 1" in str(died)
    assert "hosted actor 'keeper' crashed: RuntimeError: display :99 vanished" in died.stderr
    assert "RuntimeError: display :99 vanished" in str(died)
    assert died.close_code == 1011


async def test_a_node_that_fails_to_start_raises_node_died_with_its_stderr():
    with pytest.raises(NodeDied, match="never reported listening") as info:
        await run_local_node("tests.node_apps:build_broken")
    assert "missing display :99" in str(info.value) and info.value.returncode == 1
    with pytest.raises(NodeDied, match="No module named 'tests.nowhere'"):
        await run_local_node("tests.nowhere:build")


def test_the_node_cli_refuses_to_start_without_a_token():
    env = {k: v for k, v in os.environ.items() if k != "TROUPE_NODE_TOKEN"}
    result = subprocess.run(
        [sys.executable, "-m", "runtime.node", "--app", APP], env=env, capture_output=True, text=True, timeout=30, check=False,
    )
    assert result.returncode == 2
    assert "no token" in result.stderr and result.stdout == ""


def test_the_node_cli_prints_exactly_one_ready_line_and_stops_cleanly_on_sigterm():
    env = {**os.environ, "TROUPE_NODE_TOKEN": TOKEN}
    process = subprocess.Popen(
        [sys.executable, "-m", "runtime.node", "--listen", "127.0.0.1:0", "--app", APP, "--backend", "trio"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        line = process.stdout.readline()
        ready = msgspec.json.decode(line)
        host, port = ready["listening"].rsplit(":", 1)
        assert list(ready) == ["listening"] and host == "127.0.0.1" and int(port) > 0
        time.sleep(0.1)
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=10)
    finally:
        process.kill()
        process.wait()
    assert out == "" and process.returncode == 0, err
