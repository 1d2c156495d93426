"""An episode's verdict under Mind2Web's metrics: success when every step is right, the score its share of right steps."""

from __future__ import annotations

from statistics import mean
from typing import Sequence

import anyio

from protocols import Evaluate, StepRecord, Task, Verdict

from bench.suites.mind2web.page import OPTION
from bench.suites.mind2web.recordings import Recordings
from bench.suites.mind2web.scoring import TaskScore, score_task

__all__ = ["Mind2WebChecker", "score_episode"]


def score_episode(recordings: Recordings, task: Task, records: Sequence[StepRecord]) -> TaskScore:
    """The steps of one episode scored against its task's labels (blocking: reads the task's file)."""
    actions = [record.action for record in sorted(records, key=lambda r: r.step)]
    options = any(OPTION in (getattr(getattr(a, "target", None), "node_id", None) or "") for a in actions)
    pages = recordings.pages(task, texts=options)
    return score_task(actions, pages, task_id=task.task_id, split=task.domain, website=task.raw_config["website"],
                      domain=task.raw_config["domain"])


class Mind2WebChecker:
    def __init__(self, recordings: Recordings) -> None:
        self.recordings = recordings

    async def check(self, request: Evaluate) -> Verdict:
        scored = await anyio.to_thread.run_sync(score_episode, self.recordings, request.task, request.steps)
        steps = scored.steps
        right = sum(step.success for step in steps)
        reason = (f"{right}/{len(steps)} steps right (element {sum(s.element for s in steps)}/{len(steps)}, "
                  f"operation F1 {mean(s.f1 for s in steps):.2f})")
        if len(request.steps) < len(steps):
            reason += f"; {len(steps) - len(request.steps)} not reached"
        return Verdict(success=scored.success, score=right / len(steps), reason=reason)
