"""`python -m bench.compare`: real sim runs side by side, the changed verdicts, and bad folders."""

import os
import shutil
import subprocess
import sys

import pytest

from actors.run_folder import read_results
from bench.compare import ALL, compare, verdict
from bench.viewer.state import status_of
from protocols import EpisodeResult, ErrorKind
from tests.bench.test_cli import ROOT, run_cli


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Three runs of the same generated tasks: a flawless agent, a clumsy one, and a
    shorter run whose every VM crashes (environment errors, and tasks it never ran)."""
    root = tmp_path_factory.mktemp("runs")
    flags = {
        "base": ["--episodes", "9", "--agent-error-rate", "0"],
        "clumsy": ["--episodes", "9", "--agent-error-rate", "0.9"],
        "crashing": ["--episodes", "5", "--agent-error-rate", "0", "--crash-rate", "1", "--max-attempts", "1"],
    }
    for name, extra in flags.items():
        result = run_cli(*extra, "--scale", "0.001", "--concurrency", "3", "--out", str(root / name))
        assert result.returncode == 0, result.stderr
    return {name: root / name for name in flags}


def compare_cli(*folders):
    return subprocess.run(
        [sys.executable, "-m", "bench.compare", *map(str, folders)],
        cwd=ROOT, capture_output=True, text=True, timeout=60, env={**os.environ, "COLUMNS": "200"},
    )


def verdicts(folder):
    return {line.result.task_id: verdict(line.result) for line in read_results(folder)}


def test_compare_counts_each_domain_and_finds_every_changed_verdict(runs):
    lines = {name: read_results(folder) for name, folder in runs.items()}
    comparison = compare([("base", lines["base"]), ("clumsy", lines["clumsy"])])

    assert comparison.runs == ("base", "clumsy")
    assert [row.domain for row in comparison.domains] == ["forms", "settings", "signup", ALL]
    overall = comparison.domains[-1]
    assert overall.figures[0].episodes == overall.figures[1].episodes == 9
    assert overall.figures[0].succeeded == 9
    assert overall.figures[1].succeeded == sum(line.result.success for line in lines["clumsy"]) < 9
    success_delta, seconds_delta = overall.deltas(1)
    assert success_delta == pytest.approx(overall.figures[1].success_rate - 1.0)
    assert seconds_delta == pytest.approx(overall.figures[1].mean_seconds - overall.figures[0].mean_seconds)

    base, clumsy = verdicts(runs["base"]), verdicts(runs["clumsy"])
    expected = sorted(task for task in base if base[task] != clumsy[task])
    assert expected and [task.task_id for task in comparison.changed] == expected
    assert all(task.verdicts == ("success", "failure") for task in comparison.changed)
    assert comparison.not_in_every_run == 0


def test_cli_prints_domains_side_by_side_and_the_changed_tasks(runs):
    result = compare_cli(runs["base"], runs["clumsy"])
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "success and time per episode by domain" in out
    assert "base success" in out and "clumsy s/episode" in out

    clumsy = read_results(runs["clumsy"])
    succeeded = sum(line.result.success for line in clumsy)
    row = next(line for line in out.splitlines() if "│ all " in line)
    assert "9/9 (100%)" in row
    assert f"{succeeded}/9 ({succeeded / 9:.0%}) {(succeeded / 9 - 1) * 100:+.0f} pp" in row

    changed = [task for task, v in verdicts(runs["clumsy"]).items() if v != "success"]
    assert f"tasks whose verdict changed ({len(changed)})" in out
    for task in changed:
        assert any(task in line and "│ success │ failure" in line for line in out.splitlines())
    assert "not in every run" not in out


def test_a_third_run_with_environment_errors_and_missing_tasks(runs):
    lines = {name: read_results(folder) for name, folder in runs.items()}
    comparison = compare(list(lines.items()))
    crashing = verdicts(runs["crashing"])
    assert set(crashing.values()) == {"environment error"} and len(crashing) == 5
    assert comparison.not_in_every_run == 4
    by_task = {task.task_id: task.verdicts for task in comparison.changed}
    assert set(crashing) <= set(by_task)  # success in the baseline, an environment error here
    assert all(by_task[task][2] == "environment error" for task in crashing)
    assert all(v[2] is None for task, v in by_task.items() if task not in crashing)

    result = compare_cli(*runs.values())
    assert result.returncode == 0, result.stderr
    assert "crashing success" in result.stdout and "crashing s/episode" in result.stdout
    assert "4 tasks are not in every run" in result.stdout
    rows = result.stdout.splitlines()
    for task in crashing:
        assert any(task in row and "│ environment error │" in row for row in rows)


def test_every_error_kind_has_its_own_verdict():
    kinds = [ErrorKind.AGENT, ErrorKind.ENVIRONMENT, ErrorKind.MODEL_SERVICE, ErrorKind.EVALUATION]
    said = [verdict(EpisodeResult(episode_id="e", task_id="t", error_kind=kind)) for kind in kinds]
    assert said == ["failure", "environment error", "model service error", "evaluation error"]
    assert status_of(EpisodeResult(episode_id="e", task_id="t", error_kind=ErrorKind.MODEL_SERVICE)) == \
        "model service error"  # the viewer's word for it


def test_identical_runs_change_no_verdict(runs):
    result = compare_cli(runs["clumsy"], runs["clumsy"])
    assert result.returncode == 0, result.stderr
    assert "no task changed its verdict" in result.stdout
    assert "+0 pp" in result.stdout


def test_a_folder_that_is_not_a_run_is_one_line_and_exit_2(runs, tmp_path):
    result = compare_cli(runs["base"], tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"error: {tmp_path}: not a run folder (no results.jsonl)\n"


def test_a_malformed_results_line_is_named_by_file_and_line(runs, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(runs["base"], broken)
    with open(broken / "results.jsonl", "a") as results:
        results.write('{"result": {"task_id": 7}}\n')
    result = compare_cli(runs["base"], broken)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"error: {broken / 'results.jsonl'}:10: malformed line")


@pytest.mark.parametrize("args", [[], ["only-one"], ["--verbose", "a", "b"]])
def test_fewer_than_two_folders_or_an_option_is_a_usage_error(args):
    result = compare_cli(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("usage: python -m bench.compare")


def test_help_says_what_it_prints():
    result = compare_cli("--help")
    assert result.returncode == 0 and "verdict changed" in result.stdout
