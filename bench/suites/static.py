"""The static half of the canonical interface: recorded trajectories, scored step by step.

A static suite gives, per task, the recorded steps: the observation the
recording agent saw, the action it took (the reference) and the screen after
it. `bench.static.StaticRunner` runs them with no VM; the suite's checker
scores the agent's actions against the references.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass

from protocols import Action, Evaluate, Observation, Task, Verdict

from bench.scoring import grounded, step_matches
from bench.suites.base import Suite


@dataclass(frozen=True)
class RecordedStep:
    observation: Observation
    """What the recording agent saw before acting."""
    reference: Action
    after: bytes = b""
    """The recorded screenshot after the reference action."""


class StaticSuite(Suite):
    interactive = False

    @abstractmethod
    def trajectory(self, task: Task) -> list[RecordedStep]:
        """The recorded steps of `task` (blocking: reads files)."""

    def checker(self) -> ReferenceChecker:
        return ReferenceChecker()


class ReferenceChecker:
    """Success when every step matches its reference; the score is the step accuracy."""

    async def check(self, request: Evaluate) -> Verdict:
        viewport = request.final.viewport if request.final else None
        scored = [r for r in request.steps if r.reference is not None]
        if not scored:
            return Verdict(success=False, reason="no reference actions to score against")
        matched = sum(step_matches(r.action, r.reference, viewport) for r in scored)
        hits = [grounded(r.action, r.reference, viewport) for r in scored]
        boxes = [hit for hit in hits if hit is not None]
        reason = f"{matched}/{len(scored)} steps match the reference"
        if boxes:
            reason += f"; {sum(boxes)}/{len(boxes)} pointer actions inside the reference element"
        return Verdict(success=matched == len(scored), score=matched / len(scored), reason=reason)
