"""`--repeats N` / `repeats=N`: each task run N times, each repeat its own episode (seed, folder, result
line), resumed exactly once per (task, repeat), summarized with pass@k, pass^k and a clustered interval."""

import itertools
import json

import msgspec
import pytest

import bench
from actors.run_folder import RESULTS, read_results, read_task, result_dir
from bench.suites.base import REPEAT_STRIDE, repeat_seed
from bench.suites.miniwob.suite import MiniWobSuite, miniwob_task, task_names
from bench.suites.sim.suite import SimSuite, sim_tasks
from bench.viewer.files import parse
from bench.viewer.folders import FinishedRuns
from bench.viewer.state import ViewerState
from tests.bench.test_cli import run_cli
from tests.bench.test_compare import compare_cli

SIM = {"episodes": 4, "scale": 0.0, "agent_error_rate": 0.3}


def episodes(folder):
    return [(line.result.task_id, line.result.repeat) for line in read_results(folder)]


async def test_each_task_runs_once_per_repeat_with_a_seed_and_a_folder_of_its_own(tmp_path, anyio_backend):
    run = await bench.run("sim", options=SIM, repeats=3, concurrency=4, out=tmp_path / "run")

    tasks = [task.task_id for task in sim_tasks(4)]
    assert sorted(episodes(run.folder)) == sorted(itertools.product(tasks, (1, 2, 3)))
    folders = {result_dir(run.folder, line.result) for line in run.results}
    assert len(folders) == 12 and all((folder / "steps.jsonl").is_file() for folder in folders)
    for line in run.results:
        recorded = read_task(result_dir(run.folder, line.result))
        assert (recorded.repeat, recorded.raw_config["sim"]["seed"]) == (line.result.repeat,
                                                                         repeat_seed(0, line.result.repeat))
    assert len({line.result.episode_id for line in run.results}) == 12

    overall = run.summary["overall"]
    assert overall["episodes"] == 12 and overall["tasks"] == 4 and overall["repeats"] == [3, 3]
    assert overall["success_interval_method"] == "clustered_wilson"
    assert list(overall["pass_at_k"]) == list(overall["pass_hat_k"]) == ["1", "2", "3"]
    assert overall["pass_at_k"]["1"] == pytest.approx(overall["success_rate"])
    assert overall["pass_hat_k"]["3"] <= overall["pass_at_k"]["1"] <= overall["pass_at_k"]["3"]
    frame = run.to_pandas()
    assert sorted(zip(frame.task_id, frame.repeat)) == sorted(episodes(run.folder))
    assert set(run.domains_frame().success_interval_method) == {"clustered_wilson"}


async def test_a_resumed_run_runs_each_missing_task_and_repeat_exactly_once(tmp_path, anyio_backend):
    out = tmp_path / "run"
    await bench.run("sim", options=SIM, repeats=3, concurrency=4, out=out)
    lines = (out / RESULTS).read_bytes().splitlines(keepends=True)
    (out / RESULTS).write_bytes(b"".join(lines[:5]))  # a run stopped after 5 of its 12 episodes
    kept = episodes(out)

    ran = []
    run = await bench.run("sim", options=SIM, repeats=3, concurrency=4, out=out,
                          on_result=lambda result: ran.append((result.task_id, result.repeat)))
    everything = set(itertools.product([task.task_id for task in sim_tasks(4)], (1, 2, 3)))
    assert sorted(ran) == sorted(everything - set(kept)) and len(ran) == 7
    assert sorted(episodes(out)) == sorted(everything) and run.summary["overall"]["episodes"] == 12

    ran.clear()
    run = await bench.run("sim", options=SIM, repeats=4, concurrency=4, out=out,
                          on_result=lambda result: ran.append((result.task_id, result.repeat)))
    assert sorted(ran) == sorted((task.task_id, 4) for task in sim_tasks(4))
    assert run.summary["overall"]["episodes"] == 16 and len(read_results(out)) == 16

    run = await bench.run("sim", options=SIM, repeats=2, concurrency=4, out=out)
    assert run.summary["overall"]["episodes"] == 8  # repeats past the run's are named, not counted
    assert sorted(run.summary["ignored"]["foreign"]) == sorted(
        f"{task.task_id}~{repeat}" for task in sim_tasks(4) for repeat in (3, 4))


def test_a_miniwob_repeat_starts_its_page_with_a_seed_of_its_own():
    suite = MiniWobSuite(task_names(), (0, 1))
    task = miniwob_task("click-button", 1)
    assert suite.repeated(task, 1) == msgspec.structs.replace(task, repeat=1) == task
    third = suite.repeated(task, 3)
    assert third.task_id == "click-button@1" and third.repeat == 3
    assert third.raw_config["browser"]["seed"] == 1 + 2 * REPEAT_STRIDE
    assert third.raw_config["browser"]["viewport"] == task.raw_config["browser"]["viewport"]
    seeds = {suite.repeated(miniwob_task("click-button", seed), repeat).raw_config["browser"]["seed"]
             for seed in range(3) for repeat in range(1, 4)}
    assert len(seeds) == 9


def test_a_suite_without_seeds_repeats_the_same_task():
    task = sim_tasks(1)[0]
    assert SimSuite([task]).repeated(task, 2).raw_config["sim"]["seed"] == REPEAT_STRIDE
    from bench.suites.base import Suite

    class Seedless(SimSuite):
        repeated = Suite.repeated

    again = Seedless([task]).repeated(task, 2)
    assert again.repeat == 2 and again.raw_config == task.raw_config


def test_the_cli_table_says_which_interval_and_gives_pass_at_k_and_compare_pairs_repeats(tmp_path):
    for name, rate in (("steady", "0"), ("clumsy", "0.6")):
        result = run_cli("--episodes", "6", "--scale", "0", "--agent-error-rate", rate, "--repeats", "3",
                         "--concurrency", "4", "--out", str(tmp_path / name))
        assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "success: 95% Wilson interval at the effective episodes, tasks as clusters" in out
    summary = json.loads((tmp_path / "clumsy" / "summary.json").read_text())["overall"]
    assert "6 tasks x 3 repeats; pass@k (at least one of k repeats solves a task): " + ", ".join(
        f"k={k} {value:.0%}" for k, value in summary["pass_at_k"].items()) in out
    assert "pass^k (all k repeats solve it): k=1" in out

    again = run_cli("--episodes", "6", "--scale", "0", "--agent-error-rate", "0.6", "--repeats", "3",
                    "--out", str(tmp_path / "clumsy"))
    assert again.returncode == 0 and "18 of 18 episodes already finished" in again.stdout

    compared = compare_cli(tmp_path / "steady", tmp_path / "clumsy", "--resamples", "500")
    assert compared.returncode == 0, compared.stderr
    text = " ".join(compared.stdout.split())
    assert "success [95% interval, tasks as clusters] and time per episode by domain" in text
    assert "all: clumsy solves" in text and "(of 18 episodes of 6 tasks paired:" in text
    assert "repeats paired by task and repeat (same seed)" in text
    assert "p: paired sign-flip test over the tasks' mean differences (McNemar's by simulation), 500 draws" in text


async def test_the_viewers_give_each_repeat_a_card_and_find_its_screens(tmp_path, anyio_backend):
    events = []
    run = await bench.run("sim", options={**SIM, "episodes": 2}, repeats=2, out=tmp_path / "run",
                          on_event=events.append)
    labels = sorted(f"{task.task_id}~2" if repeat == 2 else task.task_id
                    for task in sim_tasks(2) for repeat in (1, 2))

    live = ViewerState()
    for event in events:
        live.apply(event)
    assert sorted(card["task_id"] for card in live.snapshot()["episodes"]) == labels

    finished = FinishedRuns([run.folder])
    assert sorted(card["task_id"] for card in finished.cards) == labels
    second = next(card for card in finished.cards if card["repeat"] == 2)
    shot = finished.step_file(parse(f"{second['files']['shot']}/1"))
    assert shot == (result_dir(run.folder, second["result"]) / "step-001.png").read_bytes() and shot
