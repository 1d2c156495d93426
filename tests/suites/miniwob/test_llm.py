"""The LLM agent, summarizer and classifier on real MiniWoB++ tasks in real Chromium,
through the CLI, against the local chat-completions server."""

import json
import re

from actors.llm import agent as agent_prompt, analysis as classifier_prompt
from actors.run_folder import read_results
from tests.fake_llm import FakeLLM, by_role
from tests.llm_crew import CLASSIFICATION, SUMMARY, prompt_text, role_requests
from tests.bench.test_llm_cli import llm_run_command


def button_clicker(body):
    """Clicks the button the instruction names (click-button), then says done; on
    any other task it says done at once, so that episode fails and is analysed."""
    text = prompt_text(body)
    wanted = re.search(r'Task: Click on the "([^"]+)" button', text)
    if wanted is None or "step 1:" in text:
        return json.dumps({"thought": "finished", "action": {"type": "done"}})
    node = re.search(r'^\s*\[(\w+)\] button "' + re.escape(wanted[1]) + '"', text, re.MULTILINE)[1]
    return json.dumps({"thought": f"the {wanted[1]} button", "action": {"type": "click", "target": {"node_id": node}}})


def test_llm_agent_on_real_miniwob_tasks_with_summaries_and_analysis_in_the_run_folder(tmp_path):
    out = tmp_path / "run"
    roles = by_role(agent=button_clicker, summarizer=lambda body: SUMMARY, classifier=lambda body: CLASSIFICATION)
    with FakeLLM(roles) as server:
        run = llm_run_command(server, out, "--suite", "miniwob", "--miniwob-tasks", "click-button,enter-text",
                              "--miniwob-seeds", "1", "--concurrency", "2")
    assert run.returncode == 0, run.stderr
    results = {line.result.task_id.partition("@")[0]: line for line in read_results(out)}
    clicked, typed = results["click-button"], results["enter-text"]
    assert clicked.result.success and clicked.result.reason.startswith("raw reward 1"), clicked.result.reason
    assert clicked.categories == {"success": 1.0}
    assert not typed.result.success and typed.summary == "gave up before submitting"
    assert len(role_requests(server, classifier_prompt)) == 1
    assert "button" in prompt_text(role_requests(server, agent_prompt)[0])  # the page's own tree
    steps = (out / "episodes" / clicked.result.task_id / "1" / "steps.jsonl").read_text()
    assert "the field shows the text" in steps  # the change summary of the click, in the run folder
    summary = json.loads((out / "summary.json").read_text())["taxonomy"]
    assert summary["categories"] == {"navigation_planning": 1, "success": 1}
