"""Static replay: scoring an action against a reference, and a run folder replayed with no VM."""

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from actors.agent import Agent
from actors.episode import Outlets
from actors.evaluator import Evaluator
from actors.result_sink import ResultSink, read_results
from actors.run_folder import episode_dir, read_steps
from bench.metrics import run_metrics
from bench.scoring import grounded, step_matches
from bench.static import StaticRunner
from bench.suites.base import SuiteError
from bench.suites.replay import ReplaySuite
from protocols import (
    BBox, Click, Decision, Done, Drag, Flush, Key, Point, Scroll, Target, TypeText, Viewport,
)
from runtime.actor import spawn

ROOT = Path(__file__).resolve().parents[1]
VIEW = Viewport(1000, 500)
SUBMIT = Target(node_id="b7", bbox=BBox(100, 100, 50, 20), name="Submit")


@pytest.mark.parametrize("action, reference, same, inside", [
    (Click(target=SUBMIT), Click(target=SUBMIT), True, True),
    (Click(point=Point(120, 110)), Click(target=SUBMIT), True, True),
    (Click(point=Point(0.12, 0.22, unit="norm")), Click(target=SUBMIT), True, True),
    (Click(point=Point(300, 300)), Click(target=SUBMIT), False, False),
    (Click(target=Target(node_id="b8", bbox=BBox(100, 100, 50, 20))), Click(target=SUBMIT), False, True),
    (TypeText(text="Alice ", target=SUBMIT), TypeText(text="alice", target=SUBMIT), True, True),
    (TypeText(text="bob", target=SUBMIT), TypeText(text="alice", target=SUBMIT), False, True),
    (Click(target=SUBMIT), TypeText(text="alice", target=SUBMIT), False, True),
    (Key(key="enter"), Key(key="enter"), True, None),
    (Key(key="tab"), Key(key="enter"), False, None),
    (Key(key="a", modifiers=("ctrl",)), Key(key="a"), False, None),
    (Scroll(direction="down"), Scroll(direction="down", amount=5), True, None),
    (Click(point=Point(510, 240)), Click(point=Point(500, 250)), True, None),
    (Click(point=Point(600, 250)), Click(point=Point(500, 250)), False, None),
    (Drag(point=Point(1, 1), end=Point(500, 250)), Drag(point=Point(2, 2), end=Point(900, 250)), False, None),
    (Drag(point=Point(1, 1), end=Point(500, 250)), Drag(point=Point(2, 2), end=Point(505, 250)), True, None),
    (Done(), Done(), True, None),
])
def test_step_and_grounding_scores(action, reference, same, inside):
    assert step_matches(action, reference, VIEW) is same
    assert grounded(action, reference, VIEW) is inside


def record(out, *args):
    result = subprocess.run(
        [sys.executable, "-m", "bench.supervisor", "--concurrency", "2", "--out", str(out), *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A simulated run whose agent makes mistakes: a dataset with wrong clicks in it."""
    out = tmp_path_factory.mktemp("recorded")
    record(out, "--suite", "sim", "--episodes", "4", "--scale", "0.002", "--agent-error-rate", "0.3")
    return out


def test_the_cli_replays_a_run_folder_with_the_same_agent_and_every_step_matches(recorded, tmp_path):
    result = record(tmp_path, "--suite", f"replay:{recorded}", "--agent", "sim")
    assert "replay" in result.stdout
    lines = read_results(tmp_path)
    assert sorted(line.result.task_id for line in lines) == sorted(line.result.task_id for line in read_results(recorded))
    metrics = json.loads((tmp_path / "summary.json").read_text())["metrics"]
    steps = sum(line.result.steps for line in read_results(recorded))
    assert metrics["scored_steps"] == steps and metrics["step_accuracy"] == 1.0
    assert metrics["grounded_steps"] > 0 and metrics["grounding_accuracy"] == 1.0
    assert all(line.result.success and line.result.score == 1.0 for line in lines)
    # the replay's own folder is a dataset in the same layout: replay it again
    again = ReplaySuite(tmp_path)
    assert len(again.list_tasks()) == len(lines)


class AlwaysDone:
    async def decide(self, request):
        return Decision(action=Done())


@pytest.mark.anyio
async def test_an_agent_that_gives_up_at_once_only_matches_the_final_steps(recorded, tmp_path):
    suite = ReplaySuite(recorded)
    tasks = suite.list_tasks()
    async with anyio.create_task_group() as tg:
        sink = await spawn(tg, ResultSink(tmp_path))
        runner = StaticRunner(suite, agent=lambda: Agent(AlwaysDone()), evaluator=lambda: Evaluator(suite.checker()),
                              concurrency=2, outlets=Outlets(sink=sink))
        results = await runner.run(tasks)
        await sink.ask(Flush())
        tg.cancel_scope.cancel()
    assert len(results) == len(tasks) and not any(r.success for r in results)
    for result in results:
        recorded_steps = read_steps(episode_dir(recorded, result.task_id, 1))
        assert result.steps == len(recorded_steps)
        assert result.score == pytest.approx(1 / len(recorded_steps))  # only the closing `done`
        assert result.reason.startswith(f"1/{len(recorded_steps)} steps match")
    metrics = run_metrics(tmp_path)
    assert metrics["grounding_accuracy"] == 0.0 and 0 < metrics["step_accuracy"] < 0.5


def test_an_unknown_replay_folder_is_refused_naming_it(tmp_path):
    missing = tmp_path / "nowhere"
    result = subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", f"replay:{missing}"],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and f"replay: {missing} is not a folder" in result.stderr
    with pytest.raises(SuiteError, match="holds no recorded episodes"):
        ReplaySuite(tmp_path)


@pytest.mark.parametrize("suite, message", [
    ("replay", "suite 'replay' needs RUN_DIR: --suite replay:RUN_DIR"),
    ("sim:x", "suite 'sim' takes nothing after ':'"),
    ("nope:x", "invalid choice: 'nope'"),
])
def test_the_suite_argument_says_what_is_wrong_with_it(suite, message):
    result = subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", suite],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and message in result.stderr
