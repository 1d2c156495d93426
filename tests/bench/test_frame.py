"""bench.frame: a real sim run folder as one DataFrame row per episode."""

import json
import subprocess
import sys

import pytest

from actors.run_folder import ResultsError, read_results
from bench.frame import COLUMNS, DOMAIN_COLUMNS, episodes_frame
from tests.bench.test_cli import ROOT, run_cli


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A sim run in which some episodes fail (a clumsy agent) and some VMs crash and are retried."""
    out = tmp_path_factory.mktemp("frame") / "run"
    result = run_cli("--episodes", "8", "--agent-error-rate", "0.5", "--crash-rate", "0.1",
                     "--scale", "0.001", "--concurrency", "4", "--out", str(out))
    assert result.returncode == 0, result.stderr
    return out


def test_one_row_per_episode_with_the_results_line_flattened(run):
    frame = episodes_frame(run)
    lines = read_results(run)
    assert list(frame.columns) == list(COLUMNS) and len(frame) == len(lines) == 8
    for row, line in zip(frame.itertuples(index=False), lines):
        result = line.result
        assert (row.task_id, row.episode_id, row.domain, row.attempt) == (
            result.task_id, result.episode_id, result.domain, result.attempt)
        assert (row.success, row.score, row.steps, row.reason) == (
            result.success, result.score, result.steps, result.reason)
        assert row.error_kind == result.error_kind.value
        assert row.categories == line.categories
        assert (row.cost, row.input_tokens, row.output_tokens) == (
            result.cost, result.input_tokens, result.output_tokens)
        assert (row.reset_seconds, row.steps_seconds, row.evaluate_seconds, row.total_seconds) == (
            result.timings.reset, result.timings.steps, result.timings.evaluate, result.timings.total)
    assert frame["success"].dtype == bool and frame["steps"].dtype.kind == "i"
    assert (frame["total_seconds"] >= frame["steps_seconds"]).all()
    ran = frame[frame["error_kind"] != "environment"]
    assert len(ran) and (ran["input_tokens"] > 0).all() and (ran["total_seconds"] > 0).all()


def test_the_frame_agrees_with_summary_json(run):
    frame = episodes_frame(run)
    summary = json.loads((run / "summary.json").read_text())
    assert 0 < frame["success"].sum() < len(frame)  # the run has both verdicts, so the check can fail
    assert frame["success"].mean() == pytest.approx(summary["overall"]["success_rate"])
    by_domain = frame.groupby("domain")["success"].agg(["count", "sum"])
    for domain, figures in summary["domains"].items():
        assert (by_domain.loc[domain, "count"], by_domain.loc[domain, "sum"]) == (
            figures["episodes"], figures["succeeded"])


def test_load_run_to_pandas_is_this_frame(run):
    """README's Analysing results: `bench.load_run(...).to_pandas()`."""
    import bench
    import pandas.testing

    pandas.testing.assert_frame_equal(bench.load_run(str(run)).to_pandas(), episodes_frame(run))


def test_the_domains_frame_gives_each_rate_its_interval_as_summary_json_does(run):
    import bench

    frame = bench.load_run(str(run)).domains_frame()
    summary = json.loads((run / "summary.json").read_text())
    assert list(frame.columns) == list(DOMAIN_COLUMNS)
    assert list(frame["domain"]) == [*summary["domains"], "all"]
    for row in frame.itertuples(index=False):
        figures = summary["overall"] if row.domain == "all" else summary["domains"][row.domain]
        assert (row.episodes, row.succeeded, row.success_rate) == (
            figures["episodes"], figures["succeeded"], pytest.approx(figures["success_rate"]))
        assert [row.success_low, row.success_high] == pytest.approx(figures["success_interval"])
        assert row.success_low <= row.success_rate <= row.success_high and row.success_high - row.success_low > 0.2
        assert (row.mean_steps, row.sd_steps, row.mean_seconds, row.sd_seconds) == pytest.approx(
            (figures["mean_steps"], figures["sd_steps"], figures["mean_seconds"], figures["sd_seconds"]))


def test_a_run_with_no_finished_episode_is_an_empty_frame(tmp_path):
    (tmp_path / "results.jsonl").write_text("")
    frame = episodes_frame(str(tmp_path))
    assert frame.empty and list(frame.columns) == list(COLUMNS)


def test_a_folder_without_results_is_not_a_run_folder(tmp_path):
    with pytest.raises(ResultsError, match="not a run folder \\(no results.jsonl\\)"):
        episodes_frame(tmp_path)


def test_a_malformed_line_names_file_and_line(tmp_path):
    (tmp_path / "results.jsonl").write_text('{"result": {"episode_id": "e", "task_id": "t"}}\n[1, 2]\n')
    with pytest.raises(ResultsError, match=r"results\.jsonl:2: malformed line"):
        episodes_frame(tmp_path)


def test_without_pandas_the_error_says_what_to_install(tmp_path, monkeypatch):
    (tmp_path / "results.jsonl").write_text("")
    monkeypatch.setitem(sys.modules, "pandas", None)  # what `import pandas` meets when it is not installed
    with pytest.raises(ImportError, match=r"pip install 'troupe-bench\[analysis\]'"):
        episodes_frame(tmp_path)


def test_the_harness_never_imports_pandas():
    program = "import sys, bench.frame, bench.compare; print('pandas' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout == "False\n", result.stderr
