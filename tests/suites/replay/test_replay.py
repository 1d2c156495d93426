"""Static replay: scoring an action against a reference, and a run folder replayed on replay VMs
by the same EpisodeRunner as every other suite."""

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from actors.backends.replay import ReplayError, ReplayVM
from actors.episode import Outlets
from actors.result_sink import ResultSink, read_results
from actors.run_folder import episode_dir, read_episodes, read_screenshot, read_steps
from actors.runner import EpisodeRunner
from bench.metrics import run_metrics
from bench.scoring import grounded, step_matches
from actors.errors import ConfigError
from bench.suites.replay.suite import ReplaySuite
from protocols import (
    BBox, Click, Decision, Done, Drag, Flush, Key, Point, Scroll, Target, Task, TypeText, Viewport,
)
from runtime.actor import spawn
from runtime.host import run_local_host
from tests.paths import ROOT
from tests.crews import crew

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


class AlwaysEscape:
    """Never stops on its own: only the end of the recording ends its episodes."""

    async def decide(self, request):
        return Decision(action=Key(key="escape"))


async def replay(suite: ReplaySuite, policy, out: Path):
    """The suite's tasks run by the one EpisodeRunner on in-process replay VMs, into the run folder `out`."""
    async with anyio.create_task_group() as tg:
        sink = await spawn(tg, ResultSink(out))
        runner = EpisodeRunner(
            crew=crew(lambda: policy, suite.checker),
            vm_slot=functools.partial(run_local_host, suite.vm_actors()), concurrency=2, outlets=Outlets(sink=sink))
        results = await runner.run(suite.list_tasks())
        await sink.ask(Flush())
        tg.cancel_scope.cancel()
    assert len(results) == len(suite.list_tasks())
    return results


@pytest.mark.anyio
async def test_an_agent_that_gives_up_at_once_misses_every_recorded_step(recorded, tmp_path):
    results = await replay(ReplaySuite(recorded), AlwaysDone(), tmp_path)
    assert not any(r.success for r in results)
    for result in results:
        recorded_steps = read_steps(episode_dir(recorded, result.task_id, 1))
        n = len(recorded_steps)
        assert n > 1 and result.steps == 1 and result.score == 0.0
        assert result.reason.startswith(f"0/{n} steps match the reference ({n - 1} not reached)")
        step, = read_steps(episode_dir(tmp_path, result.task_id, 1))
        assert step.reference == recorded_steps[0].action  # the record keeps what it was scored against
    metrics = run_metrics(read_episodes(tmp_path, read_results(tmp_path))[0])
    assert metrics["scored_steps"] == len(results) and metrics["step_accuracy"] == 0.0
    assert metrics["grounded_steps"] > 0 and metrics["grounding_accuracy"] == 0.0


@pytest.mark.anyio
async def test_the_end_of_the_recording_ends_an_episode_the_agent_would_not(recorded, tmp_path):
    results = await replay(ReplaySuite(recorded), AlwaysEscape(), tmp_path)
    for result in results:
        before, after = episode_dir(recorded, result.task_id, 1), episode_dir(tmp_path, result.task_id, 1)
        recorded_steps, replayed = read_steps(before), read_steps(after)
        n = len(recorded_steps)
        assert result.steps == n and not result.success and result.score == 0.0
        assert result.reason.startswith(f"the recording ends after step {n}; 0/{n} steps match the reference")
        assert [r.reference for r in replayed] == [r.action for r in recorded_steps]
        assert [r.error for r in replayed] == [r.error for r in recorded_steps]  # the recorded feedback
        # teacher forcing: each screen is the recorded one, whatever the agent did
        assert all(read_screenshot(after, s) == read_screenshot(before, s) != b"" for s in range(n + 1))


@pytest.mark.anyio
async def test_a_task_with_nothing_recorded_is_refused_naming_it():
    vm = ReplayVM(lambda task: [])
    with pytest.raises(ReplayError, match="no recorded steps to replay for task 'sim-0-0001'"):
        await vm.reset(Task(task_id="sim-0-0001", instruction="x"), 1)
    with pytest.raises(ReplayError, match="the replay was not reset to a task"):
        await vm.screenshot()
    with pytest.raises(ReplayError, match="step 1: the recording has no step 1 to act on"):
        await vm.act(1, Done())


def test_a_replay_in_node_processes_is_refused_before_anything_is_written(recorded, tmp_path):
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", f"replay:{recorded}", "--vm", "node",
                             "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "--vm: suite 'replay' has no node app" in result.stderr
    assert not out.exists()


def test_an_unknown_replay_folder_is_refused_naming_it(tmp_path):
    missing = tmp_path / "nowhere"
    result = subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", f"replay:{missing}"],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and f"replay: {missing} is not a folder" in result.stderr
    with pytest.raises(ConfigError, match="holds no recorded episodes"):
        ReplaySuite(tmp_path)


@pytest.mark.parametrize("suite, message", [
    ("replay", "suite 'replay' needs RUN_DIR: --suite replay:RUN_DIR"),
    ("sim:x", "suite 'sim' takes nothing after ':'"),
    ("nope", "--suite 'nope': no such suite (choose from desktop, mind2web, miniwob, osworld, replay, sim, waa, or module:attr)"),
    ("nope:x", "--suite nope:x: cannot import 'nope'"),  # NAME:SOURCE of no known suite is a plugin
])
def test_the_suite_argument_says_what_is_wrong_with_it(suite, message):
    result = subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", suite],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and message in result.stderr
