"""Whole-task verdicts: WAA's own `DesktopEnv.evaluate()` (its getters, metrics, `conj` and
exception handling, imported from ../shared/waa/reference) and troupe's getters and checker, on
the same guest answers, for every WAA task whose getters a stand-in guest can answer.

Each task is evaluated on the guests of `task_worlds.worlds`: solved, untouched, wrong content,
/file, /execute or the other endpoints answering 500, malformed answers, command output only on
stderr, the public expected file missing; and, for every task, with the agent's last action FAIL.
The guest is `windows_guest.WindowsGuest`, served by the stand-in on a real socket; WAA's
controller reaches it at its hard-coded port 5000 through the stand-in's path prefix.

Same outcome means the same score, or no score on both sides. WAA gives no score when
`evaluate()` raises (its run then records the task as an error): troupe's counterpart is an
evaluation error (`Refused`), never an agent failure. `evaluate()` itself decides which failure
is which (desktop_env.py):

- a one-function task: anything its result getter raises scores 0; its expected getter or
  metric raising is no score; a metric value that is not a number or bool scores 0;
- a several-function task: a result getter's FileNotFoundError scores 0 under "and" (under "or"
  the previous function's value is reused, or nothing, which raises), anything else it raises is
  no score, as is an expected getter or a metric raising;
- FAIL as the last action decides alone: 1 for an infeasible task, else 0.

Left out: the tasks whose getters drive a live browser over DevTools (open tabs, the active
tab, page contents, a page printed as PDF), which no stand-in answers (test_browser_linux runs
them on a real Chromium), and `postconfig`, whose steps run before the getters on both sides and
are the setup tests' business. WAA's verdicts do not depend on the event loop, so each is computed
once and compared with troupe's on both.
"""

from __future__ import annotations

import collections
import copy
import io
import itertools
import tempfile
from pathlib import Path
from typing import Any

import py7zr
import pytest

from actors.backends.waa.client import Retry, WAAClient, WAAUnavailable
from bench.suites.waa.catalog import Catalog
from bench.suites.waa.checker import WAAChecker
from bench.suites.waa.node import WAATaskSteps
from protocols import Click, Evaluate, Fail, Point, StepRecord, Task
from runtime.errors import Refused

from tests.suites.waa import reference
from tests.suites.waa.task_worlds import ENDPOINTS, specs, worlds
from tests.suites.waa.windows_guest import WindowsGuest
from tests.waa_servers import StandIn

pytestmark = pytest.mark.anyio

NO_SCORE = "no score"
UNAVAILABLE = "the VM taken as unavailable"
LIVE_BROWSER = frozenset({"open_tabs_info", "active_tab_info", "page_info", "active_tab_url_parse", "url_dashPart",
                          "pdf_from_url"})
"""Getters that drive the VM's browser over DevTools."""
PREFIX = "/vm:5000"


def _tasks() -> list[Task]:
    if not reference.TASKS.is_dir():
        return []
    return Catalog.load(reference.TASKS).tasks


def _getters(evaluator: dict) -> set[str]:
    return {spec["type"] for key in ("result", "expected") for spec in specs(evaluator.get(key))}


TASKS = [task for task in _tasks() if not _getters(task.evaluation_spec) & LIVE_BROWSER]
DOMAINS = sorted({task.domain for task in TASKS})
WAA_VERDICTS: dict[tuple[str, str, bool], Any] = {}
"""WAA's outcome by (task, guest, gave up): the same on either event loop."""
TALLY: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)


def evaluator_for(task: Task, url: str) -> dict[str, Any]:
    """The task's evaluator without postconfig, its public files served by the stand-in."""
    evaluator = copy.deepcopy(task.evaluation_spec)
    evaluator.pop("postconfig", None)
    for spec in specs(evaluator.get("expected")):
        if spec["type"] == "cloud_file":
            dests = spec["dest"] if spec.get("multi") else [spec["dest"]]
            paths = [f"{url}/files/{dest}" for dest in dests]
            spec["path"] = paths if spec.get("multi") else paths[0]
    return evaluator


class NoSteps:
    """The env's setup controller: postconfig is left out (see the module's docstring)."""

    def setup(self, config: list) -> None:
        pass


def waa_verdict(evaluator: dict, vm_ip: str, gave_up: bool) -> Any:
    """What WAA's `DesktopEnv.evaluate()` returns, as a float, or NO_SCORE when it raises."""
    desktop_env = reference.desktop_env()
    controller = reference.load("controllers.python").PythonController
    env = desktop_env.DesktopEnv.__new__(desktop_env.DesktopEnv)
    with tempfile.TemporaryDirectory() as cache:
        env.vm_ip, env.controller, env.setup_controller = vm_ip, controller(vm_ip=vm_ip), NoSteps()
        env.cache_dir_base, env.action_history = cache, ["FAIL"] if gave_up else []
        env._set_task_info({"id": "task", "instruction": "", "config": [], "evaluator": evaluator})
        try:
            return float(env.evaluate())
        except Exception as exc:  # noqa: BLE001 - WAA records no score for a task whose evaluation raised
            return f"{NO_SCORE} ({type(exc).__name__}: {exc})"[:300]


async def troupe_verdict(task: Task, evaluator: dict, client: WAAClient, gave_up: bool) -> Any:
    try:
        state = await WAATaskSteps().inspect(client, evaluator)
    except WAAUnavailable as exc:  # the supervisor's business (a VM to replace), never a verdict
        return f"{UNAVAILABLE} ({exc})"[:300]
    last = Fail(reason="infeasible") if gave_up else Click(point=Point(1, 1))
    request = Evaluate(task=Task(task_id=task.task_id, instruction="", domain=task.domain, evaluation_spec=evaluator),
                       episode_id="e", steps=(StepRecord(episode_id="e", step=1, action=last),), vm_state=state)
    try:
        return (await WAAChecker().check(request)).score
    except Refused as exc:
        return f"{NO_SCORE} ({exc})"[:300]


def asked(guest: str, requests: list[str]) -> bool:
    """Whether the guest named `guest` answers anything the task's getters asked of the guests
    before it (untouched and solved come first): one whose failures are all in endpoints
    the task never asks is the solved guest again."""
    paths = {request.split()[1] for request in requests}
    touched = {"/file answers 500": {"/file"}, "/execute answers 500": {"/execute"},
               "command output on stderr": {"/execute"}, "endpoints answer 500": set(ENDPOINTS)}
    return guest not in touched or bool(paths & touched[guest])


def same(waa: Any, troupe: Any) -> bool:
    """The same score, or no score on both sides (a VM taken as unavailable is neither)."""
    if isinstance(waa, str) or isinstance(troupe, str):
        return all(isinstance(side, str) and side.startswith(NO_SCORE) for side in (waa, troupe))
    return abs(waa - troupe) < 1e-9


def _readall(self) -> dict[str, io.BytesIO]:
    """py7zr 0.x's `SevenZipFile.readall()`, which WAA's zipped_folder_in_desktop calls: every
    member by name, as bytes (py7zr 1.x dropped it)."""
    with tempfile.TemporaryDirectory() as folder:
        self.extractall(path=folder)
        return {path.relative_to(folder).as_posix(): io.BytesIO(path.read_bytes())
                for path in Path(folder).rglob("*") if path.is_file()}


@pytest.fixture(scope="module")
def guest(request):
    reference.require()
    if not hasattr(py7zr.SevenZipFile, "readall"):  # WAA's getter was written against py7zr 0.x
        py7zr.SevenZipFile.readall = _readall
    windows = WindowsGuest(prefix=PREFIX)
    with StandIn(windows) as server:
        yield windows, server.url
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if TALLY and capture is not None:
        with capture.global_and_fixture_disabled():
            print("\nwhole-task verdicts, WAA's evaluate() against troupe's checker (agree/cases):")
            for domain, counts in sorted(TALLY.items()):
                print(f"  {domain:20} {counts['agree']}/{counts['cases']}")
            print(f"  {'all':20} {sum(c['agree'] for c in TALLY.values())}/{sum(c['cases'] for c in TALLY.values())}")


@pytest.mark.skipif(not TASKS, reason=f"the shared WAA tasks are not at {reference.TASKS}")
@pytest.mark.parametrize("domain", DOMAINS)
async def test_whole_task_verdicts_agree_with_waas_evaluate(guest, domain, anyio_backend):
    windows, url = guest
    vm_ip = url.removeprefix("http://") + PREFIX.removesuffix(":5000")
    client = WAAClient(url, retry=Retry(attempts=2, backoff=0.0))
    differences = []
    try:
        for task in (task for task in TASKS if task.domain == domain):
            evaluator = evaluator_for(task, url)
            windows.requests.clear()
            for (name, world), gave_up in itertools.product(worlds(evaluator).items(), (False, True)):
                if (gave_up and name != "untouched") or not asked(name, windows.requests):
                    continue
                windows.world = world
                key = (task.task_id, name, gave_up)
                if key not in WAA_VERDICTS:
                    WAA_VERDICTS[key] = waa_verdict(evaluator, vm_ip, gave_up)
                troupe = await troupe_verdict(task, evaluator, client, gave_up)
                agree = same(WAA_VERDICTS[key], troupe)
                if anyio_backend == "asyncio":
                    TALLY[domain]["cases"] += 1
                    TALLY[domain]["agree"] += agree
                if not agree:
                    differences.append(f"{task.task_id} [{name}{', gave up' if gave_up else ''}]: "
                                       f"WAA {WAA_VERDICTS[key]!r}, troupe {troupe!r}")
    finally:
        await client.aclose()
    assert not differences, "\n".join(differences)
