"""summary.json keeps the three kinds of failure apart (agent, environment, evaluation (harness)) and
gives every rate its interval and every mean its spread."""

import pytest

from actors.run_folder import ResultLine
from bench.report import render
from bench.summary import success_cell, summarize
from protocols import EpisodeResult, EpisodeTimings, ErrorKind


def result(task_id, domain="forms", **fields):
    return EpisodeResult(episode_id=f"{task_id}#1", task_id=task_id, domain=domain, **fields)


def test_failures_are_counted_by_kind_overall_and_per_domain():
    results = [
        result("a", success=True),
        result("b", error_kind=ErrorKind.AGENT, reason="raw reward -1"),
        result("c", domain="mail", error_kind=ErrorKind.ENVIRONMENT, reason="failed on 3 VMs"),
        result("d", domain="mail", error_kind=ErrorKind.EVALUATION, reason="no metric 'compare_pdfs'"),
        result("e", domain="mail", error_kind=ErrorKind.EVALUATION, reason="getter failed"),
    ]
    summary = summarize(results)
    kinds = ("agent_errors", "environment_errors", "evaluation_errors")
    assert [summary["overall"][k] for k in kinds] == [1, 1, 2]
    assert [summary["domains"]["forms"][k] for k in kinds] == [1, 0, 0]
    assert [summary["domains"]["mail"][k] for k in kinds] == [0, 1, 2]
    assert summary["overall"]["succeeded"] == 1


def test_the_report_states_the_four_kinds_apart(tmp_path):
    results = [result("b", error_kind=ErrorKind.AGENT), result("c", error_kind=ErrorKind.ENVIRONMENT),
               result("d", error_kind=ErrorKind.EVALUATION), result("e", error_kind=ErrorKind.MODEL_SERVICE),
               result("f", error_kind=ErrorKind.MODEL_SERVICE)]
    summary = summarize(results)
    assert summary["overall"]["model_service_errors"] == 2 and summary["overall"]["agent_errors"] == 1
    page = render(tmp_path, summary, [ResultLine(result=r) for r in results])
    assert "failures: 1 agent, 1 environment, 2 model service, 1 evaluation (harness)" in page


def test_every_rate_has_its_interval_and_every_mean_its_spread(tmp_path):
    results = [result(str(i), success=i < 3, steps=i, timings=EpisodeTimings(total=float(i))) for i in range(4)]
    overall = summarize(results)["overall"]
    assert overall["success_interval"] == pytest.approx([0.3006, 0.9544], abs=5e-5)  # Wilson, 3/4
    assert (overall["mean_steps"], overall["sd_steps"]) == (1.5, pytest.approx(1.2910, abs=5e-5))
    assert (overall["mean_seconds"], overall["sd_seconds"]) == (1.5, pytest.approx(1.2910, abs=5e-5))
    assert success_cell(overall) == "3/4 75% [30, 95]"
    assert summarize(results)["domains"]["forms"]["success_interval"] == overall["success_interval"]
    page = render(tmp_path, summarize(results), [ResultLine(result=r) for r in results])
    assert "episodes succeeded: 3/4 75% [30, 95] (95% Wilson interval); 1.5 ± 1.3 steps" in page
    assert '<span class="bar-value">3/4 75% [30, 95]</span>' in page
