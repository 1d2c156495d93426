"""Agent: turns an observation into the next action through a pluggable policy.

Policies (an LLM client, a scripted baseline, a simulated LLM) only decide;
the actor adds what every policy needs: a uniform answer when a policy
fails. A policy that raises, or answers with anything but a valid
`Decision`, has that one request refused with the reason (see
`actors.answers`): the episode ends as an agent error and the actor goes on
serving the next. A policy whose model service failed (`ModelServiceError`)
gets an answer instead, a `Decision` carrying the failure in `model_error`:
it crosses any transport as data, and the episode ends as a model-service
error, not an agent failure. A policy whose model gave no usable action
(`NoAnswer`) gets one too, the reason in `agent_error`: the episode ends as
an agent error, and the calls that tried reach its transcript.
"""

from __future__ import annotations

from typing import Any, Protocol

from protocols import Decide, Decision, Fail
from runtime.actor import Actor
from runtime.errors import Refused

from actors.answers import answer
from actors.errors import ModelServiceError, NoAnswer

NAME = "agent"


class Policy(Protocol):
    """Chooses the next action. `request` holds everything the policy may use:
    the task, the current observation, the episode's earlier steps and the
    step budget, so any instance can answer any step of any episode."""

    async def decide(self, request: Decide) -> Decision: ...


class Agent(Actor):
    def __init__(self, policy: Policy, *, name: str = NAME) -> None:
        super().__init__(name)
        self.policy = policy

    async def handle(self, message: Any) -> Any:
        if not isinstance(message, Decide):
            raise Refused(f"Agent does not handle {type(message).__name__}")
        return await answer("policy", self._decide(message), Decision)

    async def _decide(self, request: Decide) -> Decision:
        try:
            return await self.policy.decide(request)
        except ModelServiceError as exc:
            reason = f"{type(exc).__name__}: {exc}"
            return Decision(action=Fail(reason=reason), model_error=reason, calls=exc.calls)
        except NoAnswer as exc:
            return Decision(action=Fail(reason=str(exc)), agent_error=str(exc), calls=exc.calls)
