"""VMController: resets the VM, carries out actions, reads state for the Evaluator."""

from __future__ import annotations

from typing import Any

from protocols import Ack, Act, Inspect, Inspected, Reset
from runtime.actor import Actor
from runtime.errors import Refused

from actors.backends.base import VMBackend

NAME = "vm"


class VMController(Actor):
    def __init__(self, backend: VMBackend, name: str = NAME) -> None:
        super().__init__(name)
        self.backend = backend

    async def handle(self, message: Any) -> Any:
        match message:
            case Reset(task=task, attempt=attempt):
                await self.backend.reset(task, attempt)
                return Ack()
            case Act(step=step, action=action):
                return await self.backend.act(step, action)
            case Inspect(spec=spec):
                return Inspected(state=await self.backend.inspect(spec))
        raise Refused(f"VMController does not handle {type(message).__name__}")
