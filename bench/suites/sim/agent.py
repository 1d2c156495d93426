"""A simulated LLM for the Agent and the Summarizer: real decisions, simulated latency.

The agent reads the instruction (sentences like "Type 'alice' into 'Name'.",
"Check 'Subscribe'.", "Click 'Submit'.", "Press 'enter'.") and grounds each
goal in the accessibility tree, as a scripted baseline would: the action
`bench.suites.sim.goals` scores every step against; with `agent_error_rate`
it sometimes clicks the wrong element and has to try again. A `script` in the task replaces its choices entirely.
"""

from __future__ import annotations

import time

import anyio

from protocols import Action, ChangeSummary, Click, Decide, Decision, Done, Summarize, TypeText, Usage

from actors.backends.sim.config import seeded_rng, sim_config
from bench.suites.sim.goals import expected_action, target_of


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
    expected = expected_action(request.task.instruction, request.observation,
                               [record.action for record in request.history])
    tree = request.observation.tree
    if error_rate and isinstance(expected.action, (Click, TypeText)) and rng.random() < error_rate:
        wrong = rng.choice([e for e in tree.walk() if e.bbox is not None and e is not tree])
        return Click(target=target_of(wrong)), f"goal {expected.goal}: clicking {wrong.name!r} (a mistake)"
    return expected.action, expected.reason


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
