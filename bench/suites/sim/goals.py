"""The goals of a sim task and the action each asks for: what the simulated agent does, and what
any agent's step is scored against.

A task's instruction is a list of sentences ("Type 'alice' into 'Name'.",
"Check 'Subscribe'.", "Click 'Submit'.", "Press 'enter'."), each one goal, to
be reached in order. Which goal comes next is read off the steps so far (the
goals their actions reached, in order), and the action it asks for is
grounded in the screen's tree: the suite knows the right element of every
step, so a live run is scored as a replayed recording is (step and grounding
accuracy), whoever chose its actions.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import NamedTuple

from protocols import Action, Click, Done, Key, Observation, StepRecord, Target, Task, TypeText, UIElement, Wait

__all__ = ["Expected", "expected_action", "parse_goals", "step_reference"]

_GOAL = re.compile(
    r"Type '(?P<text>[^']*)' into '(?P<field>[^']*)'\.|(?:Click|Check) '(?P<name>[^']*)'\.|Press '(?P<key>[^']*)'\."
)


@functools.lru_cache(maxsize=1024)
def parse_goals(instruction: str) -> tuple[re.Match, ...]:
    """The instruction's goals in order; cached, as every step of an episode asks again."""
    return tuple(_GOAL.finditer(instruction))


class Expected(NamedTuple):
    """The action the next goal asks for on a screen, why, and that goal's number (0: none left).
    The action is a Wait when the screen does not show the goal's element."""

    action: Action
    reason: str
    goal: int


def expected_action(instruction: str, observation: Observation, actions: Sequence[Action]) -> Expected:
    goals = parse_goals(instruction)
    index = _goals_done(goals, actions, observation)
    if index >= len(goals):
        return Expected(Done(), "every goal of the instruction is done", 0)
    goal, number = goals[index], index + 1
    if goal["key"] is not None:
        return Expected(Key(key=goal["key"]), f"goal {number}: press {goal['key']}", number)
    tree = observation.tree
    if tree is None:
        return Expected(Wait(seconds=0), "no accessibility tree yet; waiting for one", number)
    name = goal["field"] if goal["text"] is not None else goal["name"]
    element = next((e for e in tree.walk() if e.bbox is not None and e is not tree and e.name == name), None)
    if element is None:
        return Expected(Wait(seconds=0), f"no element named {name!r} on screen", number)
    if goal["text"] is not None:
        return Expected(TypeText(text=goal["text"], target=target_of(element)), f"goal {number}: type into {name!r}",
                        number)
    return Expected(Click(target=target_of(element)), f"goal {number}: click {name!r}", number)


def step_reference(task: Task, observation: Observation, history: Sequence[StepRecord]) -> Action | None:
    """The action a step on `observation` is scored against (`actors.episode.StepReference`); None
    when the screen does not show the element the next goal names."""
    action = expected_action(task.instruction, observation, [record.action for record in history]).action
    return None if isinstance(action, Wait) else action


def target_of(element: UIElement) -> Target:
    return Target(node_id=element.node_id, bbox=element.bbox, role=element.role, name=element.name)


def _goals_done(goals: tuple[re.Match, ...], actions: Sequence[Action], observation: Observation) -> int:
    """How many goals, in order, the earlier actions achieved."""
    done = 0
    for action in actions:
        if done < len(goals) and _achieves(action, goals[done], observation):
            done += 1
    return done


def _achieves(action: Action, goal: re.Match, observation: Observation) -> bool:
    if goal["key"] is not None:
        return isinstance(action, Key) and action.key == goal["key"]
    name = _name_of_place(action, observation)
    if goal["text"] is not None:
        return isinstance(action, TypeText) and action.text == goal["text"] and name == goal["field"]
    return isinstance(action, Click) and name == goal["name"]


def _name_of_place(action: Action, observation: Observation) -> str | None:
    """The name of the element the action names, or of the one its point (or box) falls on: a sim
    window's layout never moves, so the current tree places an earlier step's point."""
    target, point = getattr(action, "target", None), getattr(action, "point", None)
    if target is not None and target.name is not None:
        return target.name
    viewport, tree = observation.viewport, observation.tree
    if point is not None and (point.unit == "px" or viewport is not None):
        x, y = point.to_pixels(viewport.width, viewport.height) if viewport is not None else (point.x, point.y)
    elif target is not None and target.bbox is not None:
        x, y = target.bbox.center
    else:
        return None
    if tree is None:
        return None
    return next((e.name for e in tree.walk() if e is not tree and e.bbox is not None and e.bbox.contains(x, y)), None)
