"""The command that finds settings writes still pending, run by a real shell on real processes: a process
whose thread is named as LibreOffice's settings writer (a copy of `sleep` named configmgrWriter) counts
for the desktop whose display its environment names, and never for another episode's desktop on the same
machine. Against a stand-in for an OSWorld VM's server: the evaluation waits while the VM reports a
pending write and names the wait in the verdict, and evaluates anyway after SETTLE_SECONDS, saying so.
That LibreOffice itself is waited for is proven on the real application in test_local_cache.py (the
presenter-console task)."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from actors.backends.waa.client import Retry
from actors.runner import EpisodeRunner
from bench.suites.osworld import settling
from bench.suites.osworld.checker import OSWorldChecker
from bench.suites.osworld.node import actors_for, osworld_backend
from bench.suites.osworld.settling import PENDING
from protocols import Decide, Decision, Done, Task
from runtime.host import run_local_host
from runtime.limits import Limits

from tests.crews import crew
from tests.osworld_servers import StandIn, osworld_vm


@pytest.fixture
def writer(tmp_path: Path):
    """A process whose only thread is named configmgrWriter, on display :4711."""
    program = tmp_path / "configmgrWriter"
    shutil.copy(shutil.which("sleep"), program)
    process = subprocess.Popen([str(program), "30"], env={**os.environ, "DISPLAY": ":4711"})
    yield process
    process.kill()
    process.wait()


def pending_on(display: str) -> list[str]:
    done = subprocess.run(["sh", "-c", PENDING], env={**os.environ, "DISPLAY": display}, capture_output=True,
                          text=True, timeout=30, check=True)
    return done.stdout.split()


def test_a_pending_writer_counts_on_its_own_desktop(writer):
    assert pending_on(":4711") == ["configmgrWriter"]


def test_a_pending_writer_on_another_desktop_does_not_count(writer):
    assert pending_on(":4712") == []


def test_nothing_is_pending_once_the_writer_is_gone(writer):
    writer.kill()
    writer.wait()
    assert pending_on(":4711") == []


TERMINAL = Task(task_id="os/t", domain="os", instruction="-", raw_config={"id": "t", "config": []},
                evaluation_spec={"func": "check_include_exclude", "result": {"type": "vm_terminal_output"},
                                 "expected": {"type": "rule", "rules": {"include": ["43 132"]}}})


class DoneAtOnce:
    async def decide(self, request: Decide) -> Decision:
        return Decision(action=Done())


async def evaluated_while_pending(answers: int) -> tuple[str, int]:
    """An episode on a stand-in VM whose /execute reports LibreOffice's writer pending for its first
    `answers` asks: the verdict's reason, and how often it was asked."""
    behaviour = osworld_vm(terminal="43 132")
    stand_in, asked = behaviour.answer, []

    def answer(path: str, body: dict) -> tuple[int, bytes] | None:
        if path == "/execute" and body.get("command") == PENDING:
            asked.append(path)
            output = "configmgrWriter\n" if len(asked) <= answers else ""
            return 200, json.dumps({"status": "success", "output": output, "error": "", "returncode": 0}).encode()
        return stand_in(path, body)

    behaviour.answer = answer
    with StandIn(behaviour) as server:
        fast = Retry(attempts=2, backoff=0.05)
        build = functools.partial(actors_for, osworld_backend(server.url, retry=fast, probe=fast, settle_timeout=0.3))
        (result,) = await EpisodeRunner(crew=crew(DoneAtOnce, OSWorldChecker),
                                        vm_slot=functools.partial(run_local_host, build),
                                        limits=Limits(call_seconds=30), max_attempts=1).run([TERMINAL])
    assert result.score == 1.0, result.reason
    return result.reason, len(asked)


@pytest.mark.anyio
async def test_the_evaluation_waits_while_the_vm_reports_a_pending_settings_write():
    reason, asked = await evaluated_while_pending(3)
    assert asked == 4
    assert "before evaluating, waited " in reason and "LibreOffice's settings (registrymodifications.xcu)" in reason


@pytest.mark.anyio
async def test_a_write_still_pending_after_the_bound_is_named_and_the_task_evaluated(monkeypatch):
    monkeypatch.setattr(settling, "SETTLE_SECONDS", 0.5)
    reason, asked = await evaluated_while_pending(10_000)
    assert "LibreOffice's settings (registrymodifications.xcu) still unwritten after 0.5 s; evaluated anyway" in reason


@pytest.mark.anyio
async def test_nothing_pending_costs_one_ask():
    reason, asked = await evaluated_while_pending(0)
    assert asked == 1 and reason == "check_include_exclude=1"
