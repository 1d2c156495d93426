"""The WAA backend against the Linux WAA server on a real Xvfb desktop:
every action type carried out for real, and WAA-format tasks end to end."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys

import pytest

from actors.runner import EpisodeRunner
from bench.suites.waa.checker import WAAChecker
from actors.backends.waa.client import Retry
from bench.suites.waa.node import actors_for, waa_backend
from bench.suites.waa.catalog import Catalog
from protocols import (
    Click, Decide, Decision, Done, DoubleClick, Drag, Fail, Hotkey, Key, Move, Point, RightClick, Scroll, Target,
    Task, TripleClick, TypeText, Wait,
)
from runtime.host import run_local_host
from runtime.limits import Limits

from tests.waa_servers import LINUX_TASKS, ROOT, start_linux_server, stop
from tests.crews import crew

pytestmark = pytest.mark.anyio


@pytest.fixture
def server():
    linux = start_linux_server(flags=("--allow-commands",))  # the tasks' setup steps run shell commands
    yield linux
    stop(linux)


def backend(server) :
    return waa_backend(server.url, token=server.token, probe=Retry(attempts=5, backoff=0.2), settle_timeout=1.0)


def pointer(server) -> tuple[int, int]:
    out = subprocess.run(["xdotool", "getmouselocation", "--shell"], env={**os.environ, "DISPLAY": server.display},
                         capture_output=True, text=True, check=True).stdout
    values = dict(line.split("=") for line in out.split())
    return int(values["X"]), int(values["Y"])


async def test_every_action_type_arrives_at_a_real_window(server):
    recorder = subprocess.Popen([sys.executable, str(ROOT / "tests" / "x_events.py")], text=True,
                                stdout=subprocess.PIPE, env={**os.environ, "DISPLAY": server.display})
    assert recorder.stdout.readline() == "ready\n"
    vm = backend(server)
    try:
        await vm.reset(Task(task_id="t/actions", instruction="-"), 1)
        await vm.screenshot()  # the backend learns the screen size, as the episode's first observation does
        for action in [
            Click(point=Point(50, 60)), DoubleClick(point=Point(70, 80)), TripleClick(point=Point(60, 70)),
            RightClick(point=Point(90, 100)),
            Drag(point=Point(100, 110), end=Point(300, 200)), Scroll(direction="down", amount=2, point=Point(400, 300)),
            Scroll(direction="left", amount=1), Key(key="a", modifiers=("ctrl",)), Hotkey(keys=("shift", "tab")),
        ]:
            acted = await vm.act(1, action)
            assert acted.error is None, (action, acted.error)
        assert (await vm.act(1, Move(point=Point(0.5, 0.25, unit="norm")))).error is None
        assert pointer(server) == (512, 192)
        assert (await vm.act(1, Wait(seconds=0.1))).duration >= 0.1
        refused = await vm.act(1, TypeText(text="héllo"))
        assert "pyautogui cannot type 'é'" in refused.error
        outside = await vm.act(1, Click(point=Point(5000, 10)))
        assert "outside the 1024x768 screen" in outside.error
    finally:
        await vm.aclose()
        recorder.terminate()
    events = [json.loads(line) for line in recorder.stdout.read().splitlines()]
    presses = [(e["button"], e["x"], e["y"]) for e in events if e["type"] == "press"]
    releases = [(e["button"], e["x"], e["y"]) for e in events if e["type"] == "release"]
    keys = [(e["key"], e["ctrl"], e["shift"]) for e in events if e["type"] == "key"]
    assert presses[:9] == [(1, 50, 60), *[(1, 70, 80)] * 2, *[(1, 60, 70)] * 3, (3, 90, 100), (1, 100, 110),
                           (5, 400, 300)]
    assert presses[9:] == [(5, 400, 300), (6, 400, 300)]
    assert (1, 300, 200) in releases
    assert ("a", True, False) in keys and ("\t", False, True) in keys


class ScriptedWAAAgent:
    """Plays a fixed script per task; `("window", title)` clicks that window as found in the tree."""

    SCRIPTS = {
        "terminal/linux-note-WOS": [("window", "Notes"), TypeText(text="hello from troupe"), Key(key="enter"),
                                    Key(key="d", modifiers=("ctrl",)), Done()],
        "files/linux-mkdir-WOS": [("window", "Shell"), TypeText(text="mkdir ~/Documents/troupe"), Key(key="enter"),
                                  Done()],
        "settings/linux-json-settings-WOS": [
            ("window", "Shell"), TypeText(text="""echo '{"editor.fontSize": 14}' > ~/.config/editor/settings.json"""),
            Key(key="enter"), Wait(seconds=0.3), Done()],
        "store/INF-linux-paint-WOS": [Fail(reason="there is no Microsoft Store on this desktop")],
    }

    def __init__(self) -> None:
        self.seen: list[Decide] = []

    async def decide(self, request: Decide) -> Decision:
        self.seen.append(request)
        move = self.SCRIPTS[request.task.task_id][request.step - 1]
        if isinstance(move, tuple):
            window = next(e for e in request.observation.tree.walk() if e.role == "window" and e.name == move[1])
            move = Click(target=Target(node_id=window.node_id))
        return Decision(action=move, reasoning="scripted")


async def test_linux_waa_tasks_pass_end_to_end_through_the_waa_backend(server):
    tasks = Catalog.load(LINUX_TASKS).tasks
    assert len(tasks) == 4
    agent = ScriptedWAAAgent()
    runner = EpisodeRunner(
        crew=crew(lambda: agent, WAAChecker),
        vm_slot=functools.partial(run_local_host, lambda: actors_for(backend(server))),
        limits=Limits(call_seconds=60, tree_seconds=10),
    )
    results = await runner.run(tasks)
    assert {r.task_id: (r.success, r.reason) for r in results} == {
        "terminal/linux-note-WOS": (True, "exact_match=1, compare_text_file=1"),
        "files/linux-mkdir-WOS": (True, "exact_match=1"),
        "settings/linux-json-settings-WOS": (True, "check_json_settings=1"),
        "store/INF-linux-paint-WOS": (True, "infeasible task, and the agent said so"),
    }
    assert all(r.attempt == 1 for r in results)
    # The verdict and what the VM held never reach the agent.
    assert not any("vm_state" in repr(d.observation) or "exact_match=" in repr(d) for d in agent.seen)


async def test_a_task_the_agent_does_not_do_fails_as_the_agents_fault(server):
    task = Catalog.load(LINUX_TASKS).tasks[1]  # files/linux-mkdir-WOS

    class Quitter:
        async def decide(self, request: Decide) -> Decision:
            return Decision(action=Done())

    runner = EpisodeRunner(
        crew=crew(Quitter, WAAChecker),
        vm_slot=functools.partial(run_local_host, lambda: actors_for(backend(server))),
        limits=Limits(call_seconds=60, tree_seconds=10),
    )
    (result,) = await runner.run([task])
    assert not result.success and result.reason == "exact_match=0" and result.error_kind.value == "agent"
