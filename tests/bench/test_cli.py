"""`python -m bench.supervisor`: a run folder, the summary table, and resuming."""

import json
import os
import subprocess
import sys

import pytest

from actors.result_sink import read_results
from bench.summary import success_cell
from tests.paths import ROOT



def run_cli(*args, timeout=120):
    """The CLI on the sim suite unless the test names another (the default suite is miniwob)."""
    suite = () if "--suite" in args else ("--suite", "sim")
    return subprocess.run(
        [sys.executable, "-m", "bench.supervisor", *suite, *args],
        cwd=ROOT, capture_output=True, text=True, timeout=timeout,
        env={**os.environ, "COLUMNS": "200"},  # rich wraps at 80 columns off a terminal
    )


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_cli_writes_a_run_folder_and_a_rerun_resumes_without_duplicates(tmp_path, backend):
    out = tmp_path / "run"
    common = ["--scale", "0.001", "--concurrency", "3", "--out", str(out), "--backend", backend]
    first = run_cli("--episodes", "4", *common)
    assert first.returncode == 0, first.stderr
    assert "episodes by domain" in first.stdout
    assert len(read_results(out)) == 4

    second = run_cli("--episodes", "6", *common)
    assert second.returncode == 0, second.stderr
    assert "resuming" in second.stdout and "4 of 6 episodes already finished" in second.stdout
    task_ids = [line.result.task_id for line in read_results(out)]
    assert sorted(task_ids) == sorted(set(task_ids)) and len(task_ids) == 6

    run_info = json.loads((out / "run.json").read_text())
    assert run_info["config"]["options"]["episodes"] == 6 and run_info["ended"]
    assert run_info["entry"] == "cli" and run_info["argv"][-2:] == ["--backend", backend]
    assert run_info["event_loop"] == backend
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overall"]["episodes"] == 6
    assert "success [95% CI]" in second.stdout and "steps ± sd" in second.stdout
    assert f"│ {success_cell(summary['overall'])} │" in second.stdout  # the "all" row, with its interval
    steps = list((out / "episodes").glob("*/1/steps.jsonl"))
    assert len(steps) == 6 and list(steps[0].parent.glob("step-*.png"))


def test_cli_help_explains_every_flag():
    result = run_cli("--help")
    assert result.returncode == 0
    for flag in ("--suite", "--episodes", "--concurrency", "--max-steps", "--out", "--vm", "--call-timeout"):
        assert flag in result.stdout


def test_cli_rejects_an_unknown_suite_naming_the_choices():
    result = run_cli("--suite", "nope")
    assert result.returncode == 2
    assert result.stderr.startswith("error: --suite 'nope': no such suite") and "sim" in result.stderr


def test_cli_runs_vms_in_node_processes(tmp_path):
    out = tmp_path / "run"
    result = run_cli("--episodes", "3", "--concurrency", "2", "--vm", "node", "--scale", "0.001", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert [line.result.success for line in read_results(out)] == [True] * 3


@pytest.fixture
def running_node():
    """A node started by hand, as a user would on a VM; yields its URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "runtime.node", "--listen", "127.0.0.1:0", "--app", "actors.backends.sim.node:build"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "TROUPE_NODE_TOKEN": "s3cret"},
    )
    try:
        address = json.loads(process.stdout.readline())["listening"]
        yield f"ws://{address}"
    finally:
        process.kill()
        process.wait()


def test_cli_connects_to_a_running_node_by_url(tmp_path, running_node):
    out = tmp_path / "run"
    result = run_cli("--episodes", "2", "--connect", running_node, "--token", "s3cret", "--scale", "0.001",
                     "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert [line.result.success for line in read_results(out)] == [True, True]


def test_cli_with_a_wrong_node_token_is_refused_in_one_line_saying_so(tmp_path, running_node):
    out = tmp_path / "run"
    result = run_cli("--episodes", "1", "--connect", running_node, "--token", "wrong", "--out", str(out))
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: --connect: no node answered: {running_node}: ") and "invalid token" in line
    assert not out.exists()


def test_cli_connect_without_a_token_is_refused_before_running(tmp_path):
    env_less = {k: v for k, v in os.environ.items() if k != "TROUPE_NODE_TOKEN"}
    result = subprocess.run([sys.executable, "-m", "bench.supervisor", "--connect", "ws://127.0.0.1:9"],
                            cwd=ROOT, capture_output=True, text=True, timeout=60, env=env_less)
    assert result.returncode == 2 and "--connect needs a token" in result.stderr


def test_a_piped_run_prints_each_row_of_its_table_on_one_line(tmp_path):
    """Off a terminal rich would lay the table out at 80 columns and wrap every row's interval onto
    more lines; without COLUMNS the table gets bench.terminal's width."""
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    run = subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", "sim", "--episodes", "3",
                          "--scale", "0.001", "--out", str(tmp_path / "run")],
                         cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 0, run.stderr
    [total] = [line for line in run.stdout.splitlines() if line.startswith("│ all ")]
    assert "[" in total and "]" in total and "±" in total, run.stdout
