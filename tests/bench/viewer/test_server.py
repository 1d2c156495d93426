"""The viewer server over real loopback sockets: snapshot first, live updates, drops told and
resynchronized, tokens, one-way stream, and a viewer that never reads leaves the run's time alone."""

import functools
import json

import anyio
import pytest

from actors.episode import Outlets
from actors.runner import EpisodeRunner
from actors.backends.sim.node import build
from bench.suites.sim.suite import sim_tasks
from bench.viewer.server import ViewerServer
from actors.run_folder import CALLS, episode_dir, picture_path
from protocols import (
    ChangeSummary, Click, EpisodeFinished, EpisodeResult, EpisodeStarted, ModelCall, Observation, StepRecord,
    StepSummarized, StepTaken, Target, Task, UIElement, Viewport, to_json,
)
from runtime.events import EventBus
from runtime.host import run_local_host
from runtime.limits import Limits
from runtime.websocket import ConnectionClosed, HandshakeError, connect
from tests.crews import sim_crew

pytestmark = pytest.mark.anyio

TASK = Task(task_id="forms/t1", instruction="Click 'Submit'.", domain="forms")


def started(task_id="forms/t1", attempt=1):
    return EpisodeStarted(episode_id=f"{task_id}#{attempt}", task_id=task_id, attempt=attempt, at=10.0, task=TASK)


TREE = UIElement(node_id="root", role="window", children=(UIElement(node_id="b1", role="button", name="Submit"),))


def step(n, task_id="forms/t1"):
    action = Click(target=Target(node_id="b1", name="Submit"))
    return StepTaken(record=StepRecord(episode_id=f"{task_id}#1", step=n, action=action, started_at=10.0 + n),
                     screenshot=b"\x89PNG-%d" % n, before=Observation(screenshot=b"\x89PNG-%d" % (n - 1),
                                                                      viewport=Viewport(800, 600), tree=TREE))


async def start_viewer(tg, bus, **kwargs):
    server = ViewerServer(bus, **kwargs)
    port = await tg.start(server.run)
    return server, port


async def receive_json(ws):
    with anyio.fail_after(5):
        return json.loads(await ws.receive())


async def http_get(port, path):
    async with await anyio.connect_tcp("127.0.0.1", port) as stream:
        await stream.send(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        data = b""
        with anyio.fail_after(5):
            while True:
                try:
                    data += await stream.receive()
                except anyio.EndOfStream:
                    break
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


async def test_a_late_viewer_gets_the_current_state_first_then_live_updates():
    bus = EventBus()
    async with anyio.create_task_group() as tg:
        _, port = await start_viewer(tg, bus, total=3, last_screen_shows_work=False)
        bus.publish(started())
        bus.publish(step(1))
        await anyio.sleep(0.05)
        ws = await connect(f"ws://127.0.0.1:{port}/events")
        snapshot = await receive_json(ws)
        assert snapshot["msg"] == "snapshot"
        (card,) = snapshot["episodes"]
        assert card["task_id"] == "forms/t1" and card["status"] == "running" and len(card["steps"]) == 1
        assert card["shot"] == "/shot/forms%2Ft1%231/1" and card["instruction"] == TASK.instruction
        assert (snapshot["total"], snapshot["finished"]) == (3, 0) and snapshot["elapsed"] >= 0

        bus.publish(step(2))
        bus.publish(StepSummarized(episode_id="forms/t1#1", summary=ChangeSummary(step=2, changes="form sent")))
        bus.publish(EpisodeFinished(result=EpisodeResult(episode_id="forms/t1#1", task_id="forms/t1", success=True,
                                                         steps=2)))
        taken, summarized, finished = [await receive_json(ws) for _ in range(3)]
        assert taken["msg"] == "step_taken" and taken["record"]["step"] == 2
        assert taken["record"]["action"]["target"]["name"] == "Submit" and "screenshot" not in taken
        assert summarized["summary"]["changes"] == "form sent"
        assert finished["status"] == "succeeded" and finished["finished"] == 1
        assert finished["shot"] == "/shot/forms%2Ft1%231/1"  # the screen the deciding action was taken on

        status, png = await http_get(port, "/shot/forms%2Ft1%231/2")
        assert status == 200 and png == b"\x89PNG-2"
        status, png = await http_get(port, "/shot/forms%2Ft1%231/1")  # no run folder: a recent one is in memory
        assert status == 200 and png == b"\x89PNG-1"
        assert (await http_get(port, "/shot/nobody/1"))[0] == 404
        await ws.close()
        tg.cancel_scope.cancel()


async def test_the_end_of_the_run_is_told_to_every_viewer_and_its_stream_closes_normally():
    bus = EventBus()
    async with anyio.create_task_group() as tg:
        earlier = {"forms/t0": EpisodeResult(episode_id="forms/t0#1", task_id="forms/t0", success=True)}
        server, port = await start_viewer(tg, bus, total=2, earlier=earlier)
        ws = await connect(f"ws://127.0.0.1:{port}/events")
        assert (await receive_json(ws))["earlier"] == {"forms/t0": "succeeded"}
        bus.publish(started())
        bus.publish(EpisodeFinished(result=EpisodeResult(episode_id="forms/t1#1", task_id="forms/t1", steps=0)))
        bus.close()  # as a run does when its episodes are done
        assert [(await receive_json(ws))["msg"] for _ in range(2)] == ["episode_started", "episode_finished"]
        ended = await receive_json(ws)
        assert (ended["msg"], ended["total"], ended["finished"]) == ("run_ended", 2, 1)
        assert "folder" not in ended  # this server has no run folder to name
        with pytest.raises(ConnectionClosed) as closed:
            await receive_json(ws)
        assert (closed.value.code, closed.value.reason) == (1000, "the run ended")
        with anyio.fail_after(5):
            await server.told()
        late = await connect(f"ws://127.0.0.1:{port}/events")  # after the end, before the server stops
        assert [(await receive_json(late))["msg"] for _ in range(2)] == ["snapshot", "run_ended"]
        tg.cancel_scope.cancel()


async def test_a_steps_observation_and_model_calls_come_from_memory_and_the_run_folder(tmp_path):
    bus = EventBus()
    folder = episode_dir(tmp_path, "forms/t1", 1)
    folder.mkdir(parents=True)
    call = ModelCall(role="agent", step=1, messages=[{"role": "user", "content": "Click Submit"}], reply="click b1")
    (folder / CALLS).write_bytes(to_json(call) + b"\n" + to_json(ModelCall(role="agent", step=2)) + b"\n")
    async with anyio.create_task_group() as tg:
        _, port = await start_viewer(tg, bus, run_dir=tmp_path)
        bus.publish(started())
        bus.publish(step(1))
        await anyio.sleep(0.05)
        status, body = await http_get(port, "/obs/forms%2Ft1%231/1")
        observation = json.loads(body)["observation"]
        assert status == 200 and observation["tree"]["children"][0]["node_id"] == "b1"
        assert "screenshot" not in observation  # its pixels are the step's PNG, fetched as such
        status, body = await http_get(port, "/calls/forms%2Ft1%231/1")
        assert status == 200 and json.loads(body)["calls"] == [json.loads(to_json(call))]
        picture_path(folder, "agent", 1).write_bytes(b"\x89PNG marked")  # what the agent was shown for step 1
        assert await http_get(port, "/seen/forms%2Ft1%231/1") == (200, b"\x89PNG marked")
        status, body = await http_get(port, "/obs/forms%2Ft1%231/7")
        assert status == 200 and json.loads(body) == {
            "error": "no observation recorded for step 7 (observation-007.json is missing)"}
        (folder / "observation-007.json").write_text('{"tree": 7}')
        status, body = await http_get(port, "/obs/forms%2Ft1%231/7")
        assert json.loads(body)["error"].startswith(f"{folder / 'observation-007.json'}: malformed observation: ")
        (folder / CALLS).write_text("{not json\n")
        status, body = await http_get(port, "/calls/forms%2Ft1%231/1")
        assert status == 200 and json.loads(body)["error"].startswith(f"{folder / CALLS}:1: malformed line")
        tg.cancel_scope.cancel()


async def test_a_viewer_that_falls_behind_is_told_how_many_events_it_lost_and_gets_a_fresh_snapshot():
    bus = EventBus()
    async with anyio.create_task_group() as tg:
        _, port = await start_viewer(tg, bus, queue=8)
        bus.publish(started())
        many = [connect(f"ws://127.0.0.1:{port}/") for _ in range(3)]
        viewers = [await c for c in many]
        for ws in viewers:
            assert (await receive_json(ws))["msg"] == "snapshot"
        for n in range(1, 501):  # no checkpoint in between: far more than a viewer's queue of 8
            bus.publish(step(n))
        for ws in viewers:
            messages = [await receive_json(ws)]
            while messages[-1]["msg"] != "snapshot":
                messages.append(await receive_json(ws))
            dropped = next(m for m in messages if m["msg"] == "events_dropped")
            assert dropped["count"] >= 500 - 8 - len(messages)
            assert len(messages[-1]["episodes"][0]["steps"]) == 500  # whole again
            await ws.close()
        tg.cancel_scope.cancel()


async def test_page_and_stream_require_the_token_when_one_is_set():
    bus = EventBus()
    async with anyio.create_task_group() as tg:
        _, port = await start_viewer(tg, bus, token="s3cret")
        status, body = await http_get(port, "/")
        assert status == 401 and b"missing token" in body
        status, body = await http_get(port, "/?token=wrong")
        assert status == 401 and b"invalid token" in body
        status, body = await http_get(port, "/?token=s3cret")
        assert status == 200 and b"troupe" in body and b"function renderTimeline" in body
        with pytest.raises(HandshakeError, match="invalid token") as refused:
            await connect(f"ws://127.0.0.1:{port}/events?token=nope")
        assert refused.value.status == 401
        with pytest.raises(HandshakeError, match="missing token"):
            await connect(f"ws://127.0.0.1:{port}/events")
        for url, token in ((f"ws://127.0.0.1:{port}/events?token=s3cret", None),
                           (f"ws://127.0.0.1:{port}/events", "s3cret")):
            ws = await connect(url, token=token)
            assert (await receive_json(ws))["msg"] == "snapshot"
            await ws.close()
        tg.cancel_scope.cancel()


async def test_a_viewer_that_sends_garbage_is_disconnected_with_a_reason_and_others_go_on():
    bus = EventBus()
    async with anyio.create_task_group() as tg:
        _, port = await start_viewer(tg, bus)
        rude, good = [await connect(f"ws://127.0.0.1:{port}/") for _ in range(2)]
        for ws in (rude, good):
            await receive_json(ws)
        await rude.send(b"\x00garbage\xff")
        with pytest.raises(ConnectionClosed) as closed:
            await receive_json(rude)
        assert closed.value.code == 1008 and "one-way" in closed.value.reason
        bus.publish(started())
        assert (await receive_json(good))["msg"] == "episode_started"
        await good.close()
        tg.cancel_scope.cancel()


async def timed_run(with_viewer: bool) -> float:
    """Wall time of the same simulated run, with or without a connected viewer that never reads."""
    bus = EventBus()
    tasks = sim_tasks(12, seed=3, sim={"scale": 0.01, "agent_error_rate": 0.0})
    runner = EpisodeRunner(
        crew=sim_crew(),
        vm_slot=functools.partial(run_local_host, build), limits=Limits(call_seconds=5), concurrency=4,
        outlets=Outlets(bus=bus),
    )
    async with anyio.create_task_group() as tg:
        if with_viewer:
            _, port = await start_viewer(tg, bus, queue=4)
            stuck = await connect(f"ws://127.0.0.1:{port}/")  # connected, never reads
        began = anyio.current_time()
        results = await runner.run(tasks)
        elapsed = anyio.current_time() - began
        if with_viewer:
            await stuck.abort()
        tg.cancel_scope.cancel()
    assert len(results) == 12
    return elapsed


async def test_a_viewer_that_never_reads_does_not_slow_the_run():
    """Each run twice, in turns, the faster of each compared: a shared machine's load
    comes and goes within one run."""
    times: dict[bool, list[float]] = {False: [], True: []}
    for with_viewer in (False, True, False, True):
        times[with_viewer].append(await timed_run(with_viewer))
    baseline, watched = min(times[False]), min(times[True])
    assert watched < baseline * 1.5 + 0.3, times
