"""`python -m bench.viewer URL`: live steps in colour, a summary when the run ends, then exit."""

import functools

import anyio
import pytest

from bench.viewer.__main__ import ViewerRefused, follow, stream_url
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
            outer.start_soon(functools.partial(follow, url, token, lines.append))
            await wait_for(lines, 1)
            for event in (started(), step(1), finished("forms/t1", success=True),
                          started("forms/t2"), finished("forms/t2", error_kind=ErrorKind.ENVIRONMENT, reason="VM gone")):
                bus.publish(event)
            await wait_for(lines, 6)
            run.cancel_scope.cancel()  # the run ends: its viewer server goes away
        with anyio.fail_after(5):
            await wait_for(lines, 8)  # the viewer printed the summary and returned by itself
    plain = [line.plain for line in lines]
    assert plain[:4] == ["connected: 0 running, 0 finished", "> forms/t1 started (attempt 1)",
                         "  forms/t1 step 1: click 'Submit'", "# forms/t1 succeeded after 2 steps: "]
    assert plain[5] == "# forms/t2 environment error after 2 steps: VM gone"
    assert plain[6].startswith("(disconnected")
    assert plain[7] == "run ended: 2 episodes finished, 1 environment error, 1 succeeded"
    assert (lines[3].style, lines[5].style) == ("green", "yellow")


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
