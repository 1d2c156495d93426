"""Browser VMs in node processes, driven from asyncio and trio: a Chromium killed with
SIGKILL mid-episode costs a retry on a fresh node and nothing else (with a browser per VM
slot, and with one browser for several), and step errors reach the agent on its next step."""

import functools
import os
import subprocess
import sys
from collections import Counter

import pytest

from actors.backends.browser.processes import browser_mains
from actors.runner import EpisodeRunner
from bench.suites.miniwob.agent import ScriptedMiniWobAgent
from bench.suites.miniwob.suite import MiniWobChecker, miniwob_task
from protocols import Click, Decision, Done, Target
from runtime.events import EventBus
from runtime.remote import run_local_node
from runtime.seats import SharedNodes
from tests.faults import run_killing_after_first_step
from tests.crews import crew, node_runner

pytestmark = pytest.mark.anyio
BROWSER_APP = "bench.suites.miniwob.node:build"


def browser_processes() -> list[int]:
    return browser_mains(os.getpid())


def runner(policy, bus=None, **overrides) -> EpisodeRunner:
    return node_runner(crew(lambda: policy, MiniWobChecker), BROWSER_APP, bus, call_seconds=30, **overrides)


async def test_chromium_killed_mid_episode_is_restarted_and_only_its_episode_retried():
    tasks = [miniwob_task(name, 1) for name in ("click-checkboxes", "enter-password", "click-button-sequence")]
    bus = EventBus()
    results, _ = await run_killing_after_first_step(
        runner(ScriptedMiniWobAgent(), bus), bus, tasks, victim=lambda: browser_processes()[0])
    assert Counter(r.task_id for r in results) == Counter(t.task_id for t in tasks)  # one result each
    assert all(r.success for r in results), [r.reason for r in results]
    assert sorted(r.attempt for r in results) == [1, 1, 2]  # exactly one episode ran twice
    assert browser_processes() == []  # every browser stopped with its node


async def test_a_shared_chromium_killed_mid_run_costs_its_episodes_one_retry_each_on_a_fresh_browser():
    tasks = [miniwob_task(name, 1) for name in ("click-checkboxes", "enter-password", "click-button-sequence",
                                                "enter-text")]
    bus = EventBus()
    async with SharedNodes(functools.partial(run_local_node, BROWSER_APP, ready_timeout=60), seats=2) as nodes:
        results, _ = await run_killing_after_first_step(
            runner(ScriptedMiniWobAgent(), bus, vm_slot=nodes.slot), bus, tasks, victim=lambda: browser_processes()[0])
    assert Counter(r.task_id for r in results) == Counter(t.task_id for t in tasks)  # one result each
    assert all(r.success for r in results), [r.reason for r in results]
    attempts = Counter(r.attempt for r in results)
    assert set(attempts) <= {1, 2} and attempts[2] >= 1, attempts  # what ran on the killed browser ran again, once
    assert nodes.started == 2  # both slots moved to one fresh browser
    assert browser_processes() == []


class StaleClick:
    """Clicks an element id that does not exist, then reports what it was told."""

    def __init__(self) -> None:
        self.feedback: list[str | None] = []

    async def decide(self, request) -> Decision:
        self.feedback.append(request.history[-1].error if request.history else None)
        if request.step == 1:
            return Decision(action=Click(target=Target(node_id="987654")))
        return Decision(action=Done())


async def test_a_click_on_an_unknown_element_is_a_step_error_the_agent_sees_next_step():
    policy = StaleClick()
    (result,) = await runner(policy, concurrency=1).run([miniwob_task("click-button", 2)])
    assert policy.feedback == [None, "element 987654 no longer exists on the page"]
    assert result.attempt == 1 and not result.success  # the node survived; the agent simply did not succeed


def test_a_miniwob_node_does_not_load_the_harness_or_the_other_suites():
    """Every browser node imports its app when it starts (K of them at once, and again on each
    restart): it pays for the MiniWoB site, not for bench's API and the WAA suite's libraries."""
    code = ("import sys, bench.suites.miniwob.node; "
            "print(sorted(m for m in ('bench.api', 'bench.config', 'bench.suites.waa.suite', 'cv2', 'httpx') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"
