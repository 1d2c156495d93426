"""`python -m bench.compare`: real sim runs side by side, whether they differ (paired bootstrap interval,
exact McNemar), the changed verdicts, runs of other tasks refused, and bad folders."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from actors.run_folder import read_results
from actors.run_folder import ResultLine
from bench.compare import ALL, compare, method, verdict
from bench.stats import mcnemar, paired_bootstrap
from bench.summary import rate_with_interval
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


def compare_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "bench.compare", *map(str, args)],
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
    assert "success [95% Wilson interval] and time per episode by domain" in out
    assert "base success" in out and "clumsy s/episode" in out

    clumsy = read_results(runs["clumsy"])
    succeeded = sum(line.result.success for line in clumsy)
    row = next(line for line in out.splitlines() if "│ all " in line)
    assert "9/9 100% [70, 100]" in row
    assert f"{rate_with_interval(succeeded, 9)} {(succeeded / 9 - 1) * 100:+.0f} pp" in row

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

    result = compare_cli(*runs.values(), "--allow-different-tasks")
    assert result.returncode == 0, result.stderr
    assert "crashing success" in result.stdout and "crashing s/episode" in result.stdout
    assert "crashing has 0 tasks base has not and lacks 4 of its 9; comparing the 5 tasks every run has" in \
        result.stdout
    assert "crashing against base: no task both runs judged" in result.stdout  # environment errors only
    rows = result.stdout.splitlines()
    for task in crashing:
        assert any(task in row and "│ environment error │" in row for row in rows)


def test_the_paired_test_says_in_words_how_far_b_is_from_a(runs):
    base, clumsy = verdicts(runs["base"]), verdicts(runs["clumsy"])
    tasks = sorted(base)
    lost = sum(clumsy[task] == "failure" for task in tasks)
    assert lost >= 6 and set(base.values()) == {"success"}  # the agent errs in 90% of its steps
    difference, low, high = paired_bootstrap([1.0] * 9, [float(clumsy[task] == "success") for task in tasks],
                                             resamples=500, seed=3)
    assert high < 0  # so few solved that the interval excludes no difference

    result = compare_cli(runs["base"], runs["clumsy"], "--resamples", "500", "--seed", "3")
    assert result.returncode == 0, result.stderr
    assert (f"  all: clumsy solves {lost} fewer tasks than base (of 9 paired: 0 only clumsy, {lost} only base), "
            f"{difference * 100:+.0f} pp [{low * 100:+.0f}, {high * 100:+.0f}], p = {mcnemar(lost, 0):.2g}") in result.stdout
    assert "500 resamples, seed 3" in result.stdout
    assert result.stdout.count("  forms: ") == result.stdout.count("  signup: ") == 1
    again = compare_cli(runs["base"], runs["clumsy"], "--resamples", "500", "--seed", "3")
    assert again.stdout == result.stdout


def test_the_paired_figures_per_domain_count_the_discordant_tasks(runs):
    lines = {name: read_results(folder) for name, folder in runs.items()}
    comparison = compare([("base", lines["base"]), ("clumsy", lines["clumsy"])], resamples=200)
    (paired,) = comparison.paired
    assert [figures.domain for figures in paired] == ["forms", "settings", "signup", ALL]
    overall = paired[-1]
    assert overall.tasks == 9 and overall.only_this == 0
    assert overall.only_first == sum(v == "failure" for v in verdicts(runs["clumsy"]).values())
    assert sum(figures.only_first for figures in paired[:-1]) == overall.only_first
    assert overall.p_value == mcnemar(overall.only_first, 0)


def test_runs_of_other_tasks_are_refused_in_one_line(runs):
    result = compare_cli(runs["base"], runs["crashing"])
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == ("error: runs of different task sets: crashing has 0 tasks base has not and lacks 4 "
                             "of its 9; --allow-different-tasks compares the tasks every run has\n")


def test_runs_of_other_suites_are_refused_in_one_line(runs, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(runs["base"], other)
    info = json.loads((other / "run.json").read_text())
    info["config"]["suite"] = "miniwob"
    (other / "run.json").write_text(json.dumps(info))
    result = compare_cli(runs["base"], other)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == ("error: runs of different suites: base ran sim, other ran miniwob; "
                             "--allow-different-tasks compares the tasks every run has\n")
    assert compare_cli(runs["base"], other, "--allow-different-tasks").returncode == 0


def test_a_garbled_run_json_is_one_line_and_exit_2(runs, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(runs["base"], broken)
    (broken / "run.json").write_text("{")
    result = compare_cli(runs["base"], broken)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"error: {broken / 'run.json'}: not a run.json with config.suite")


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
    assert "solves as many tasks as" in result.stdout and "+0 pp [+0, +0], p = 1\n" in result.stdout


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


@pytest.mark.parametrize(("args", "why"), [
    ([], "the following arguments are required: RUN"),
    (["only-one"], "at least two run folders"),
    (["--verbose", "a", "b"], "unrecognized arguments: --verbose"),
    (["a", "b", "--resamples", "0"], "--resamples must be at least 1, not 0"),
    (["a", "b", "--seed", "x"], "argument --seed: invalid int value: 'x'"),
])
def test_a_usage_mistake_is_one_line_saying_what_was_wrong(args, why):
    result = compare_cli(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("usage: python -m bench.compare")
    assert result.stderr.endswith(f" ({why})\n")


def test_help_says_what_it_prints():
    result = compare_cli("--help")
    assert result.returncode == 0
    assert all(words in " ".join(result.stdout.split()) for words in (
        "verdict changed", "paired bootstrap interval, exact McNemar test", "--allow-different-tasks"))


def test_runs_with_repeats_pair_by_task_and_repeat_and_analyse_each_tasks_mean():
    def lines(verdicts):
        return [ResultLine(result=EpisodeResult(episode_id=f"{task}~{repeat}#1", task_id=task, domain="d",
                                                repeat=repeat, success=success is True,
                                                error_kind=ErrorKind.ENVIRONMENT if success is None else
                                                ErrorKind.NONE))
                for task, by_repeat in verdicts.items() for repeat, success in enumerate(by_repeat, start=1)]

    a = lines({"t1": [True, True, False], "t2": [False, False, False], "t3": [True, None, True]})
    b = lines({"t1": [True, False, False], "t2": [True, True, True], "t3": [True, True, True]})
    comparison = compare([("a", a), ("b", b)], resamples=500)
    overall = comparison.paired[0][-1]
    # t1: repeat 2 lost; t2: all three won; t3: its repeat 2 is an environment error in a, so unpaired.
    # Per-task means: a 2/3, 0, 1 and b 1/3, 1, 1: a difference of (-1/3 + 1 + 0) / 3 = 2/9.
    assert (overall.tasks, overall.episodes, overall.only_first, overall.only_this) == (3, 8, 1, 3)
    assert overall.difference == pytest.approx(2 / 9) and overall.test == "sign-flip"
    assert overall.words("a", "b").startswith("b solves 2 more episodes than a (of 8 episodes of 3 tasks paired: "
                                              "3 only b, 1 only a), +22 pp")
    assert [(task.task_id, task.repeat, task.verdicts) for task in comparison.changed] == [
        ("t1", 2, ("success", "failure")), ("t2", 1, ("failure", "success")), ("t2", 2, ("failure", "success")),
        ("t2", 3, ("failure", "success")), ("t3", 2, ("environment error", "success"))]
    assert comparison.domains[-1].figures[0].clustered
    assert "repeats paired by task and repeat" in method(comparison)
