"""report.html: one self-contained file with per-domain bars, failure taxonomy, a sortable episode table,
and an episode's steps with their screens and timeline."""

import os
import subprocess
import sys

import pytest

from actors.run_folder import ResultLine
from bench.report import render, taxonomy_counts
from protocols import EpisodeResult
from tests.chromium import chromium_page
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
