"""Mind2Web runs end to end: the scripted baseline through the CLI and through `bench.run` on both event
loops, and the LLM agent against the local chat-completions server, each checked against figures worked
out by hand from tests/suites/mind2web/data.py.

What the scripted baseline does (it clicks the element sharing most words with the task, leaving out
names a recorded earlier action has, ties to the first in document order):

- ann-flight (test_task, united, Travel): step 1 clicks "One-way" {one, way}: right. Step 2, "One-way"
  left out, "From" {from} and "Search flights" {flights} tie and "From" comes first: the right element,
  but a CLICK where the label is "TYPE New York": F1 0. Element 1, F1 1/2, steps 1/2; not a success.
- ann-shoe (test_task, nike, Shopping): "Add to cart" {add, to, cart}: right. All 1; a success.
- ann-seat (test_website, delta, Travel): "cabin" and "Continue" share nothing; the select comes first and
  its option "Economy" matches: SELECT Economy on it, right. All 1; a success.
- ann-movie (test_domain, imdb, Entertainment): step 1 "Dune: Part Two" {dune}: right. Step 2, that name
  left out, "Trailer reviews" {trailer} beats "Watch": a CLICK (F1 1) on a wrong element.
  Element 1/2, F1 1, steps 1/2; not a success.
- ann-empty (test_domain, imdb, Entertainment): no positive candidate, so the step is wrong whatever is
  clicked; CLICK against "CLICK" is F1 1. Element 0, F1 1, steps 0.
"""

import json
import os
import subprocess
import sys

import pytest

import bench
from actors.llm import agent as agent_prompt
from actors.llm.observation import MARKS_HEADING
from actors.run_folder import episode_dir, read_results, read_steps
from bench.suites.mind2web.dataset import _read_cached
from protocols import Click
from tests.fake_llm import FakeLLM, by_role
from tests.llm_crew import prompt_text, role_requests
from tests.bench.test_llm_cli import llm_run_command
from tests.bench.viewer.test_runs import artifacts, viewer
from tests.chromium import chromium_page
from tests.paths import ROOT
from tests.suites.mind2web.data import write_multimodal, write_release

SCRIPTED = {  # split: tasks, element accuracy, operation F1, step success, task success (macro over tasks)
    "test_task": (2, (1 + 1) / 2, (1 / 2 + 1) / 2, (1 / 2 + 1) / 2, 1 / 2),
    "test_website": (1, 1.0, 1.0, 1.0, 1.0),
    "test_domain": (2, (1 / 2 + 0) / 2, 1.0, (1 / 2 + 0) / 2, 0.0),
}
SCRIPTED_OVERALL = (5, (1 + 1 + 1 + 1 / 2 + 0) / 5, (1 / 2 + 1 + 1 + 1 + 1) / 5, (1 / 2 + 1 + 1 + 1 / 2 + 0) / 5, 2 / 5)
SCRIPTED_MICRO = {  # over steps: test_task has 3, test_domain 3
    "test_task": (3 / 3, (1 + 0 + 1) / 3, 2 / 3),
    "test_domain": (1 / 3, 3 / 3, 1 / 3),
}


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    return write_release(tmp_path_factory.mktemp("release"))


@pytest.fixture(scope="module")
def multimodal(tmp_path_factory):
    return write_multimodal(tmp_path_factory.mktemp("multimodal"))


def four(block):
    return (block["tasks"], block["element_accuracy"], block["operation_f1"], block["step_success_rate"],
            block["task_success_rate"])


def assert_scripted_figures(found):
    assert found["splits"].keys() == SCRIPTED.keys()
    for split, expected in SCRIPTED.items():
        assert four(found["splits"][split]) == pytest.approx(expected), split
    assert four(found["overall"]) == pytest.approx(SCRIPTED_OVERALL)
    for split, (element, f1, step) in SCRIPTED_MICRO.items():
        micro = found["splits"][split]["micro"]
        assert (micro["element_accuracy"], micro["operation_f1"], micro["step_success_rate"]) == pytest.approx(
            (element, f1, step))
    websites = found["splits"]["test_task"]["websites"]
    assert four(websites["united"]) == pytest.approx((1, 1.0, 0.5, 0.5, 0.0))
    assert four(websites["nike"]) == pytest.approx((1, 1.0, 1.0, 1.0, 1.0))
    domains = found["splits"]["test_domain"]["domains"]
    assert list(domains) == ["Entertainment"] and four(domains["Entertainment"]) == pytest.approx(
        SCRIPTED["test_domain"])
    assert found["overall"]["task_success_interval"] == pytest.approx([0.1176, 0.7693], abs=1e-4)  # Wilson, 2 of 5


@pytest.fixture(scope="module")
def scripted_run(release, tmp_path_factory):
    """The CLI's run of the release with the suite's default agent, the scripted baseline."""
    out = tmp_path_factory.mktemp("scripted") / "run"
    result = subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", "mind2web", "--mind2web-data",
                             str(release), "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    return result, out


def test_the_cli_runs_the_scripted_baseline_with_no_model_and_summarizes_per_split(scripted_run):
    result, out = scripted_run
    assert "  test_task         2  100.0%   75.0%   75.0%   50.0% [9%, 91%]" in result.stdout
    assert "  all               5   70.0%   90.0%   60.0%   40.0% [12%, 77%]" in result.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert_scripted_figures(summary["mind2web"])
    assert summary["domains"]["test_task"]["succeeded"] == 1  # troupe's own table: a split per "domain"
    results = {line.result.task_id: line.result for line in read_results(out)}
    assert results["ann-flight"].reason == ("the recording ends after step 2; 1/2 steps right (element 2/2, "
                                          "operation F1 0.50)")
    assert results["ann-flight"].score == 0.5 and not results["ann-flight"].success
    assert results["ann-seat"].success and results["ann-seat"].score == 1.0
    second = read_steps(episode_dir(out, "ann-flight", 1))[1]
    assert isinstance(second.action, Click) and second.action.target.node_id == "103"
    assert second.reference.text == "New York" and second.reference.target.node_id == "103"  # kept beside it
    config = json.loads((out / "run.json").read_text())["config"]
    assert config["agent"] == "mind2web-scripted" and config["summarizer"] == "none"


@pytest.mark.anyio
async def test_bench_run_scores_the_multimodal_release_the_same(multimodal, tmp_path):
    _read_cached.cache_clear()  # this module's other runs read the same paths in another event loop's worker
    run = await bench.run("mind2web", options={"data": str(multimodal)}, out=str(tmp_path / "run"), concurrency=2)
    assert_scripted_figures(run.summary["mind2web"])
    movie = episode_dir(run.folder, "ann-movie", 1)
    assert (movie / "step-000.png").stat().st_size > 0  # the release's screenshot, as the agent saw it
    observation = json.loads((movie / "observation-002.json").read_text())
    assert observation["previous_actions"] == ["[link]  Dune: Part Two -> CLICK"]
    assert [e["node_id"] for e in observation["tree"]["children"]] == ["601", "602", "603"]


GOLD = {  # what a model that knows the answers names, per task and step: (element name, text to type)
    "Find one-way flights from New York to London": [("One-way", None), ("From", "New York")],
    "Add running shoes to cart": [("Add to cart", None)],
    "Choose economy class for the trip": [("Economy", None)],
    "Show the trailer of Dune": [("Dune: Part Two", None), ("Watch", None)],
    "Open the help page": [("Help", None)],
}


def knows_the_answers(body):
    """Names the labelled element by mark when the prompt has marks, else by node_id from the tree text."""
    text = prompt_text(body)
    task = text.split("Task: ", 1)[1].split("\n", 1)[0]
    step = int(text.split("This is step ", 1)[1].split(" ", 1)[0])
    name, typed = GOLD[task][step - 1]
    marked = MARKS_HEADING in text
    found = next(line for line in text.splitlines() if line.strip().startswith("[") and f'"{name}"' in line)
    key = found.strip()[1:].split("]", 1)[0]
    target = {"mark": int(key)} if marked else {"node_id": key}
    action = {"type": "type", "text": typed, "target": target} if typed else {"type": "click", "target": target}
    return json.dumps({"thought": name, "action": action})


def test_the_llm_agent_sees_marks_and_the_recorded_history_and_is_scored(multimodal, tmp_path):
    out = tmp_path / "run"
    with FakeLLM(by_role(agent=knows_the_answers)) as server:
        run = llm_run_command(server, out, "--suite", "mind2web", "--mind2web-data", str(multimodal),
                              "--llm-observation", "som", "--summarizer", "none", "--analysis", "signals")
    assert run.returncode == 0, run.stderr
    found = json.loads((out / "summary.json").read_text())["mind2web"]
    # every step right but ann-empty's, which has no positive candidate
    assert four(found["overall"]) == pytest.approx((5, 4 / 5, 1.0, 4 / 5, 4 / 5))
    assert four(found["splits"]["test_domain"]) == pytest.approx((2, 1 / 2, 1.0, 1 / 2, 1 / 2))
    prompts = [prompt_text(body) for body in role_requests(server, agent_prompt)]
    typed = next(p for p in prompts if "This is step 2" in p and "New York to London" in p)
    assert "The actions taken before this screen" in typed and "- [link]  One-way -> CLICK" in typed
    assert "Your previous steps" not in typed
    marked = [p for p in prompts if "Task: Show the trailer of Dune" in p]
    assert len(marked) == 2 and all(MARKS_HEADING in p for p in marked)  # screenshots: set-of-marks
    assert MARKS_HEADING not in typed and '[103] textbox "From"' in typed  # no screenshot: the tree instead
    assert '[401/option/3] option "Economy"' in next(p for p in prompts if "economy class" in p)


def test_the_viewer_shows_a_steps_candidates_the_chosen_one_and_the_reference(scripted_run, tmp_path):
    _, out = scripted_run
    with viewer(out, token=None) as url, chromium_page() as page:
        page.goto(url)
        page.click(".card[data-task='ann-movie']")
        page.wait_for_selector("#episode:not([hidden])")
        page.keyboard.press("ArrowRight")
        assert page.text_content("#episode-step") == "step 2 of 2"
        info = page.text_content("#episode .stepinfo")
        assert "step 2: click 'Trailer reviews'" in info and "reference: click 'Watch'" in info
        page.click("#episode .panel-tree > summary")
        page.wait_for_selector("#episode .panel-tree .tree-line.reference")
        lines = page.eval_on_selector_all("#episode .panel-tree .tree-line",
                                          "ls => ls.map(l => [l.dataset.node, l.className])")
        assert lines == [["page", "tree-line"], ["601", "tree-line reference"], ["602", "tree-line"],
                         ["603", "tree-line target"]]
        page.screenshot(path=str(artifacts(tmp_path) / "viewer-mind2web.png"))


def test_the_report_shows_the_figures_per_split_website_and_domain(scripted_run, tmp_path):
    _, out = scripted_run
    with chromium_page() as page:
        page.goto((out / "report.html").as_uri())
        headings = page.locator("#suite-figures h3").all_text_contents()
        assert headings[:2] == ["mind2web", "mind2web › splits"]
        assert "mind2web › splits › test_task › websites" in headings
        assert "mind2web › splits › test_domain › domains" in headings
        cells = ("table => Object.fromEntries([...table.tBodies[0].rows].map(row => [row.cells[0].textContent, "
                 "Object.fromEntries([...row.cells].slice(1).map((cell, i) => "
                 "[table.tHead.rows[0].cells[i + 1].textContent, cell.textContent]))]))")
        tables = page.eval_on_selector_all("#suite-figures table", f"tables => tables.map({cells})")
        overall, splits = tables[0]["overall"], tables[1]
        assert (overall["tasks"], overall["element accuracy"], overall["task success interval"]) == (
            "5", "0.7", "[0.1176, 0.7693]")
        assert [splits[s][c] for s in SCRIPTED for c in ("tasks", "operation f1", "task success rate")] == [
            "2", "0.75", "0.5", "1", "1", "1", "2", "1", "0"]
        assert splits["test_task"]["micro operation f1"] == "0.6667"  # a nested block's figures as columns
        united = tables[headings.index("mind2web › splits › test_task › websites")]["united"]
        assert (united["operation f1"], united["step success rate"], united["task success rate"]) == ("0.5", "0.5", "0")
        page.locator("#suite-figures").screenshot(path=str(artifacts(tmp_path) / "report-mind2web.png"))
