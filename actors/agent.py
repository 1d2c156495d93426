"""Agent: turns an observation into the next action through a pluggable policy.

Policies (an LLM client, a scripted baseline, a simulated LLM) only decide;
the actor adds what every policy needs: the shared capacity limit on costly
calls and a uniform error when a policy fails.
"""

from __future__ import annotations

from typing import Any, Protocol

from protocols import Decide, Decision
from runtime.actor import Actor
from runtime.capacity import Capacity
from runtime.errors import Refused

NAME = "agent"


class Policy(Protocol):
    async def decide(self, request: Decide) -> Decision: ...


class Agent(Actor):
    def __init__(self, policy: Policy, *, capacity: Capacity | None = None, name: str = NAME) -> None:
        super().__init__(name)
        self.policy = policy
        self.capacity = capacity or Capacity.unlimited(name)

    async def handle(self, message: Any) -> Any:
        if not isinstance(message, Decide):
            raise Refused(f"Agent does not handle {type(message).__name__}")
        async with self.capacity.slot():
            return await self.policy.decide(message)
