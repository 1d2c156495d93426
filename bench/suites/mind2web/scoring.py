"""Mind2Web's metrics, from their definitions in Mind2Web's evaluation code.

Mind2Web (Deng et al., NeurIPS 2023) scores each step of a recorded task
against its label, the agent always continuing from the recorded history, in
`src/action_prediction/metric.py` of the OSU-NLP-Group/Mind2Web repository
(`calculate_f1` and `evaluate_dataset`). Re-implemented here from those
definitions:

- element accuracy: the predicted element is one of the step's positive
  candidates (by `backend_node_id`); a step with no positive candidate is
  wrong whatever is predicted.
- operation F1: token F1 of the predicted operation against the label's,
  both written "<OP> <value>", where the label of a CLICK is "CLICK" alone.
  Tokens are split on whitespace and compared as sets, case kept; a token
  that occurs within `string.punctuation` as written (one mark, or a run such
  as "()") is dropped; both empty scores 1, one empty 0.
- step success: element right and operation F1 exactly 1.
- task success: every step of the task a success (the share of tasks with
  no wrong step, `error_ratio[0]` there).

Figures are macro averages, the mean over tasks of each task's mean, as the
paper reports them ("macro average across tasks"), and micro ones, the mean
over steps, as `element_acc`, `action_f1` and `step_acc` there; per split,
and within one per website and per domain (Mind2Web's `acc_per_website`).
A run with repeats scores each task as the mean over its episodes.
A step the agent never reached (it stopped, or a limit ended the episode)
scores 0 on everything: the label is there, the prediction is not.

What an action predicts: a click names its element by node_id, or by a point
(the smallest candidate box holding it) with op CLICK; clicking a select's
option is SELECT of that option on the select; typing is TYPE of the text on
its target, or SELECT when the target is a `<select>`; any other action
predicts no element and no operation.
"""

from __future__ import annotations

import string
from collections import defaultdict
from dataclasses import dataclass
from statistics import mean
from typing import Iterable, Sequence

from protocols import Action, Click, DoubleClick, Point, RightClick, Target, TripleClick, TypeText

from bench.stats import clustered_wilson, wilson
from bench.suites.mind2web.page import Candidate, Page

__all__ = ["Prediction", "StepScore", "TaskScore", "figures", "label", "operation_f1", "predict", "score_step",
           "score_task"]


@dataclass(frozen=True)
class Prediction:
    element: str | None
    op: str = ""
    value: str = ""

    def text(self) -> str:
        return f"{self.op} {self.value}"


@dataclass(frozen=True)
class StepScore:
    element: bool
    f1: float

    @property
    def success(self) -> bool:
        return self.element and self.f1 == 1.0


MISSED = StepScore(element=False, f1=0.0)


@dataclass(frozen=True)
class TaskScore:
    """One episode of a task, scored step by step."""

    task_id: str
    split: str
    website: str
    domain: str
    steps: tuple[StepScore, ...]

    @property
    def success(self) -> bool:
        return all(step.success for step in self.steps)


def label(page: Page) -> str:
    """The label's operation as Mind2Web writes it: "CLICK", or "TYPE <value>" / "SELECT <value>"."""
    return page.op if page.op == "CLICK" else f"{page.op} {page.value}"


def operation_f1(predicted: str, labelled: str) -> float:
    ours, theirs = _tokens(predicted), _tokens(labelled)
    if not ours and not theirs:
        return 1.0
    if not ours or not theirs:
        return 0.0
    shared = len(ours & theirs)
    if not shared:
        return 0.0
    precision, recall = shared / len(ours), shared / len(theirs)
    return 2 * precision * recall / (precision + recall)


def _tokens(text: str) -> set[str]:
    return {token for token in text.split() if token not in string.punctuation}


def predict(action: Action | None, page: Page) -> Prediction:
    match action:
        case Click() | DoubleClick() | TripleClick() | RightClick():
            element = _element(action.point, action.target, page)
            if element is not None and (option := page.option(element)) is not None:
                return Prediction(option[0].node_id, "SELECT", option[1])
            return Prediction(element, "CLICK")
        case TypeText(text=text, target=target):
            element = _element(None, target, page)
            candidate = page.by_id.get(element or "")
            return Prediction(element, "SELECT" if candidate is not None and candidate.tag == "select" else "TYPE",
                              text)
    return Prediction(None)


def _element(point: Point | None, target: Target | None, page: Page) -> str | None:
    """The candidate (or option) an action's place names: its node_id if the page has it, else
    the candidate under its point or its target box's centre."""
    if target is not None and target.node_id and (target.node_id in page.by_id or page.option(target.node_id)):
        return target.node_id
    spot = None
    if point is not None:
        if point.unit == "px":
            spot = (point.x, point.y)
        elif page.viewport is not None:
            spot = point.to_pixels(page.viewport.width, page.viewport.height)
    elif target is not None and target.bbox is not None:
        spot = target.bbox.center
    found: Candidate | None = page.at(*spot) if spot is not None else None
    return found.node_id if found is not None else None


def score_step(action: Action | None, page: Page) -> StepScore:
    prediction = predict(action, page)
    element = bool(page.positives) and prediction.element in page.positives
    return StepScore(element=element, f1=operation_f1(prediction.text(), label(page)))


def score_task(actions: Sequence[Action | None], pages: Sequence[Page], *, task_id: str, split: str, website: str,
               domain: str) -> TaskScore:
    """The steps of one episode: `actions[i]` was decided on `pages[i]`; pages past the actions were not reached."""
    steps = tuple(score_step(actions[i], page) if i < len(actions) else MISSED for i, page in enumerate(pages))
    return TaskScore(task_id=task_id, split=split, website=website, domain=domain, steps=steps)


def figures(tasks: Iterable[TaskScore]) -> dict:
    """Per split (and within each, per website and per domain) and overall: Mind2Web's four
    metrics as macro averages, task success with its 95% Wilson interval, and the micro averages."""
    by_split: dict[str, list[TaskScore]] = defaultdict(list)
    every = list(tasks)
    for task in every:
        by_split[task.split].append(task)
    splits = {}
    for split, group in sorted(by_split.items()):
        splits[split] = {**_block(group), "websites": _grouped(group, "website"), "domains": _grouped(group, "domain")}
    return {"overall": _block(every), "splits": splits}


def _grouped(tasks: list[TaskScore], key: str) -> dict[str, dict]:
    groups: dict[str, list[TaskScore]] = defaultdict(list)
    for task in tasks:
        groups[getattr(task, key)].append(task)
    return {name: _block(group) for name, group in sorted(groups.items())}


def _block(episodes: list[TaskScore]) -> dict:
    """A group's figures. A task with several episodes (a run with repeats) is one task: its
    figures are the mean over its episodes, and task success's interval counts tasks as clusters
    (`bench.stats.clustered_wilson`, as the run's own success interval does)."""
    if not episodes:
        return {"tasks": 0, "episodes": 0, "steps": 0}
    by_task: dict[str, list[TaskScore]] = defaultdict(list)
    for episode in episodes:
        by_task[episode.task_id].append(episode)
    steps = [step for episode in episodes for step in episode.steps]
    succeeded = sum(episode.success for episode in episodes)
    clusters = [(sum(e.success for e in group), len(group)) for group in by_task.values()]
    interval = wilson(succeeded, len(episodes)) if len(by_task) == len(episodes) else clustered_wilson(clusters)[:2]

    def macro(value) -> float:
        return mean(mean(mean(value(step) for step in e.steps) for e in group) for group in by_task.values())

    def micro(value) -> float:
        return mean(value(step) for step in steps)

    return {
        "tasks": len(by_task),
        "episodes": len(episodes),
        "steps": len(steps),
        "element_accuracy": macro(lambda s: float(s.element)),
        "operation_f1": macro(lambda s: s.f1),
        "step_success_rate": macro(lambda s: float(s.success)),
        "task_success_rate": mean(successes / n for successes, n in clusters),
        "task_success_interval": list(interval),
        "episodes_succeeded": succeeded,
        "micro": {
            "element_accuracy": micro(lambda s: float(s.element)),
            "operation_f1": micro(lambda s: s.f1),
            "step_success_rate": micro(lambda s: float(s.success)),
        },
    }
