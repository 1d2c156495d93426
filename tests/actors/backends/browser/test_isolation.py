"""No episode sees another's browser state, although the next episode's environment is made
while the current one runs: a cookie, localStorage, an origin-private file and a download left
by one episode are absent in the next, whose page was loaded ahead, and in the one after,
whose page was not the one predicted; nor in an episode that runs at the same time on another
VM slot of the same browser. Real Chromium in a node, driven from asyncio and trio."""

import functools
import http.server
import json
import time

import anyio
import pytest

from actors.episode import Outlets
from actors.runner import EpisodeRunner
from protocols import Click, Decide, Decision, Done, EpisodeStarted, Evaluate, Target, Task, Verdict, Wait
from runtime.events import EventBus
from runtime.http_server import LoopbackHTTPServer, QuietHandler
from runtime.limits import Limits
from runtime.remote import run_local_node
from runtime.seats import SharedNodes
from tests.paths import FIXTURES
from tests.crews import crew

pytestmark = pytest.mark.anyio
BROWSER_APP = "actors.backends.browser.node:build"
PAGES = FIXTURES / "browser"
THINKING = 0.5
"""Seconds the first episode's agent thinks: more than making the next environment takes, even on a
loaded machine."""


class _Handler(QuietHandler, http.server.SimpleHTTPRequestHandler):
    pass


@pytest.fixture(scope="module")
def pages():
    """The fixture pages over loopback HTTP: cookies and origin-private files need a real origin."""
    with LoopbackHTTPServer(functools.partial(_Handler, directory=str(PAGES)), name="pages") as server:
        yield server.url


def traces_step(request: Decide) -> Decision | None:
    """The next click on the task's buttons (`leave`: leave traces, then look; the others only
    look), a short wait until the page shows what it found, then None."""
    buttons = ["Leave traces", "Look for traces"] if request.task.task_id == "leave" else ["Look for traces"]
    clicks = sum(isinstance(record.action, Click) for record in request.history)
    tree = request.observation.tree
    if clicks < len(buttons):
        button = next(e for e in tree.walk() if e.role == "button" and e.name == buttons[clicks])
        return Decision(action=Click(target=Target(node_id=button.node_id)))
    if not any(e.name.startswith("found:") for e in tree.walk()):
        return Decision(action=Wait(seconds=0.05))
    return None


class Traces:
    """Clicks the task's buttons in turn, waits until the page shows what it found, then stops;
    the first episode thinks for a moment first, as an agent would, while the next one's page loads."""

    async def decide(self, request: Decide) -> Decision:
        if request.task.task_id == "leave" and not request.history:
            return Decision(action=Wait(seconds=THINKING))
        return traces_step(request) or Decision(action=Done())


class Findings:
    """Keeps what each episode's page found and downloaded, and when its page began loading."""

    def __init__(self) -> None:
        self.by_task: dict[str, dict] = {}

    async def check(self, request: Evaluate) -> Verdict:
        state = request.vm_state
        self.by_task[request.task.task_id] = {**state["globals"], "downloads": state["downloads"], "url": state["url"]}
        return Verdict(success=state["globals"]["found"] is not None, reason=json.dumps(state["globals"]["found"]))


def task(task_id: str, url: str) -> Task:
    return Task(task_id=task_id, instruction="test", raw_config={"browser": {"start": url, "viewport": [400, 300]}},
                evaluation_spec={"globals": ["found", "loadedAt"]})


async def test_an_episode_finds_nothing_of_the_one_before_although_its_page_was_loaded_ahead(pages):
    findings, bus, started = Findings(), EventBus(), {}
    runner = EpisodeRunner(
        crew=crew(Traces, lambda: findings),
        vm_slot=functools.partial(run_local_node, BROWSER_APP, ready_timeout=60),
        limits=Limits(call_seconds=30, max_steps=40), outlets=Outlets(bus=bus),
    )

    async def note_starts() -> None:
        with bus.subscribe() as events:
            async for event in events:
                if isinstance(event, EpisodeStarted):
                    started[event.task_id] = time.time()  # just before the VM is asked to reset

    page = f"{pages}/traces.html"
    async with anyio.create_task_group() as tg:
        tg.start_soon(note_starts)
        await anyio.sleep(0)
        results = await runner.run([task("leave", page), task("look", page), task("elsewhere", f"{page}?elsewhere")])
        tg.cancel_scope.cancel()
    assert all(r.success for r in results), [r.reason for r in results]
    leave, look, elsewhere = (findings.by_task[name] for name in ("leave", "look", "elsewhere"))

    # The traces are real: the episode that left them finds every one.
    assert leave["found"] == {"cookie": "trace=1", "local": "1", "files": ["trace.txt"]}
    assert leave["downloads"] == ["trace.txt"]
    nothing = {"cookie": "", "local": None, "files": []}
    assert look["found"] == nothing and look["downloads"] == []
    assert elsewhere["found"] == nothing and elsewhere["downloads"] == []
    # The second episode's page began loading before that episode started (while the first ran), in
    # a context of its own; the page prepared after that was not the one the third wanted, which got
    # its own, loaded at its reset.
    assert look["loadedAt"] / 1000 < started["look"]
    assert elsewhere["url"].endswith("?elsewhere") and elsewhere["loadedAt"] / 1000 > started["elsewhere"]


class Together:
    """Two episodes at once: `leave` leaves its traces and finds them, then waits while `look`,
    which starts looking only once they are there, looks for them in its own context."""

    def __init__(self) -> None:
        self.left, self.looked = anyio.Event(), anyio.Event()

    async def decide(self, request: Decide) -> Decision:
        leave = request.task.task_id == "leave"
        if not leave and not request.history:
            await self.left.wait()
        step = traces_step(request)
        if step is not None:
            return step
        (self.left if leave else self.looked).set()
        if leave:
            await self.looked.wait()  # its context, traces and all, stays open while the other looks
        return Decision(action=Done())


async def test_two_slots_of_one_browser_at_the_same_time_see_nothing_of_each_other(pages):
    findings, together = Findings(), Together()
    page = f"{pages}/traces.html"
    async with SharedNodes(functools.partial(run_local_node, BROWSER_APP, ready_timeout=60), seats=2) as nodes:
        runner = EpisodeRunner(
            crew=crew(lambda: together, lambda: findings),
            vm_slot=nodes.slot, concurrency=2, limits=Limits(call_seconds=20, max_steps=40),
        )
        results = await runner.run([task("leave", page), task("look", page)])
    assert all(r.success and r.attempt == 1 for r in results), [r.reason for r in results]
    assert nodes.started == 1  # one node, one browser, for both slots
    leave, look = findings.by_task["leave"], findings.by_task["look"]
    assert leave["found"] == {"cookie": "trace=1", "local": "1", "files": ["trace.txt"]}
    assert leave["downloads"] == ["trace.txt"]
    assert look["found"] == {"cookie": "", "local": None, "files": []} and look["downloads"] == []
