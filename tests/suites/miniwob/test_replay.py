"""A MiniWoB run replayed: the agent gets the instruction the live episode ran with."""

import html
import json

import bench
from actors.run_folder import episode_dir, read_task
from bench.suites.miniwob.suite import miniwob_task

TASKS = ["click-button", "enter-text", "click-checkboxes"]


def test_a_replayed_miniwob_run_scores_the_same_scripted_agent_step_for_step(tmp_path):
    live = bench.run_sync("miniwob", options={"tasks": TASKS, "seeds": [2]}, concurrency=2, out=tmp_path / "live")
    solved = [line.result for line in live.results if line.result.success]
    assert len(solved) >= 2, [line.result.reason for line in live.results]
    for result in solved:
        recorded = read_task(episode_dir(live.folder, result.task_id, result.attempt))
        placeholder = miniwob_task(result.domain, 2).instruction
        assert recorded.instruction and recorded.instruction != placeholder  # the page's own utterance

    replay = bench.run_sync(f"replay:{live.folder}", agent="scripted", out=tmp_path / "replay")
    again = {line.result.task_id: line.result for line in replay.results}
    for result in solved:  # every recorded step matched: step accuracy 1.0 on each solved episode
        assert again[result.task_id].success and again[result.task_id].score == 1.0, again[result.task_id].reason
        assert again[result.task_id].steps == result.steps
    metrics = json.loads((replay.folder / "summary.json").read_text())["metrics"]
    assert metrics["scored_steps"] >= sum(r.steps for r in solved)
    page = (live.folder / "report.html").read_text()
    for result in solved:  # the report shows the instruction each episode really ran with
        assert html.escape(read_task(episode_dir(live.folder, result.task_id, result.attempt)).instruction) in page
