"""report.html: one self-contained file with per-domain bars, failure taxonomy, a sortable episode table,
and an episode's steps with their screens and timeline."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from actors.run_folder import Episode, ResultLine, episode_dir, read_calls
from bench.metrics import run_metrics
from bench.report import main, render, taxonomy_counts
from protocols import EpisodeResult, Key, StepRecord
from tests.chromium import chromium_page
from tests.llm_crew import stumbling_llm_run
from tests.bench.viewer.test_runs import artifacts
from tests.paths import ROOT



@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", "sim", "--episodes", "4", "--concurrency",
                    "2", "--scale", "0.002", "--agent-error-rate", "0.3", "--out", str(out)],
                   cwd=ROOT, check=True, capture_output=True, timeout=120, env={**os.environ, "COLUMNS": "200"})
    return out


def test_the_report_is_one_file_whose_links_resolve_and_whose_timeline_draws(run_dir):
    report = run_dir / "report.html"
    text = report.read_text()
    assert "<script src" not in text and "<link" not in text  # nothing to fetch: self-contained
    with chromium_page() as page:
        page.goto(report.as_uri())
        assert page.locator("#domains .bar-row").count() == 3  # forms, settings, signup
        assert page.locator("#episodes tbody tr").count() == 4
        assert page.locator("#suite-figures").count() == 0  # sim has no figures of its own
        for href in page.eval_on_selector_all("#episodes a[href$='.jsonl'], #episodes a[href$='.png']",
                                              "links => links.map(a => a.getAttribute('href'))"):
            assert (run_dir / href).is_file(), href
        failed = page.locator("#episodes tbody tr:not(.succeeded)").count()
        assert page.locator("#taxonomy .bar-row").count() >= min(failed, 1)
        assert failed or page.text_content("#taxonomy") == "no failure categories"
        assert "success" not in page.locator("#taxonomy .bar-label").all_text_contents()  # failures only
        page.locator("#episodes a.pick").nth(2).click()
        chosen = page.eval_on_selector("#pick", "s => s.value")
        assert chosen == page.locator("#episodes a.pick").nth(2).get_attribute("data-task")
        bars = page.locator("#timeline .tl-bar[data-row=agent]").count()
        assert bars >= 2 and page.locator("#timeline .tl-bar[data-row=summarizer]").count() >= 1
        steps = int(page.locator("#episodes tbody tr").nth(2).locator("td").nth(5).text_content())
        assert page.locator("#steps tbody tr").count() == steps
        page.wait_for_function("() => [...document.querySelectorAll('#steps img')].every("
                               "i => i.complete && i.naturalWidth > 0)")  # each step's screen, from the run folder
        page.locator("#episodes th", has_text="steps").click()
        column = "rows => rows.map(r => Number(r.children[5].textContent))"
        assert page.eval_on_selector_all("#episodes tbody tr", column) == sorted(steps_of(page, column))
        page.locator("#episodes th", has_text="steps").click()
        assert page.eval_on_selector_all("#episodes tbody tr", column) == sorted(steps_of(page, column), reverse=True)
        assert "linked from the run folder" in page.text_content("#screens")  # the default says so
        page.screenshot(path=str(artifacts(run_dir) / "report.png"), full_page=True)


def steps_of(page, column):
    return page.eval_on_selector_all("#episodes tbody tr", column)


def test_a_bar_for_nothing_is_not_drawn_and_success_is_not_a_failure_category(tmp_path):
    lines = [ResultLine(result=EpisodeResult(episode_id="a#1", task_id="a", domain="web", success=True),
                        categories={"success": 1.0}),
             ResultLine(result=EpisodeResult(episode_id="b#1", task_id="b", domain="apps"),
                        categories={"grounding": 0.9})]
    html = render(tmp_path, {"domains": {"web": {"success_rate": 1.0}, "apps": {"success_rate": 0.0}}}, lines)
    assert 'style="width:0.0%"' in html and 'style="width:100.0%"' in html
    assert taxonomy_counts({}, lines) == {"grounding": 1}
    assert taxonomy_counts({"taxonomy": {"categories": {"success": 1, "system": 3}}}, lines) == {"system": 3}


def test_untrusted_text_from_the_run_is_escaped(tmp_path):
    evil = "<img src=x onerror=alert(1)>"
    lines = [ResultLine(result=EpisodeResult(episode_id="e#1", task_id=evil, domain=evil, reason="</script><b>"),
                        categories={evil: 1.0})]
    html = render(tmp_path, {"domains": {evil: {"success_rate": 0.0}}}, lines)
    assert evil not in html and "</script><b>" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_taxonomy_counts_come_from_the_analysis_when_it_gave_them():
    lines = [ResultLine(result=EpisodeResult(episode_id=f"{i}#1", task_id=str(i)), categories=c)
             for i, c in enumerate([{"grounding": 0.9}, {"grounding": 0.6, "planning": 0.2}, {"planning": 0.7}])]
    assert taxonomy_counts({}, lines) == {"grounding": 2, "planning": 1}
    assert taxonomy_counts({"taxonomy": {"categories": {"system": 3}}}, lines) == {"system": 3}


BARS = """() => [...document.querySelectorAll('#domains .bar')].map(
  b => b.getBoundingClientRect().width / b.parentElement.getBoundingClientRect().width)"""


def test_bars_are_drawn_to_scale_and_an_undefined_metric_reads_n_a(tmp_path):
    domains = {name: {"episodes": 100, "succeeded": n, "success_rate": n / 100}
               for name, n in (("web", 71), ("office", 73), ("a domain with a long name", 79), ("none", 0))}
    summary = {"domains": domains, "metrics": {"step_accuracy": 0.5, "grounding_accuracy": None}}
    report = tmp_path / "report.html"
    report.write_text(render(tmp_path, summary, []))
    with chromium_page() as page:
        page.goto(report.as_uri())
        shares = page.evaluate(BARS)
        assert shares == pytest.approx([0.71, 0.73, 0.79, 0.0], abs=0.005)
        assert page.locator("#domains .bar-value").all_text_contents()[0] == "71/100 71% [61, 79]"
        cells = page.eval_on_selector_all(".metrics tr", "rows => rows.map(r => r.innerText.split('\\t'))")
        assert cells == [["step accuracy", "0.5"], ["grounding accuracy", "n/a"]]


def test_an_inline_report_opens_with_no_other_file_present(run_dir, tmp_path):
    alone = tmp_path / "alone" / "report.html"
    alone.parent.mkdir()
    assert main([str(run_dir), "--inline", "--out", str(alone)]) == 0
    elsewhere = tmp_path / "elsewhere" / "report.html"  # linked, from another folder: the links still resolve
    elsewhere.parent.mkdir()
    assert main([str(run_dir), "--out", str(elsewhere)]) == 0
    assert [p.name for p in alone.parent.iterdir()] == ["report.html"]
    loaded = ("() => { const imgs = [...document.querySelectorAll('#steps img, #final img')];"
              " return imgs.length > 1 && imgs.every(i => i.complete && i.naturalWidth > 0); }")
    with chromium_page() as page:
        for report in (alone, elsewhere):
            page.goto(report.as_uri())
            page.locator("#episodes a.pick").first.click()
            page.wait_for_function(loaded, timeout=10000)
            assert page.locator("#final").is_visible()
        assert page.eval_on_selector_all("#episodes a[href$='.png']", "links => links.length") > 0
        page.goto(alone.as_uri())
        assert page.text_content("#screens") == "The screens are embedded: this file needs no other."
        assert page.eval_on_selector_all("#episodes a[href$='.png']", "links => links.length") == 0


@pytest.mark.parametrize("case", ["not a run", "summary not JSON", "out not writable"])
def test_the_report_command_names_what_it_cannot_use(run_dir, tmp_path, capsys, case):
    folder, extra = run_dir, []
    if case == "not a run":
        folder = tmp_path
        expected = f"{tmp_path}: not a run folder (no results.jsonl)"
    elif case == "summary not JSON":
        folder = tmp_path / "copy"
        folder.mkdir()
        (folder / "results.jsonl").write_bytes((run_dir / "results.jsonl").read_bytes())
        (folder / "summary.json").write_text("{cut")
        expected = f"{folder / 'summary.json'}: not readable as JSON ("
    else:
        extra = ["--out", str(tmp_path / "missing" / "report.html")]
        expected = f"cannot write {tmp_path / 'missing' / 'report.html'}: "
    with pytest.raises(SystemExit) as exit:
        main([str(folder), *extra])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert expected in err and err.count("\n") == 2  # argparse's usage line, then the one error line


def test_grounding_accuracy_over_no_boxed_step_is_undefined_not_zero(tmp_path):
    line = ResultLine(result=EpisodeResult(episode_id="a#1", task_id="a"))
    step = StepRecord(episode_id="a#1", step=1, action=Key(key="enter"), reference=Key(key="enter"))
    metrics = run_metrics([Episode(line=line, folder=tmp_path, steps=[step], viewports={1: None})])
    assert (metrics["step_accuracy"], metrics["grounded_steps"], metrics["grounding_accuracy"]) == (1.0, 0, None)
    assert json.loads(json.dumps(metrics))["grounding_accuracy"] is None  # null in summary.json


def test_the_report_lists_the_chosen_episodes_model_calls_and_what_went_wrong(tmp_path):
    run = stumbling_llm_run(tmp_path / "run")
    line = next(line for line in run.results if line.result.steps)  # the one with steps to pick
    calls = read_calls(episode_dir(run.folder, line.result.task_id, line.result.attempt))
    with chromium_page() as page:
        page.goto((run.folder / "report.html").as_uri())
        page.locator("#episodes a.pick").first.click()
        rows = page.locator("#calls tbody tr")
        assert rows.count() == len(calls) == 6  # agent step 1, two tries at its summary, two at step 2, classifier
        texts = [rows.nth(i).inner_text() for i in range(rows.count())]
        steps = page.eval_on_selector_all("#calls tbody tr", "rows => rows.map(r => r.children[0].textContent)")
        assert sorted(steps) == ["1", "1", "1", "2", "2", "the episode"]  # the classifier's call is about no step
        assert sum("sent back: the reply contains no JSON object" in t for t in texts) == 4
        assert page.locator("#calls tr.gave-up").count() == 2  # the decision of step 2 and the summary of step 1
        for href in page.eval_on_selector_all("#calls a", "links => links.map(a => a.getAttribute('href'))"):
            assert (run.folder / href).is_file(), href  # the marked picture each call showed
        transcript = page.get_attribute("#transcript", "href")
        assert (run.folder / transcript).is_file() and transcript.endswith("calls.jsonl")
