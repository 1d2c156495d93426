"""The episode view as a researcher debugs with it, in a real headless Chromium over the real
`python -m bench.viewer`: a real MiniWoB++ run (its scripted agent names its targets by node id
only) and a real sim run whose agent names a node by id and name, has its steps judged by an LLM
summarizer shown the screenshots (a local chat-completions server) and fails with a traceback. The target is drawn from
the step's tree, MiniWoB's cards differ, and the tree, model-call and error panels open. With
$TROUPE_ARTIFACTS set, the screenshots README shows are kept there (docs/viewer-run.png,
viewer-episode.png, viewer-panels.png)."""

import hashlib
import json
import os
import subprocess
import sys
import urllib.request

import pytest

from protocols import Click, Decision, Target, TypeText
from tests.bench.viewer.test_runs import artifacts, viewer
from tests.chromium import chromium_page
from tests.fake_llm import FakeLLM, by_role
from tests.llm_crew import SUMMARY
from tests.paths import ROOT

MINIWOB_TASKS = ("click-button", "enter-text", "click-checkboxes", "click-tab")


class Stumbler:
    """Types into the first text field naming it by id and name only (no box, as README's
    FormFiller does), clicks a node that is not there, then raises: its own bug."""

    async def decide(self, request):
        field = next(e for e in request.observation.tree.walk() if e.role == "textbox")
        if request.step == 1:
            return Decision(action=TypeText(text="hello", target=Target(node_id=field.node_id, name=field.name)))
        if request.step == 2:
            return Decision(action=Click(target=Target(node_id="nowhere", name="Gone")))
        raise ValueError("the stumbler's own bug")


def supervisor(*args: str, env: dict | None = None) -> None:
    run = subprocess.run([sys.executable, "-m", "bench.supervisor", *args], cwd=ROOT, capture_output=True, text=True,
                         timeout=180, env={**os.environ, **(env or {})})
    assert run.returncode == 0, run.stderr[-2000:]


@pytest.fixture(scope="module")
def miniwob_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "miniwob"
    supervisor("--suite", "miniwob", "--miniwob-tasks", ",".join(MINIWOB_TASKS), "--miniwob-seeds", "1",
               "--concurrency", "2", "--out", str(out))
    return out


@pytest.fixture(scope="module")
def stumbling_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "sim"
    with FakeLLM(by_role(agent=lambda body: "unused", summarizer=lambda body: SUMMARY), api_key="k3y") as server:
        supervisor("--suite", "sim", "--episodes", "2", "--scale", "0.02", "--agent", f"{__name__}:Stumbler",
                   "--summarizer", "llm", "--llm-base-url", server.url, "--llm-model", "fake-model",
                   "--llm-api-key-env", "TEST_LLM_KEY", "--llm-observation", "both", "--out", str(out),
                   env={"TEST_LLM_KEY": "k3y"})
    return out


def open_episode(page, task: str) -> None:
    page.locator(f".card[data-task='{task}']").click()
    page.wait_for_selector("#episode:not([hidden])")


def overlap(a: dict, b: dict) -> bool:
    return a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"] \
        and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]


def test_miniwob_cards_differ_and_a_node_id_target_is_drawn_from_the_tree(miniwob_run, tmp_path):
    shots = artifacts(tmp_path)
    with viewer(miniwob_run, token=None) as url, chromium_page() as page:
        page.goto(url)
        page.wait_for_function(f"() => document.querySelectorAll('.card img').length === {len(MINIWOB_TASKS)} && "
                               "[...document.querySelectorAll('.card img')].every(i => i.complete && i.naturalWidth)")
        sources = dict(page.eval_on_selector_all(".card", "cs => cs.map(c => [c.dataset.task, "
                                                          "c.querySelector('img').src])"))
        for task, src in sources.items():  # the screen the deciding action was taken on, not the START screen after
            deciding = max(record["step"] for record in steps(miniwob_run, task) if record["action"]["type"] != "done")
            assert src.endswith(f"/{deciding - 1}"), (task, src)
        pictures = {hashlib.sha256(urllib.request.urlopen(src, timeout=10).read()).hexdigest()
                    for src in sources.values()}
        assert len(pictures) == len(MINIWOB_TASKS), sources
        height = page.eval_on_selector("#cards", "e => e.getBoundingClientRect().bottom") + 12
        page.screenshot(path=str(shots / "viewer-run.png"), clip={"x": 0, "y": 0, "width": 1200, "height": height})

        task = next(t for t in page.eval_on_selector_all(".card", "cs => cs.map(c => c.dataset.task)")
                    if t.startswith("enter-text"))
        open_episode(page, task)
        record = steps(miniwob_run, task)[0]
        target = record["action"]["target"]
        assert record["action"]["type"] == "type" and "bbox" not in target  # a node id, no box
        observation = json.loads((miniwob_run / "episodes" / task / "1" / "observation-001.json").read_text())
        node = next(n for n in walk(observation["tree"]) if n["node_id"] == target["node_id"])
        box = page.locator(f"#episode .stage svg rect.box[data-node='{target['node_id']}']")
        box.wait_for(timeout=10000)
        assert [float(box.get_attribute(k)) for k in ("x", "y", "width", "height")] == node["bbox"]
        typed = page.locator("#episode .stage svg text.typed")
        assert typed.text_content() == f'⌨ "{record["action"]["text"]}"'
        assert not overlap(typed.bounding_box(), box.bounding_box())  # beside the field, not over what it typed
        page.wait_for_selector(f"#episode .thumb.current svg rect.box[data-node='{target['node_id']}']")
        x, y, width, height = node["bbox"]
        assert page.locator("#episode .stepinfo div", has_text="target: ").text_content() == (
            f"target: [{target['node_id']}] textbox at ({x:.0f}, {y:.0f}), {width:.0f}×{height:.0f}")

        page.click("#episode .panel-tree > summary")
        marked = page.locator("#episode .panel-tree .tree-line.target")
        marked.wait_for()
        assert marked.text_content().startswith(f"[{target['node_id']}] textbox") and marked.is_visible()
        page.fill("#episode .panel-tree input[type=search]", 'button "submit')
        assert page.locator("#episode .panel-tree .tree-line.match").all_text_contents() == [
            next(f"[{n['node_id']}] button \"Submit\"" for n in walk(observation["tree"]) if n.get("name") == "Submit")]
        assert page.text_content("#episode .panel-tree .tree-found").startswith("1 of ")
        page.screenshot(path=str(shots / "viewer-episode.png"))


def test_the_tree_model_calls_and_error_of_a_step_are_in_its_panels(stumbling_run, tmp_path):
    shots = artifacts(tmp_path)
    with viewer(stumbling_run, token=None) as url, chromium_page() as page:
        page.goto(url)
        page.wait_for_selector(".card")
        open_episode(page, "sim-0-0000")
        target = steps(stumbling_run, "sim-0-0000")[0]["action"]["target"]
        assert set(target) == {"node_id", "name"}  # named, no box
        page.wait_for_selector(f"#episode .stage svg rect.box[data-node='{target['node_id']}']")

        error = page.locator("#episode .panel-error")
        assert error.get_attribute("open") is not None  # the episode ended on its policy's error: shown at once
        assert "ValueError: the stumbler's own bug" in error.locator(".traceback").text_content()
        assert error.locator(".episode-error").text_content().startswith(
            "episode ended (agent error): agent: policy raised ValueError")

        page.click("#episode .panel-calls > summary")
        call = page.locator("#episode .panel-calls .call").first
        call.wait_for()
        assert call.locator(".call-head").text_content().startswith("summarizer · ")
        assert json.loads(SUMMARY)["changes"] in call.locator(".reply").text_content()
        assert page.text_content("#episode .panel-calls > summary") == "model calls (1)"
        images = call.locator("img.image-ref")  # the screens before and after, as the summarizer saw them
        page.wait_for_function("() => [...document.querySelectorAll('#episode .call img.image-ref')]"
                               ".every(i => i.complete && i.naturalWidth > 0)")
        assert [images.nth(i).get_attribute("alt") for i in range(images.count())] == ["step-000.png", "step-001.png"]
        page.eval_on_selector("#episode .stepinfo", "e => e.scrollIntoView({block: 'start'})")
        page.screenshot(path=str(shots / "viewer-panels.png"))

        page.click("#episode .panel-tree > summary")
        page.wait_for_selector("#episode .panel-tree .tree-line.target")
        page.locator("#episode .panel-tree .tree-line", has_text="[w1]").hover()  # its box drawn on the screen
        page.wait_for_selector("#episode .stage svg rect.hover")
        page.keyboard.press("ArrowRight")  # the panels stay open from step to step
        page.wait_for_function("() => document.querySelector('#episode-step').textContent.startsWith('step 2 ')")
        assert page.locator("#episode .panel-tree").get_attribute("open") is not None
        page.wait_for_selector("#episode .panel-tree .tree-line")
        assert page.locator("#episode .panel-tree .tree-line.target").count() == 0
        assert page.text_content("#episode .stepinfo div:has-text('target: ')") == (
            "target: node nowhere is not in the tree the agent saw")


def steps(run, task: str) -> list[dict]:
    lines = (run / "episodes" / task / "1" / "steps.jsonl").read_text().splitlines()
    return [json.loads(line)["step"] for line in lines if line.startswith('{"step"')]


def walk(node):
    yield node
    for child in node.get("children", ()):
        yield from walk(child)
