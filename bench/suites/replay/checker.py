"""Scoring a replayed episode: the agent's actions against the recorded ones, step by step."""

from __future__ import annotations

from protocols import Evaluate, Verdict

from actors.backends.replay import RECORDED_STEPS
from bench.scoring import grounded, step_matches

__all__ = ["ReferenceChecker"]


class ReferenceChecker:
    """Success when every recorded step is matched; the score is the share of recorded steps matched.

    A recorded step the agent never reached (it stopped early, or a limit
    ended the episode) counts as missed, so stopping at once cannot score
    better than going on."""

    async def check(self, request: Evaluate) -> Verdict:
        viewport = request.final.viewport if request.final else None
        scored = [r for r in request.steps if r.reference is not None]
        recorded = max(request.vm_state.get(RECORDED_STEPS, 0), len(scored))
        if not recorded:
            return Verdict(success=False, reason="no reference actions to score against")
        matched = sum(step_matches(r.action, r.reference, viewport) for r in scored)
        hits = [grounded(r.action, r.reference, viewport) for r in scored]
        boxes = [hit for hit in hits if hit is not None]
        reason = f"{matched}/{recorded} steps match the reference"
        if len(scored) < recorded:
            reason += f" ({recorded - len(scored)} not reached)"
        if boxes:
            reason += f"; {sum(boxes)}/{len(boxes)} pointer actions inside the reference element"
        return Verdict(success=matched == recorded, score=matched / recorded, reason=reason)
