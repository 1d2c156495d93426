"""`python -m bench.viewer RUN_DIR [RUN_DIR ...]`: finished runs in the live page, in a real headless
Chromium. Two real sim runs (the second with a clumsier agent and no summarizer) are served by the
real command; the tests open an episode, step through it with the keyboard, filter, group, sort and
compare, and keep a screenshot of each view (under $TROUPE_ARTIFACTS when set)."""

import json
import os
import shutil
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

from bench.compare import statements
from bench.viewer.__main__ import main
from bench.viewer.folders import FinishedRuns
from tests.chromium import chromium_page
from tests.llm_crew import stumbling_llm_run
from tests.paths import ROOT

TOKEN = "f1n1sh3d"


def artifacts(tmp_path: Path) -> Path:
    """Where a test keeps its screenshots: $TROUPE_ARTIFACTS (kept after the run) or tmp_path."""
    folder = Path(os.environ.get("TROUPE_ARTIFACTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def sim_run(out: Path, *extra: str) -> Path:
    subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", "sim", "--episodes", "8", "--concurrency",
                    "4", "--scale", "0.05", "--out", str(out), *extra],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    return (sim_run(folder / "baseline", "--agent-error-rate", "0"),
            sim_run(folder / "clumsy", "--agent-error-rate", "0.6", "--summarizer", "none"))


@contextmanager
def viewer(*folders: Path, token: str | None = TOKEN):
    """The real command serving `folders`; yields the URL it printed (with the token)."""
    process = subprocess.Popen([sys.executable, "-m", "bench.viewer", *map(str, folders),
                                *(["--token", token] if token else [])],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        printed = process.stdout.readline()
        assert printed.startswith("viewer: http://127.0.0.1:"), printed + process.stderr.read()
        url = printed.split()[1]
        yield url + (f"?token={token}" if token else "")
    finally:
        process.kill()
        process.wait()


def in_view(page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    return box is not None and 0 <= box["y"] < page.viewport_size["height"]


def test_a_finished_run_is_browsed_filtered_and_stepped_through_with_the_keyboard(runs, tmp_path):
    shots = artifacts(tmp_path)
    with viewer(runs[0]) as url, chromium_page() as page:
        page.goto(url)
        page.wait_for_selector(".card")
        assert page.text_content("#status") == "finished: baseline"
        assert page.locator(".card").count() == 8
        assert page.locator(".card[data-status=running]").count() == 0
        page.wait_for_function("() => [...document.querySelectorAll('.card img')].every("
                               "i => i.complete && i.naturalWidth > 0)")
        page.screenshot(path=str(shots / "viewer-sim-run.png"))

        domains = page.eval_on_selector_all(".card", "cards => cards.map(c => c.dataset.domain)")
        page.select_option("#f-domain", domains[0])
        assert set(page.eval_on_selector_all(".card", "cs => cs.filter(c => c.offsetParent)"
                                                      ".map(c => c.dataset.domain)")) == {domains[0]}
        assert page.text_content("#shown") == f"{domains.count(domains[0])} of 8 shown"
        page.select_option("#f-domain", "")
        page.check("#group")
        assert page.eval_on_selector_all(".group h3", "hs => hs.map(h => h.textContent.split(' ')[0])") == \
            sorted(set(domains))
        page.uncheck("#group")
        page.select_option("#sort", "steps")
        counts = page.eval_on_selector_all(".card .steps", "s => s.map(e => parseInt(e.textContent.slice(5)))")
        assert counts == sorted(counts, reverse=True)

        page.locator(".card").last.click()  # the last card: far down a long grid, yet the episode opens in view
        page.wait_for_selector("#episode:not([hidden])")
        assert in_view(page, "#episode .instruction") and in_view(page, "#episode .stage")
        assert page.text_content("#episode .instruction").startswith(("Type", "Click", "Check"))
        assert page.locator("#episode .thumb").count() == counts[-1]
        assert page.text_content("#episode-step") == f"step 1 of {counts[-1]}"
        page.keyboard.press("ArrowRight")
        assert page.text_content("#episode-step") == f"step 2 of {counts[-1]}"
        assert page.locator("#episode .thumb.current .n").text_content() == "2"
        page.wait_for_function("() => document.querySelector('#episode .stage svg').childElementCount > 0")
        assert len(page.locator("#episode .tl-tick").all()) > 2  # a readable time axis
        page.screenshot(path=str(shots / "viewer-sim-episode.png"))
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("ArrowLeft")  # stays at the first step
        assert page.text_content("#episode-step") == f"step 1 of {counts[-1]}"
        before = page.text_content("#episode-title")
        page.keyboard.press("k")  # the episode before it, in the order shown
        assert page.text_content("#episode-title") != before
        page.keyboard.press("ArrowDown")
        assert page.text_content("#episode-title") == before
        page.keyboard.press("Escape")
        assert page.locator("#episode").is_hidden()


def test_a_run_missing_tasks_is_compared_on_the_tasks_both_have_and_says_so(runs, tmp_path):
    short = tmp_path / "short"
    shutil.copytree(runs[1], short)
    lines = (short / "results.jsonl").read_text().splitlines(keepends=True)
    (short / "results.jsonl").write_text("".join(lines[:-3]))
    with viewer(runs[0], short, token=None) as url, chromium_page() as page:
        page.goto(url)
        page.wait_for_selector("#compare .paired li")
        assert page.text_content("#compare .partial") == (
            "3 tasks are not in every run; they are compared among the runs that have them")
        assert page.locator("#compare .paired li").last.text_content().startswith("all: short solves ")
        assert "(of 5 paired: " in page.locator("#compare .paired li").last.text_content()


def test_two_runs_are_compared_and_a_changed_task_opens_both_episodes(runs, tmp_path):
    shots = artifacts(tmp_path)
    with viewer(*runs, token=None) as url, chromium_page() as page:
        page.goto(url)
        page.wait_for_selector("#compare table.domains")
        assert page.text_content("#status") == "finished: baseline vs clumsy"
        all_row = page.locator("#compare tr[data-domain=all] td").all_text_contents()
        assert all_row[0] == "all" and all_row[1].startswith("8/8 (100%) [68, 100] · ")
        assert "pp" in all_row[2]
        (heading, lines), = statements(FinishedRuns(list(runs)).comparison)  # the words the terminal prints
        assert page.locator("#compare .paired h3").all_text_contents() == [heading] == ["clumsy against baseline"]
        assert page.locator("#compare .paired li").all_text_contents() == lines and lines[-1].startswith("all: ")
        assert "10000 resamples, seed 0" in page.text_content("#compare .paired .method")
        assert page.locator("#compare .partial").count() == 0  # both runs ran every task
        changed = page.locator("#compare tr.changed")
        assert changed.count() >= 1
        assert changed.first.locator("td").nth(2).text_content() == "success"
        page.screenshot(path=str(shots / "viewer-compare.png"))

        changed.first.click()
        page.wait_for_selector("#episode:not([hidden])")
        assert page.locator("#episode .column").count() == 2
        assert page.locator("#episode .column h2").all_text_contents()[1].startswith("clumsy: ")
        page.keyboard.press("ArrowRight")
        assert page.locator("#episode .column .thumb.current .n").all_text_contents() == ["2", "2"]
        summaries = page.locator("#episode .column .steps-table tr.current td:nth-child(4)").all_text_contents()
        assert summaries[0] != "no summary" and summaries[1] == "no summary"  # --summarizer none: said, not "…"
        page.screenshot(path=str(shots / "viewer-compare-episode.png"))
        page.keyboard.press("Escape")

        page.click("#tab-episodes")
        page.select_option("#f-run", "1")
        page.select_option("#f-status", "failed")
        statuses = page.eval_on_selector_all(".card", "cs => cs.filter(c => c.offsetParent).map(c => c.dataset.status)")
        assert statuses and set(statuses) == {"failed"}
        assert "failed" in page.eval_on_selector_all("#f-status option", "os => os.map(o => o.value)")
        categories = page.eval_on_selector_all("#f-category option", "os => os.map(o => o.value).filter(Boolean)")
        assert categories and "success" not in categories  # the failures' categories only
        page.select_option("#f-status", "")
        page.select_option("#f-category", categories[0])
        metas = page.eval_on_selector_all(".card", "cs => cs.filter(c => c.offsetParent)"
                                                   ".map(c => c.querySelector('.meta').textContent)")
        assert metas and all(categories[0] in meta for meta in metas)
        page.screenshot(path=str(shots / "viewer-run-filtered.png"))


def test_the_finished_runs_page_wants_its_token(runs):
    with viewer(runs[0]) as url:
        bare = url.split("?")[0]
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(bare, timeout=5)
        assert refused.value.code == 401
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(bare + "runs/0/shot/nobody/1?token=" + TOKEN, timeout=5)
        assert missing.value.code == 404
        with urllib.request.urlopen(bare + "runs/0/shot/sim-0-0000%231/0?token=" + TOKEN, timeout=5) as png:
            assert png.read(8) == b"\x89PNG\r\n\x1a\n"


def test_a_folder_that_is_not_a_run_is_refused_by_name(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit:
        main([str(tmp_path)])
    assert exit.value.code == 2
    assert f"{tmp_path}: not a run folder (no results.jsonl)" in capsys.readouterr().err


def test_a_malformed_results_line_is_refused_naming_file_and_line(tmp_path, capsys):
    (tmp_path / "results.jsonl").write_text('{"result": {"episode_id": "a#1", "task_id": "a"}}\n{"result": 7}\n')
    with pytest.raises(SystemExit) as exit:
        main([str(tmp_path)])
    assert exit.value.code == 2
    assert f"{tmp_path / 'results.jsonl'}:2: malformed line" in capsys.readouterr().err


def test_a_garbled_episode_is_shown_as_unreadable_and_the_rest_of_the_run_still_is(runs, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(runs[0], copy)
    (copy / "episodes" / "sim-0-0003" / "1" / "steps.jsonl").write_text("not json\n")
    cards = {card["task_id"]: card for card in FinishedRuns([copy]).cards}
    assert len(cards) == 8 and all(cards[task]["steps"] for task in cards if task != "sim-0-0003")
    garbled = cards["sim-0-0003"]
    assert garbled["steps"] == [] and "steps.jsonl:1: malformed line" in garbled["unreadable"]
    assert garbled["status"] == "succeeded"  # its verdict is in results.jsonl all the same


def test_a_port_already_taken_is_refused_naming_it(runs, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(SystemExit) as exit:
            main([str(runs[0]), "--port", str(port)])
    assert exit.value.code == 2
    assert f"cannot serve on 127.0.0.1:{port}: " in capsys.readouterr().err


def test_a_url_and_folders_together_are_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit:
        main(["http://127.0.0.1:1/", str(tmp_path)])
    assert exit.value.code == 2
    assert "give one viewer URL, or run folders only" in capsys.readouterr().err


def test_an_episode_whose_policy_failed_shows_the_policys_traceback(runs, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(runs[0], copy)
    lines = (copy / "results.jsonl").read_text().splitlines()
    failed = json.loads(lines[0])
    failed["result"]["traceback"] = ("Traceback (most recent call last):\n  File \"policy.py\", line 3, in decide\n"
                                     "ValueError: the policy's own bug\n")
    (copy / "results.jsonl").write_text("\n".join([json.dumps(failed), *lines[1:]]) + "\n")
    with viewer(copy) as url, chromium_page() as page:
        page.goto(url)
        page.locator(f".card[data-task='{failed['result']['task_id']}']").click()
        page.wait_for_selector("#episode:not([hidden])")
        assert page.text_content("#episode .traceback") == failed["result"]["traceback"]


def test_the_calls_panel_shows_the_picture_shown_the_replies_sent_back_and_the_decision_that_failed(tmp_path):
    run = stumbling_llm_run(tmp_path / "llm").folder
    with viewer(run) as url, chromium_page() as page:
        page.goto(url)
        page.locator(".card[data-task='sim-0-0000']").click()
        page.wait_for_selector("#episode:not([hidden])")
        page.click("#episode .panel-calls > summary")
        page.wait_for_selector("#episode .panel-calls .call")
        assert page.locator("#episode .panel-calls .call").count() == 5  # the agent's, two summary tries, step 2's two
        picture = "#episode .panel-calls img[alt='agent-001.png']"  # the marked screen, not a screenshot
        page.wait_for_function("selector => { const i = document.querySelector(selector); "
                               "return i && i.complete && i.naturalWidth === 1280; }", arg=picture)
        errors = page.locator("#episode .panel-calls .call-error").all_text_contents()
        assert errors.count("sent back: the reply contains no JSON object") == 4  # two summary tries, two of step 2
        assert errors.count("gave up: the request got no usable answer") == 2
        assert "step 2: the decision that failed (no action was taken)" in errors  # after the last step
        assert page.text_content("#episode .panel-calls > summary") == "model calls (5)"
        page.click("#episode .panel-episode-calls > summary")  # the classifier's, about the whole episode
        assert page.text_content("#episode .panel-episode-calls > summary") == "model calls about the episode (1)"
        assert page.locator("#episode .panel-episode-calls .call-head").text_content().startswith("classifier · ")
        page.set_viewport_size({"width": 1200, "height": 1800})  # the episode's calls and the step's in one view
        page.locator(picture).scroll_into_view_if_needed()
        top = page.locator("#episode .verdict").bounding_box()
        bottom = page.locator("#episode .panel-calls").bounding_box()
        page.screenshot(path=str(artifacts(tmp_path) / "viewer-llm-calls.png"), clip={
            "x": bottom["x"] - 8, "y": top["y"] - 8, "width": bottom["width"] + 16,
            "height": bottom["y"] + bottom["height"] - top["y"] + 16})
        page.set_viewport_size({"width": 1200, "height": 900})
        page.keyboard.press("Escape")
        page.locator(".card[data-task='sim-0-0001']").click()  # its agent failed before any step
        page.wait_for_selector("#episode .panel-calls .call")
        assert page.locator("#episode .panel-calls .call").count() == 2  # its two replies
        page.wait_for_selector("#episode .panel-episode-calls:not([hidden])")
        assert page.locator("#episode .panel-episode-calls .call").count() == 1  # the classifier's
        assert "step 1: the decision that failed (no action was taken)" in page.text_content("#episode .panel-calls")
