"""No episode sees another's browser state, although the next episode's environment is made
while the current one runs: a cookie, localStorage, an origin-private file and a download left
by one episode are absent in the next, whose page was loaded ahead, and in the one after,
whose page was not the one predicted. Real Chromium in a node, driven from asyncio and trio."""

import functools
import http.server
import json
import time
from pathlib import Path

import anyio
import pytest

from actors.agent import Agent
from actors.episode import Outlets
from actors.evaluator import Evaluator
from actors.runner import CrewFactory, EpisodeRunner
from protocols import Click, Decide, Decision, Done, EpisodeStarted, Evaluate, Target, Task, Verdict, Wait
from runtime.events import EventBus
from runtime.http_server import LoopbackHTTPServer, QuietHandler
from runtime.limits import Limits
from runtime.remote import run_local_node

pytestmark = pytest.mark.anyio
PAGES = Path(__file__).parent / "fixtures" / "browser"
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


class Traces:
    """Clicks the task's buttons in turn, waits until the page shows what it found, then stops;
    the first episode thinks for a moment first, as an agent would, while the next one's page loads."""

    async def decide(self, request: Decide) -> Decision:
        leave = request.task.task_id == "leave"
        if leave and not request.history:
            return Decision(action=Wait(seconds=THINKING))
        buttons = ["Leave traces", "Look for traces"] if leave else ["Look for traces"]
        clicks = sum(isinstance(record.action, Click) for record in request.history)
        tree = request.observation.tree
        if clicks < len(buttons):
            button = next(e for e in tree.walk() if e.role == "button" and e.name == buttons[clicks])
            return Decision(action=Click(target=Target(node_id=button.node_id)))
        if any(e.name.startswith("found:") for e in tree.walk()):
            return Decision(action=Done())
        return Decision(action=Wait(seconds=0.05))


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
        crew=CrewFactory(agent=lambda: Agent(Traces()), evaluator=lambda: Evaluator(findings)),
        vm_slot=functools.partial(run_local_node, "actors.backends.browser.node:build", ready_timeout=60),
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
