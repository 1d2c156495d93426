"""`python -m bench.supervisor`: a run folder, the summary table, and resuming."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from actors.result_sink import read_results

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "bench.supervisor", *args],
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
    assert run_info["config"]["episodes"] == 6 and run_info["ended"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overall"]["episodes"] == 6
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
    assert "invalid choice: 'nope'" in result.stderr and "sim" in result.stderr
