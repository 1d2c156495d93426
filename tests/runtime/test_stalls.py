"""A loop that does not run for a while (here: a blocking call starves it, or a helper process
SIGSTOPs it; also tests/bench/test_stalled_supervisor.py) does not count that time against call or
episode limits, nor against the time a node or a websocket is given to end cleanly."""

import os
import subprocess
import time
from functools import partial

import anyio
import pytest

from protocols import Ack, Observe
from runtime import stalls
from runtime.actor import Actor, spawn
from runtime.node import serve_node
from runtime.remote import connect_node, run_local_node
from tests import node_apps
from runtime.errors import CallTimeout, ConnectionClosed, TimeLimitExceeded
from runtime.limits import TimeLimit
from runtime.websocket import connect, serve

pytestmark = pytest.mark.anyio


class Thinker(Actor):
    async def handle(self, message):
        await anyio.sleep(0.3)
        return "answer"


async def starve(seconds):
    await anyio.sleep(0.05)
    time.sleep(seconds)  # the whole loop stops, as a stopped process does


async def test_a_stall_is_not_counted_against_a_call_timeout_nor_an_episode_limit():
    before = len(stalls.seen())
    async with anyio.create_task_group() as tg:
        ref = await spawn(tg, Thinker("thinker"))
        with TimeLimit(1.0).enforce():
            tg.start_soon(starve, 2.0)
            assert await ref.ask("think", timeout=1.0) == "answer"
        tg.cancel_scope.cancel()
    [stall] = stalls.seen()[before:]
    assert 1.5 < stall.seconds < 2.5


async def test_a_stall_is_not_counted_against_a_call_to_an_actor_on_a_node():
    async with anyio.create_task_group() as tg:
        port = await tg.start(partial(serve_node, node_apps.build(), token="t"))
        node = await tg.start(connect_node, f"ws://127.0.0.1:{port}", "t")
        tg.start_soon(starve, 2.0)
        assert await node.ref("slow").ask(Observe(step=3, tree_timeout=1), timeout=1.0) == Ack()  # 0.3 s
        tg.cancel_scope.cancel()


async def test_a_stall_while_closing_a_websocket_does_not_make_a_live_peer_dead():
    """This process, SIGSTOPped (by a helper process) for 2 s in the middle of a 1 s close, still
    finishes the closing handshake with a peer that answers once the process runs again."""
    before = len(stalls.seen())
    peer_saw = []

    async def answer_after_the_stall(ws):
        while len(stalls.seen()) == before:
            await anyio.sleep(0.05)
        try:
            await ws.receive()
        except ConnectionClosed as closed:
            peer_saw.append(closed.code)

    async with anyio.create_task_group() as tg:
        port = await tg.start(partial(serve, answer_after_the_stall, token="t"))
        ws = await connect(f"ws://127.0.0.1:{port}", token="t")
        ws.close_timeout = 1.0
        stopper = stop_me(0.3, 2.0)
        await ws.close()
        assert stopper.wait() == 0
        with anyio.fail_after(5):
            while not peer_saw:
                await anyio.sleep(0.02)
        tg.cancel_scope.cancel()
    [stall] = stalls.seen()[before:]
    assert 1.5 < stall.seconds < 2.5
    assert ws.close_code == 1000 and peer_saw == [1000]  # a clean close on both sides, not an abort


def stop_me(after: float, seconds: float) -> subprocess.Popen:
    """A helper process that SIGSTOPs this one `after` seconds from now, for `seconds`."""
    me = os.getpid()
    return subprocess.Popen(["sh", "-c", f"sleep {after}; kill -STOP {me}; sleep {seconds}; kill -CONT {me}"])


async def test_a_stall_while_a_node_exits_cleanly_does_not_get_it_killed(tmp_path):
    """This process, SIGSTOPped for 2 s in the middle of the 1.5 s it gives a stopping node, lets the
    node finish stopping (2.6 s) rather than SIGKILL it on waking up."""
    before, stopped = len(stalls.seen()), tmp_path / "stopped"
    env = {"TROUPE_TEST_STOP_SECONDS": "2.6", "TROUPE_TEST_STOPPED": str(stopped)}
    async with anyio.create_task_group() as tg:
        await tg.start(partial(run_local_node, "tests.node_apps:build_slow_to_stop", env=env, shutdown_timeout=1.5))
        stopper = stop_me(0.3, 2.0)
        tg.cancel_scope.cancel()  # SIGTERM, then SIGKILL if it has not exited within 1.5 s
    assert stopper.wait() == 0
    [stall] = stalls.seen()[before:]
    assert 1.5 < stall.seconds < 2.5
    assert stopped.read_text() == "stopped cleanly"


async def test_without_a_stall_the_limits_still_bite():
    async with anyio.create_task_group() as tg:
        ref = await spawn(tg, Thinker("thinker"))
        with pytest.raises(CallTimeout):
            await ref.ask("think", timeout=0.1)
        with pytest.raises(TimeLimitExceeded):
            with TimeLimit(0.2).enforce():
                await ref.ask("think", timeout=1.0)
                await ref.ask("think", timeout=1.0)
        tg.cancel_scope.cancel()
