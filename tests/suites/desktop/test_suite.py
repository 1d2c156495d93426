"""The desktop suite end to end: the scripted baseline on real desktops, and desktops that die
mid-episode (Xvfb or the application killed for real) retried on fresh ones."""

import functools
from collections import Counter

import pytest

from actors.episode import Outlets
from bench.suites.desktop.checker import OSStateChecker
from actors.runner import EpisodeRunner
from actors.backends.x11.node import build
from bench.suites.desktop.agent import DesktopScriptedPolicy
from bench.suites.desktop.suite import TASKS, to_task
from runtime.events import EventBus
from runtime.host import run_local_host
from runtime.limits import Limits
from runtime.remote import run_local_node
from tests.faults import descendants, run_killing_after_first_step
from tests.crews import crew

pytestmark = pytest.mark.anyio
SOLVED = ["editor-append-line", "editor-replace-word", "files-create-folder", "files-rename",
          "settings-git-user-name"]


def tasks(*ids):
    return [to_task(spec) for spec in TASKS if spec["id"] in ids]


def runner(vm_slot, bus=None, concurrency=1):
    return EpisodeRunner(
        crew=crew(DesktopScriptedPolicy, OSStateChecker),
        vm_slot=vm_slot, limits=Limits(call_seconds=30, max_steps=10), concurrency=concurrency,
        outlets=Outlets(bus=bus or EventBus()),
    )


async def test_the_scripted_baseline_solves_five_tasks_on_real_desktops():
    results = await runner(functools.partial(run_local_host, build), concurrency=3).run(tasks(*SOLVED))
    assert sorted(r.task_id for r in results) == sorted(SOLVED)
    assert all(r.success for r in results), [(r.task_id, r.reason) for r in results]


@pytest.mark.parametrize("victim", [b"Xvfb", b"mousepad"])
async def test_a_desktop_killed_mid_episode_is_replaced_and_the_episode_retried(victim, anyio_backend):
    if (victim, anyio_backend) not in {(b"Xvfb", "asyncio"), (b"mousepad", "trio")}:
        pytest.skip("one victim per event loop keeps the suite fast; both loops see a kill")
    bus = EventBus()
    slot = functools.partial(run_local_node, "actors.backends.x11.node:build")
    results, _ = await run_killing_after_first_step(
        runner(slot, bus), bus, tasks("editor-write-note"), victim=lambda: descendants(victim)[0])
    assert Counter(r.task_id for r in results) == {"editor-write-note": 1}
    (result,) = results
    assert result.success and result.attempt == 2, result.reason
    assert descendants(b"Xvfb") == [] and descendants(b"mousepad") == []  # nothing left behind
