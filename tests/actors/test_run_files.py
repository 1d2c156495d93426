"""Damaged run folders (issue 17): what a crash, a hand edit or a copied file can leave in a real
run folder never blocks a resume, never counts a task twice, and never hides the rest of a run."""

import json
import os
import shutil
import subprocess
import sys

import anyio
import msgspec
import pytest

import bench
from actors.result_sink import ResultSink
from actors.run_folder import count_results, read_results
from protocols import EpisodeFinished, EpisodeResult, Flush
from runtime.actor import spawn
from tests.paths import ROOT

EPISODES = 4


def supervisor(out, *args):
    """The real CLI; its exit code, stdout and stderr."""
    return subprocess.run([sys.executable, "-m", "bench.supervisor", "--out", str(out), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})


def sim(out, episodes=EPISODES):
    return supervisor(out, "--suite", "sim", "--scale", "0.001", "--episodes", str(episodes), "--concurrency", "2")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A finished simulated run of EPISODES tasks, made by the CLI; each test damages a copy."""
    out = tmp_path_factory.mktemp("recorded") / "run"
    done = sim(out)
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture
def run(recorded, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(recorded, copy)
    return copy


def summary(run):
    return json.loads((run / "summary.json").read_text())


def a_task(run):
    return read_results(run)[0].result.task_id


def test_a_nul_tail_left_by_a_crash_is_a_torn_line_and_the_run_resumes(run):
    """A crash after the file grew but before its data reached the disk leaves zeros, not a
    prefix of a line: the resume skips them and runs the tasks still missing."""
    with (run / "results.jsonl").open("ab") as file:
        file.write(b"\0" * 64)
    resumed = sim(run, EPISODES + 2)
    assert resumed.returncode == 0, resumed.stderr
    assert len(read_results(run)) == EPISODES + 2
    assert summary(run)["overall"]["episodes"] == EPISODES + 2


@pytest.mark.anyio
async def test_the_sink_resumes_after_a_nul_tail_and_its_next_line_stands_alone(run):
    with (run / "results.jsonl").open("ab") as file:
        file.write(b'{"result":{"episode_id":"x#1"' + b"\0" * 64)
    async with anyio.create_task_group() as tg:
        sink = await spawn(tg, ResultSink(run))
        await sink.tell(EpisodeFinished(result=EpisodeResult(episode_id="late#1", task_id="late")))
        await sink.ask(Flush())
        tg.cancel_scope.cancel()
    assert [line.result.task_id for line in read_results(run)][EPISODES:] == ["late"]


def test_zeros_in_place_of_a_line_mid_file_are_skipped(run):
    """What a resume onto a NUL tail leaves: the zeros closed by a newline, later lines after them."""
    lines = (run / "results.jsonl").read_bytes().splitlines(keepends=True)
    (run / "results.jsonl").write_bytes(lines[0] + b"\0" * 100 + b"\n" + b"".join(lines[2:]))
    assert len(read_results(run)) == EPISODES - 1


def test_a_duplicate_line_and_a_foreign_task_are_ignored_and_named(run):
    first = (run / "results.jsonl").read_bytes().splitlines(keepends=True)[0]
    foreign = json.loads(first)
    foreign["result"].update(task_id="elsewhere/x", episode_id="elsewhere/x#1", success=False)
    with (run / "results.jsonl").open("ab") as file:
        file.write(first + json.dumps(foreign).encode() + b"\n")
    resumed = sim(run)
    assert resumed.returncode == 0, resumed.stderr
    written = summary(run)
    assert written["overall"]["episodes"] == EPISODES
    assert sum(figures["episodes"] for figures in written["domains"].values()) == EPISODES
    assert written["ignored"] == {"duplicates": [a_task(run)], "foreign": ["elsewhere/x"]}
    assert "ignored" in resumed.stdout and "elsewhere/x" in resumed.stdout and a_task(run) in resumed.stdout
    report = (run / "report.html").read_text()
    assert "ignored 1 results.jsonl line(s), foreign: elsewhere/x" in report.split('id="episodes"')[0]
    assert "elsewhere/x" not in report.split('id="episodes"')[1]
    assert [line.result.task_id for line in bench.load_run(run).results].count(a_task(run)) == 1


def test_the_first_line_of_a_task_counts_and_without_a_selection_nothing_is_foreign(run):
    lines = read_results(run)
    later = msgspec.structs.replace(lines[0], summary="a second verdict")
    counted = count_results([*lines, later])
    assert counted.lines == lines and counted.duplicates == (lines[0].result.task_id,) and counted.foreign == ()
    chosen = count_results(lines, {lines[1].result.task_id})
    assert chosen.lines == [lines[1]] and len(chosen.foreign) == EPISODES - 1


def test_a_clean_run_ignores_nothing(recorded):
    written = summary(recorded)
    assert "ignored" not in written and "unreadable_episodes" not in written


def test_garbage_in_one_episodes_steps_names_that_episode_and_summarises_the_rest(run):
    broken = a_task(run)
    with (run / "episodes" / broken / "1" / "steps.jsonl").open("ab") as file:
        file.write(b"this is not json\n")
    resumed = sim(run)
    assert resumed.returncode == 0, resumed.stderr
    written = summary(run)
    assert written["overall"]["episodes"] == EPISODES
    assert list(written["unreadable_episodes"]) == [broken]
    assert "steps.jsonl:" in written["unreadable_episodes"][broken]
    healthy = sum(line.result.steps for line in read_results(run) if line.result.task_id != broken)
    assert written["metrics"]["steps"] == healthy
    assert f"unreadable episode {broken}" in resumed.stdout
    report = (run / "report.html").read_text()
    assert "unreadable" in report and "steps.jsonl" in report


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_a_garbled_observation_in_a_replayed_run_is_that_episodes_error_naming_the_file(run, tmp_path, backend,
                                                                                       caplog):
    broken = a_task(run)
    observation = run / "episodes" / broken / "1" / "observation-001.json"
    observation.write_bytes(b"{garbled")
    replayed = bench.run_sync(f"replay:{run}", backend=backend, agent="sim", out=tmp_path / "replay", max_attempts=1)
    results = {line.result.task_id: line.result for line in replayed.results}
    assert len(results) == EPISODES
    assert results[broken].error_kind.value == "environment" and str(observation) in results[broken].reason
    assert all(result.success for task, result in results.items() if task != broken)
    assert not [record.getMessage() for record in caplog.records if record.exc_info]  # a refusal, no traceback


def test_a_torn_line_glued_to_a_whole_one_is_recovered_on_resume(run):
    """A write cut short, then the next line appended right after it (an older harness had no
    whole-or-nothing append): the fragment is skipped, the whole line it carries counts."""
    lines = (run / "results.jsonl").read_bytes().splitlines(keepends=True)
    (run / "results.jsonl").write_bytes(b"".join(lines[:-2]) + lines[-2][:40] + lines[-1])
    resumed = sim(run)
    assert resumed.returncode == 0, resumed.stderr
    tasks = [line.result.task_id for line in read_results(run)]
    assert len(tasks) == EPISODES == len(set(tasks))
    assert summary(run)["overall"]["episodes"] == EPISODES


def test_glued_text_that_is_not_a_torn_prefix_stays_an_error(run):
    lines = (run / "results.jsonl").read_bytes().splitlines(keepends=True)
    (run / "results.jsonl").write_bytes(b"".join(lines[:-1]) + b'{"result": 3}' + lines[-1])
    resumed = sim(run)
    assert resumed.returncode == 2 and "results.jsonl:4: malformed line" in resumed.stderr


def test_the_resume_counts_only_the_tasks_of_its_selection(run):
    first = json.loads((run / "results.jsonl").read_bytes().splitlines()[0])
    first["result"].update(task_id="elsewhere/x", episode_id="elsewhere/x#1")
    with (run / "results.jsonl").open("ab") as file:
        file.write(json.dumps(first).encode() + b"\n")
    resumed = sim(run, EPISODES + 1)
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming {run}: {EPISODES} of {EPISODES + 1} episodes already finished" in resumed.stdout
