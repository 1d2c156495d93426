"""The run folder: one durable line per task even across crashes and SIGKILL, clear errors
for files that are not ours, what a step leaves behind, and the metrics read back from it."""

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import anyio
import pytest

from actors.result_sink import ResultSink, ResultsError, episode_dir, read_results
from actors.run_folder import read_episodes, read_observation, read_steps, read_task
from bench.metrics import run_metrics
from protocols import (
    ChangeSummary, Done, EpisodeFinished, EpisodeResult, EpisodeStarted, Flush, Observation, StepRecord,
    StepSummarized, StepTaken, StepTimings, Task, UIElement, Viewport,
)
from runtime.actor import spawn
from tests.paths import ROOT

TASK = Task(task_id="forms/t1", instruction="Press done.", domain="forms")


async def tell_all(run_dir, *events):
    async with anyio.create_task_group() as tg:
        sink = await spawn(tg, ResultSink(run_dir))
        for event in events:
            await sink.tell(event)
        await sink.ask(Flush())
        tg.cancel_scope.cancel()


def finished(task_id="forms/t1", attempt=1, **fields):
    return EpisodeFinished(result=EpisodeResult(episode_id=f"{task_id}#{attempt}", task_id=task_id,
                                                attempt=attempt, **fields))


@pytest.mark.anyio
async def test_a_task_never_gets_a_second_result_line_not_even_from_a_later_sink(tmp_path):
    await tell_all(tmp_path, finished(success=True), finished(attempt=2))
    await tell_all(tmp_path, finished(attempt=3), finished("forms/t2"))
    lines = read_results(tmp_path)
    assert [(line.result.task_id, line.result.attempt) for line in lines] == [("forms/t1", 1), ("forms/t2", 1)]


@pytest.mark.anyio
async def test_result_lines_carry_tokens_cost_and_analysis_for_plain_tools(tmp_path):
    await tell_all(tmp_path, finished(success=True, score=1.0, steps=3, input_tokens=120, output_tokens=7, cost=0.25))
    line = json.loads((tmp_path / "results.jsonl").read_text())
    assert line["result"]["input_tokens"] == 120 and line["result"]["cost"] == 0.25
    assert line["result"]["success"] is True and line["result"]["steps"] == 3


@pytest.mark.anyio
async def test_a_step_leaves_its_record_summary_screens_observation_and_the_task(tmp_path):
    tree = UIElement(node_id="root", role="window", children=(UIElement(node_id="b", role="button", name="OK"),))
    before = Observation(screenshot=b"png-0", viewport=Viewport(800, 600), tree=tree, url="http://x/")
    record = StepRecord(episode_id="forms/t1#1", step=1, action=Done(), timings=StepTimings(agent=0.5, total=0.5))
    await tell_all(
        tmp_path,
        EpisodeStarted(episode_id="forms/t1#1", task_id="forms/t1", attempt=1, at=0.0, task=TASK),
        StepTaken(record=record, screenshot=b"png-1", before=before),
        StepSummarized(episode_id="forms/t1#1", summary=ChangeSummary(step=1, changes="nothing", asked_at=1.0,
                                                                       answered_at=1.25)),
    )
    folder = episode_dir(tmp_path, "forms/t1", 1)
    assert read_task(folder) == TASK
    (step,) = read_steps(folder)
    assert step.action == Done() and step.summary.changes == "nothing"
    seen = read_observation(folder, 1)
    assert seen.tree == tree and seen.screenshot == b"png-0" and seen.viewport == Viewport(800, 600)
    assert (folder / "step-001.png").read_bytes() == b"png-1"
    assert b"png-0" not in (folder / "observation-001.json").read_bytes()  # pixels only in PNGs


@pytest.mark.anyio
async def test_an_attempt_restarted_after_a_crash_starts_a_clean_folder(tmp_path):
    started = EpisodeStarted(episode_id="forms/t1#1", task_id="forms/t1", attempt=1, at=0.0, task=TASK)
    taken = StepTaken(record=StepRecord(episode_id="forms/t1#1", step=1, action=Done()))
    await tell_all(tmp_path, started, taken)  # the process dies here; the next run starts over
    await tell_all(tmp_path, started, taken, finished())
    assert len(read_steps(episode_dir(tmp_path, "forms/t1", 1))) == 1
    assert len((episode_dir(tmp_path, "forms/t1", 1) / "steps.jsonl").read_bytes().splitlines()) == 1


@pytest.mark.anyio
async def test_a_torn_line_left_mid_file_by_an_earlier_crash_is_skipped_and_the_run_resumed(tmp_path):
    (tmp_path / "results.jsonl").write_bytes(
        b'{"result":{"episode_id":"a#1","task_id":"a"}}\n{"result":{"episode_id":"b#1","ta')
    await tell_all(tmp_path, finished("c"))
    await tell_all(tmp_path, finished("b"))
    assert [line.result.task_id for line in read_results(tmp_path)] == ["a", "c", "b"]


def test_a_malformed_line_is_an_error_naming_the_file_line_and_fault(tmp_path):
    (tmp_path / "results.jsonl").write_bytes(
        b'{"result":{"episode_id":"a#1","task_id":"a"}}\n{"result":{"episode_id":"b#1","steps":"many"}}\n')
    with pytest.raises(ResultsError, match=r"results\.jsonl:2: malformed line: .*"):
        read_results(tmp_path)
    (tmp_path / "results.jsonl").write_bytes(b"not json at all\n")
    with pytest.raises(ResultsError, match=r"results\.jsonl:1: malformed line"):
        read_results(tmp_path)


def test_the_cli_refuses_to_resume_onto_a_results_file_that_is_not_ours(tmp_path):
    (tmp_path / "results.jsonl").write_text('{"result": 42}\n')
    result = subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", "sim", "--episodes", "1", "--out", str(tmp_path)],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "error:" in result.stderr and "results.jsonl:1: malformed line" in result.stderr


def cli(out, episodes, scale):
    return [sys.executable, "-m", "bench.supervisor", "--suite", "sim", "--episodes", str(episodes), "--concurrency", "2",
            "--scale", str(scale), "--agent-error-rate", "0", "--out", str(out)]


def test_resume_after_the_supervisor_is_killed_with_sigkill_leaves_one_line_per_episode(tmp_path):
    out = tmp_path / "run"
    process = subprocess.Popen(cli(out, 10, 0.05), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while len(read_results(out)) < 3:
            assert process.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    survived = {line.result.task_id for line in read_results(out)}
    assert 3 <= len(survived) < 10, "the kill must land mid-run"

    again = subprocess.run(cli(out, 10, 0.01), cwd=ROOT, capture_output=True, text=True, timeout=120,
                           env={**os.environ, "COLUMNS": "200"})
    assert again.returncode == 0, again.stderr
    assert f"{len(survived)} of 10 episodes already finished" in again.stdout
    lines = read_results(out)
    assert Counter(line.result.task_id for line in lines) == Counter({f"sim-0-{i:04d}": 1 for i in range(10)})
    for line in lines:
        steps = read_steps(episode_dir(out, line.result.task_id, line.result.attempt))
        assert [s.step for s in steps] == list(range(1, line.result.steps + 1))
    assert (out / "report.html").exists() and json.loads((out / "summary.json").read_text())["overall"]["episodes"] == 10


def test_metrics_split_step_time_by_actor_and_count_environment_errors(tmp_path):
    subprocess.run(cli(tmp_path, 3, 0.01), cwd=ROOT, check=True, capture_output=True, timeout=60)
    metrics = run_metrics(read_episodes(tmp_path, read_results(tmp_path))[0])
    assert "episodes" not in metrics and "environment_error_rate" not in metrics  # summary.py's figures
    actors = metrics["actor_seconds_per_step"]
    assert set(actors) == {"agent", "act", "observe", "screenshot", "tree", "summarizer"}
    assert actors["agent"] > 0 and actors["summarizer"] > 0 and actors["tree"] >= actors["screenshot"]
    assert metrics["input_tokens"] == 1000 * metrics["steps"]
    assert metrics["scored_steps"] == metrics["steps"]  # the sim suite knows every step's right action
    assert 0 < metrics["grounding_accuracy"] <= 1 and 0 < metrics["step_accuracy"] <= 1
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["metrics"]["steps"] == metrics["steps"]
    overall = summary["overall"]  # figures from results.jsonl, stated once, overall and per domain
    assert overall["environment_errors"] == 0 and overall["mean_steps"] == metrics["steps"] / 3
    assert overall["seconds_per_step"] > 0 and {"mean_steps", "seconds_per_step"}.isdisjoint(metrics)
