"""`python -m bench.viewer URL`: live steps in colour, a summary when the run ends, then exit."""

import functools
import socket

import anyio
import pytest

import bench
from bench.summary import pass_lines, summarize
from bench.viewer.__main__ import NoRunThere, ViewerRefused, follow, main, stream_url
from protocols import EpisodeFinished, EpisodeResult, ErrorKind
from runtime.events import EventBus
from tests.bench.viewer.test_server import start_viewer, started, step

pytestmark = pytest.mark.anyio


def finished(task_id, **result):
    return EpisodeFinished(result=EpisodeResult(episode_id=f"{task_id}#1", task_id=task_id, domain="forms",
                                                steps=2, **result))


async def wait_for(lines, count):
    with anyio.fail_after(5):
        while len(lines) < count:
            await anyio.sleep(0.01)


async def test_the_terminal_viewer_prints_live_steps_in_colour_and_a_summary_when_the_run_ends():
    bus = EventBus()
    lines = []
    async with anyio.create_task_group() as outer:
        async with anyio.create_task_group() as run:
            _, port = await start_viewer(run, bus, token="t")
            url, token = stream_url(f"http://127.0.0.1:{port}/?token=t")
            assert (url, token) == (f"ws://127.0.0.1:{port}/events", "t")
            watching = anyio.Event()
            outer.start_soon(functools.partial(until_returned, watching, follow, url, token, lines.append))
            await wait_for(lines, 1)
            for event in (started(), step(1), finished("forms/t1", success=True),
                          started("forms/t2"), finished("forms/t2", error_kind=ErrorKind.ENVIRONMENT, reason="VM gone")):
                bus.publish(event)
            bus.close()  # the run ends: its server says so (run_ended) and closes the stream
            with anyio.fail_after(5):
                await watching.wait()  # the viewer printed the summary and returned by itself
            run.cancel_scope.cancel()
    plain = [line.plain for line in lines]
    assert plain[:4] == ["connected: 0 running, 0 finished", "> forms/t1 started (attempt 1)",
                         "  forms/t1 step 1: click 'Submit'", "# forms/t1 succeeded after 2 steps: "]
    assert plain[5:] == ["# forms/t2 environment error after 2 steps: VM gone",
                         "run ended: 2 episodes finished, 1 environment error, 1 succeeded"]  # no "disconnected"
    assert (lines[3].style, lines[5].style) == ("green", "yellow")


async def test_a_stream_that_closes_before_the_run_ended_is_said_to_have():
    bus = EventBus()
    lines = []
    async with anyio.create_task_group() as outer:
        async with anyio.create_task_group() as run:
            _, port = await start_viewer(run, bus)
            outer.start_soon(follow, f"ws://127.0.0.1:{port}/events", None, lines.append)
            await wait_for(lines, 1)
            bus.publish(finished("forms/t1", success=True))
            await wait_for(lines, 2)
            run.cancel_scope.cancel()  # the server goes away without saying the run ended (a killed supervisor)
        await wait_for(lines, 4)
    assert lines[2].plain.startswith("(disconnected: ")
    assert lines[3].plain == "disconnected before the run ended: 1 episodes finished, 1 succeeded"


async def until_returned(returned, function, *args, **kwargs):
    await function(*args, **kwargs)
    returned.set()


async def test_with_follow_the_end_is_said_once_however_often_the_ended_run_is_rejoined():
    bus = EventBus()
    lines = []
    async with anyio.create_task_group() as tg:
        _, port = await start_viewer(tg, bus)
        tg.start_soon(functools.partial(follow, f"ws://127.0.0.1:{port}/events", None, lines.append,
                                        keep_following=True))
        await wait_for(lines, 1)
        bus.publish(finished("forms/t1", success=True))
        bus.close()
        with anyio.fail_after(10):  # the server stays up: the viewer rejoins the ended run, told its end again
            while sum(line.plain.startswith("connected: ") for line in lines) < 3:
                await anyio.sleep(0.01)
        tg.cancel_scope.cancel()
    plain = [line.plain for line in lines]
    assert plain.count("run ended: 1 episodes finished, 1 succeeded") == 1
    assert not any(line.startswith("(disconnected") for line in plain)


async def test_with_follow_the_terminal_viewer_waits_for_the_next_run():
    lines = []
    async with anyio.create_task_group() as outer:
        async with anyio.create_task_group() as run:
            _, port = await start_viewer(run, EventBus())
            outer.start_soon(functools.partial(follow, f"ws://127.0.0.1:{port}/events", None, lines.append,
                                               keep_following=True))
            await wait_for(lines, 1)
            run.cancel_scope.cancel()
        await wait_for(lines, 3)  # disconnected, then still trying: no summary, no return
        assert "run ended" not in " ".join(line.plain for line in lines)
        assert lines[-1].plain.startswith("(no run at ")
        outer.cancel_scope.cancel()


async def test_the_terminal_viewer_stops_with_the_servers_reason_on_a_wrong_token():
    async with anyio.create_task_group() as tg:
        _, port = await start_viewer(tg, EventBus(), token="t")
        with pytest.raises(ViewerRefused, match="invalid token"):
            await follow(f"ws://127.0.0.1:{port}/events", "wrong", print)
        tg.cancel_scope.cancel()


def test_the_terminal_viewer_names_a_url_it_cannot_use():
    with pytest.raises(ValueError, match="expected http://HOST:PORT/"):
        stream_url("ftp://127.0.0.1:1/")


async def test_the_terminal_viewer_counts_the_episodes_a_resumed_run_finished_before():
    bus = EventBus()
    lines = []
    async with anyio.create_task_group() as outer:
        async with anyio.create_task_group() as run:
            earlier = {task_id: EpisodeResult(episode_id=f"{task_id}#1", task_id=task_id, success=success)
                       for task_id, success in (("forms/t0", True), ("forms/t9", False))}
            _, port = await start_viewer(run, bus, earlier=earlier)
            outer.start_soon(follow, f"ws://127.0.0.1:{port}/events", None, lines.append)
            await wait_for(lines, 1)
            for event in (started(), finished("forms/t1", success=True)):
                bus.publish(event)
            bus.close()
            await wait_for(lines, 4)
            run.cancel_scope.cancel()
    assert lines[0].plain == "connected: 0 running, 0 finished, 2 finished before this run resumed"
    assert lines[-1].plain == "run ended: 3 episodes finished, 1 failed, 2 succeeded"


def unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_a_resumed_runs_viewer_names_what_the_folder_already_held(tmp_path):
    """The real run, resumed with a second repeat and a viewer: the terminal counts the earlier
    episodes with this run's, in its tally and in pass@k."""
    out = tmp_path / "run"
    await bench.run("sim", options={"episodes": 3, "scale": 0}, summarizer="none", out=str(out))
    port = unused_port()
    lines = []
    watching = anyio.Event()

    async def hold_the_run_until_watched(event):
        await watching.wait()

    async def watch():
        with anyio.fail_after(30):
            while True:
                try:
                    return await follow(f"ws://127.0.0.1:{port}/events", None, see)
                except NoRunThere:
                    await anyio.sleep(0.02)

    def see(text):
        lines.append(text.plain)
        watching.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(watch)
        run = await bench.run("sim", options={"episodes": 3, "scale": 0, "repeats": 2}, summarizer="none",
                              out=str(out), viewer=f"127.0.0.1:{port}", on_event=hold_the_run_until_watched)
    assert len(run.results) == 6
    assert lines[0].startswith("connected: ") and lines[0].endswith(", 3 finished before this run resumed")
    assert lines[-4].startswith("run ended: 6 episodes finished")
    passes = pass_lines(summarize(line.result for line in run.results))  # both starts' repeats, as the run's summary counts them
    assert passes[0].startswith("3 tasks x 2 repeats; ")
    assert lines[-3:] == [*passes, f"browse it: python -m bench.viewer {out}"]


async def test_without_follow_an_address_where_nothing_answers_is_said_not_retried():
    url = f"ws://127.0.0.1:{unused_port()}/events"
    with anyio.fail_after(10), pytest.raises(NoRunThere, match=rf"^no run at {url}: .+ \(--follow waits for one\)$"):
        await follow(url, None, print)


def test_the_command_ends_with_one_line_and_status_2_where_nothing_answers(capsys):
    port = unused_port()
    assert main([f"http://127.0.0.1:{port}/"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"no run at ws://127.0.0.1:{port}/events: ") and err.count("\n") == 1
