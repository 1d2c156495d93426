"""A stand-in for OSWorld's in-VM server (its Flask app on port 5000), on a real socket on 127.0.0.1;
and episodes on troupe's own local desktops in OSWorld's dialect, with an oracle.

It answers as OSWorld's server answers, where that differs from WAA's: no
/probe (404), /platform, /screen_size, /terminal, and an accessibility tree
in OSWorld's own XML (the `accessibility.ubuntu.example.org` namespaces).
Commands sent to /execute and /setup/execute answer from `outputs` (by the
JSON of their `command`), the others as an empty success.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from actors.agent import Agent
from actors.backends.waa.client import Retry, WAAClient
from actors.evaluator import Evaluator
from actors.runner import CrewFactory, EpisodeRunner
from bench.suites.osworld.checker import OSWorldChecker
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import GetterFailed
from bench.suites.osworld.getters import resolve
from bench.suites.osworld.node import LOCAL, actors_for, osworld_backend
from protocols import Decide, Decision, Done, EpisodeResult, Fail, Task
from runtime.host import run_local_host
from runtime.limits import Limits

from tests.waa_servers import Behaviour, StandIn

UBUNTU = "https://accessibility.ubuntu.example.org/ns"
TREE = (f'<desktop-frame xmlns:st="{UBUNTU}/state" xmlns:cp="{UBUNTU}/component" xmlns:attr="{UBUNTU}/attributes">'
        '<application name="gnome-terminal-server"><frame name="Terminal" st:active="true" st:showing="true" '
        'cp:screencoord="(10, 20)" cp:size="(300, 200)"/></application></desktop-frame>')
SCREEN = (1920, 1080)


def osworld_vm(outputs: dict[str, str] | None = None, *, files: dict[str, bytes] | None = None,
               terminal: str | None = None, refusing: dict[str, tuple[int, bytes]] | None = None) -> Behaviour:
    """A Behaviour answering as OSWorld's server: `outputs` by the JSON of a command, `files` by VM path
    (and at /files/<name> as a web server), `terminal` as /terminal's output."""
    outputs = outputs or {}

    def answer(path: str, body: dict) -> tuple[int, bytes] | None:
        if path == "/screen_size":
            return 200, json.dumps({"width": SCREEN[0], "height": SCREEN[1]}).encode()
        if path in ("/execute", "/setup/execute"):
            output = outputs.get(json.dumps(body.get("command")), "")
            return 200, json.dumps({"status": "success", "output": output, "error": "", "returncode": 0}).encode()
        if path.startswith("/setup/"):
            return 200, b"done"
        return None

    return Behaviour(answer=answer, files=dict(files or {}), refusing=dict(refusing or {}), gets={
        "/probe": (404, b"<!doctype html><title>404 Not Found</title>"),
        "/platform": (200, b"Linux"),
        "/terminal": (200, json.dumps({"output": terminal, "status": "success"}).encode()),
        "/accessibility?backend=uia": (200, json.dumps({"AT": TREE}).encode()),
    })




async def getter_outcome(url: str, spec: dict) -> object:
    """What troupe's getter `spec` reads from the server at `url` (a 5xx retried once, briefly), or
    "raises" where it fails as OSWorld's getter raises: the outcome the getter parity tests compare."""
    client = WAAClient(url, retry=Retry(attempts=2, backoff=0.01))
    try:
        return await resolve(Episode(client, None), spec)
    except GetterFailed:
        return "raises"
    finally:
        await client.aclose()


class Oracle:
    """Per task: Done at once when there is no `solve`; else Fail on an infeasible task, or
    `await solve(server, task)` (the episode's local server) and then Done."""

    def __init__(self, backend, solve) -> None:
        self.backend, self.solve = backend, solve

    async def decide(self, request: Decide) -> Decision:
        if self.solve is None:
            return Decision(action=Done())
        if request.task.evaluation_spec.get("func") == "infeasible":
            return Decision(action=Fail(reason="this cannot be done here"))
        await self.solve(self.backend.server, request.task)
        return Decision(action=Done())


async def run_on_local_desktops(tasks: list[Task], solve=None, call_seconds: float = 60,
                                cache: Path | None = None) -> dict[str, EpisodeResult]:
    """The episodes of `tasks`, each on a fresh local desktop in OSWorld's dialect (task files from
    `cache`, in OSWorld's cache layout), by task id."""
    backend = osworld_backend(LOCAL, cache=cache, probe=Retry(attempts=20, backoff=0.2), settle_timeout=0.5)
    runner = EpisodeRunner(crew=CrewFactory(agent=lambda: Agent(Oracle(backend, solve)),
                                            evaluator=lambda: Evaluator(OSWorldChecker())),
                           vm_slot=functools.partial(run_local_host, lambda: actors_for(backend)),
                           limits=Limits(call_seconds=call_seconds), max_attempts=1)
    return {result.task_id: result for result in await runner.run(tasks)}
