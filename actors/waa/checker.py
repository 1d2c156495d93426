"""The WAA verdict: the task's metrics over what `inspect` read from the VM.

Runs inside the Evaluator, after the episode's steps: nothing here is ever
shown to the agent. `infeasible` tasks pass only when the agent's last
action was Fail; a feasible task the agent gave up on scores 0 whatever the
VM holds. Several functions combine by the task's `conj`: "and" (the
default) scores 0 if any scores 0 and their mean otherwise, "or" their best.
A getter or metric that could not run is an evaluation error (`Refused`),
never a failure of the agent.
"""

from __future__ import annotations

from typing import Any

from protocols import Evaluate, Fail, Verdict
from runtime.errors import Refused

from actors.waa.metrics import INFEASIBLE, METRICS, MetricFailed


def functions(spec: dict[str, Any]) -> list[str]:
    func = spec.get("func", [])
    return [func] if isinstance(func, str) else list(func)


def per_function(value: Any, count: int) -> list[Any]:
    """`options` (or a value) given once for all functions, or once per function."""
    if isinstance(value, list) and len(value) == count:
        return value
    return [value] * count


class WAAChecker:
    async def check(self, request: Evaluate) -> Verdict:
        spec = request.task.evaluation_spec
        funcs = functions(spec)
        gave_up = bool(request.steps) and isinstance(request.steps[-1].action, Fail)
        if funcs == [INFEASIBLE]:
            if gave_up:
                return Verdict(success=True, score=1.0, reason="infeasible task, and the agent said so")
            return Verdict(success=False, reason="infeasible task, but the agent did not declare it so (Fail)")
        if gave_up:
            return Verdict(success=False, reason="the agent declared a feasible task infeasible")
        state = request.vm_state
        if state.get("errors"):
            raise Refused(f"{request.task.task_id}: could not read the VM state: {'; '.join(state['errors'])}")
        scores = [self._score(request.task.task_id, i, f, state, spec, len(funcs)) for i, f in enumerate(funcs)]
        if spec.get("conj", "and") == "or":
            score = max(scores)
        else:
            score = 0.0 if min(scores) == 0 else sum(scores) / len(scores)
        reason = ", ".join(f"{f}={s:g}" for f, s in zip(funcs, scores))
        return Verdict(success=score >= 1.0, score=score, reason=reason)

    @staticmethod
    def _score(task_id: str, index: int, func: str, state: dict[str, Any], spec: dict[str, Any], count: int) -> float:
        metric = METRICS.get(func)
        if metric is None:
            raise Refused(f"{task_id}: metric {func!r} is not supported (supported: {sorted(METRICS)})")
        results, expected = state.get("result", []), state.get("expected", [])
        options = per_function(spec.get("options"), count)[index] or {}
        try:
            return metric(
                results[index] if index < len(results) else None,
                expected[index] if index < len(expected) else None,
                **options,
            )
        except MetricFailed as exc:
            raise Refused(f"{task_id}: {exc}") from None
