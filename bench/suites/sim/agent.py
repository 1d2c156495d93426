"""A simulated LLM for the Agent and the Summarizer: real decisions, simulated latency.

The agent reads the instruction (sentences like "Type 'alice' into 'Name'.",
"Check 'Subscribe'.", "Click 'Submit'.", "Press 'enter'.") and grounds each
goal in the accessibility tree, as a scripted baseline would; with
`agent_error_rate` it sometimes clicks the wrong element and has to try
again. A `script` in the task replaces its choices entirely.
"""

from __future__ import annotations

import functools
import re
import time

import anyio

from protocols import (
    Action, ChangeSummary, Click, Decide, Decision, Done, Key, Summarize, Target, TypeText, UIElement,
    Usage, Wait,
)

from actors.backends.sim.config import seeded_rng, sim_config

_GOAL = re.compile(
    r"Type '(?P<text>[^']*)' into '(?P<field>[^']*)'\.|(?:Click|Check) '(?P<name>[^']*)'\.|Press '(?P<key>[^']*)'\."
)


@functools.lru_cache(maxsize=1024)
def parse_goals(instruction: str) -> tuple[re.Match, ...]:
    """The instruction's goals in order; cached, as every step of an episode asks again."""
    return tuple(_GOAL.finditer(instruction))


class SimPolicy:
    """Stateless: which goal of the instruction comes next is read off the episode's
    history in the request (the goals its earlier actions achieved, in order), so any
    Agent incarnation can answer any step."""

    async def decide(self, request: Decide) -> Decision:
        config = sim_config(request.task.raw_config)
        rng = seeded_rng(config, request.episode_id, request.step)
        latency = config.latencies.agent.sample(rng, config.scale)
        if latency:
            await anyio.sleep(latency)
        usage = Usage(input_tokens=1000, output_tokens=50, latency=latency)
        if config.script:
            index = request.step - 1
            action = config.script[index] if index < len(config.script) else Done()
            return Decision(action=action, reasoning="scripted", usage=usage)
        action, reasoning = _next_action(request, rng, config.agent_error_rate)
        return Decision(action=action, reasoning=reasoning, usage=usage)


def _next_action(request: Decide, rng, error_rate: float) -> tuple[Action, str]:
    goals = parse_goals(request.task.instruction)
    index = _goals_done(goals, [record.action for record in request.history])
    if index >= len(goals):
        return Done(), "every goal of the instruction is done"
    goal = goals[index]
    if goal["key"] is not None:
        return Key(key=goal["key"]), f"goal {index + 1}: press {goal['key']}"
    tree = request.observation.tree
    if tree is None:
        return Wait(seconds=0), "no accessibility tree yet; waiting for one"
    name = goal["field"] if goal["text"] is not None else goal["name"]
    candidates = [e for e in tree.walk() if e.bbox is not None and e is not tree]
    element = next((e for e in candidates if e.name == name), None)
    if element is None:
        return Wait(seconds=0), f"no element named {name!r} on screen"
    if error_rate and rng.random() < error_rate:
        wrong = rng.choice(candidates)
        return Click(target=_target(wrong)), f"goal {index + 1}: clicking {wrong.name!r} (a mistake)"
    if goal["text"] is not None:
        return TypeText(text=goal["text"], target=_target(element)), f"goal {index + 1}: type into {name!r}"
    return Click(target=_target(element)), f"goal {index + 1}: click {name!r}"


def _goals_done(goals: tuple[re.Match, ...], actions: list[Action]) -> int:
    """How many goals, in order, the earlier actions achieved."""
    done = 0
    for action in actions:
        if done < len(goals) and _achieves(action, goals[done]):
            done += 1
    return done


def _achieves(action: Action, goal: re.Match) -> bool:
    if goal["key"] is not None:
        return isinstance(action, Key) and action.key == goal["key"]
    name = getattr(getattr(action, "target", None), "name", None)
    if goal["text"] is not None:
        return isinstance(action, TypeText) and action.text == goal["text"] and name == goal["field"]
    return isinstance(action, Click) and name == goal["name"]


def _target(element: UIElement) -> Target:
    return Target(node_id=element.node_id, bbox=element.bbox, role=element.role, name=element.name)


class SimJudge:
    """Judges a step by whether the screen changed, after the Summarizer's latency."""

    async def summarize(self, request: Summarize) -> ChangeSummary:
        config = sim_config(request.task.raw_config)
        rng = seeded_rng(config, request.episode_id, request.step, "summary")
        started = time.perf_counter()
        latency = config.latencies.summarizer.sample(rng, config.scale)
        if latency:
            await anyio.sleep(latency)
        changed = request.before.screenshot != request.after.screenshot
        return ChangeSummary(
            step=request.step,
            changes="the screen changed" if changed else "no visible change",
            correct=changed,
            reason="" if changed else "the action had no visible effect",
            suggestion="" if changed else "check the target element",
            latency=time.perf_counter() - started,
        )
