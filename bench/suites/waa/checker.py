"""The WAA verdict: the task's metrics over what `inspect` read from the VM.

Runs inside the Evaluator, after the episode's steps: nothing here is ever
shown to the agent. `infeasible` tasks pass only when the agent's last
action was Fail; a feasible task the agent gave up on scores 0 whatever the
VM holds. Several functions combine by the task's `conj` as WAA combines
them, in order: "and" (the default) stops at the first that scores 0 and
otherwise takes their mean, "or" stops at the first that scores 1 and
otherwise takes their best; a function after the one that decided is never
run, so what it could not read or would raise on does not matter.

What WAA scores, this scores. A setup or postconfig step that failed is
logged by WAA's client, which carries on: it is named in the verdict's
reason and evaluation goes on. A getter or metric that could not run is an
evaluation error (`Refused`), never a failure of the agent; so is an input
on which WAA's own metric raises (`ReferenceCrash`) or a VM answer on which
WAA's own getter raises (`GetterCrash`, under the state's `crashes`), unless
the run turned on the fix that case names (`FIXES`), which the reason then
states. No
exception from a metric escapes: one this module did not expect is an
evaluation error naming it.
"""

from __future__ import annotations

from typing import Any, Iterable

from protocols import Evaluate, Fail, Verdict
from runtime.errors import Refused

from bench.suites.waa.errors import FIXES, ReferenceCrash
from bench.suites.waa.metrics import INFEASIBLE, METRICS, MetricFailed


def functions(spec: dict[str, Any]) -> list[str]:
    func = spec.get("func", [])
    return [func] if isinstance(func, str) else list(func)


def per_function(value: Any, count: int) -> list[Any]:
    """`options` (or a value) given once for all functions, or once per function."""
    if isinstance(value, list) and len(value) == count:
        return value
    return [value] * count


class WAAChecker:
    def __init__(self, fixes: Iterable[str] = ()) -> None:
        self.fixes = frozenset(fixes)
        unknown = sorted(self.fixes - FIXES.keys())
        if unknown:
            raise ValueError(f"unknown WAA fixes {unknown} (known: {sorted(FIXES)})")

    async def check(self, request: Evaluate) -> Verdict:
        verdict = self._verdict(request)
        failed_steps = request.vm_state.get("setup_errors") or []
        if not failed_steps:
            return verdict
        note = f"; setup steps that failed (WAA logs these and goes on): {'; '.join(failed_steps)}"
        return Verdict(success=verdict.success, score=verdict.score, reason=verdict.reason + note)

    def _verdict(self, request: Evaluate) -> Verdict:
        spec = request.task.evaluation_spec
        funcs = functions(spec)
        gave_up = bool(request.steps) and isinstance(request.steps[-1].action, Fail)
        if funcs == [INFEASIBLE]:
            if gave_up:
                return Verdict(success=True, score=1.0, reason="infeasible task, and the agent said so")
            return Verdict(success=False, reason="infeasible task, but the agent did not declare it so (Fail)")
        if gave_up:
            return Verdict(success=False, reason="the agent declared a feasible task infeasible")
        state = {**request.vm_state, "result": list(request.vm_state.get("result", [])),
                 "expected": list(request.vm_state.get("expected", []))}
        conj = spec.get("conj", "and")
        notes: list[str] = []
        scores: list[float] = []
        for index, func in enumerate(funcs):
            unread = [e for e in state.get("errors", []) if e.startswith((f"result[{index}]", f"expected[{index}]"))]
            if unread:
                raise Refused(f"{request.task.task_id}: could not read the VM state: {'; '.join(unread)}")
            self._getter_crashes(request.task.task_id, index, state, notes)
            scores.append(self._score(request.task.task_id, index, func, state, spec, len(funcs), notes))
            if scores[-1] == (0.0 if conj == "and" else 1.0):
                break  # WAA stops at the first function that decides the verdict
        if len(scores) < len(funcs):
            score = scores[-1]
        elif conj == "or":
            score = max(scores)
        else:
            score = sum(scores) / len(scores)
        reason = ", ".join(f"{f}={s:g}" for f, s in zip(funcs, scores)) + "".join(notes)
        return Verdict(success=score >= 1.0, score=score, reason=reason)

    def _getter_crashes(self, task_id: str, index: int, state: dict[str, Any], notes: list[str]) -> None:
        """Where WAA's getter raised: an evaluation error, or with the named fix the value it reads."""
        for crash in state.get("crashes", []):
            key, _, at = crash["at"].partition("[")
            if int(at.rstrip("]")) != index:
                continue
            if crash["fix"] not in self.fixes:
                raise Refused(f"{task_id}: {crash['at']}: {crash['reason']}")
            state[key][index] = crash["value"]
            notes.append(f" (fix {crash['fix']!r} used: {crash['at']}: {crash['reason']})")

    def _score(self, task_id: str, index: int, func: str, state: dict[str, Any], spec: dict[str, Any], count: int,
               notes: list[str]) -> float:
        metric = METRICS.get(func)
        if metric is None:
            raise Refused(f"{task_id}: metric {func!r} is not supported (supported: {sorted(METRICS)})")
        results, expected = state.get("result", []), state.get("expected", [])
        options = per_function(spec.get("options"), count)[index] or {}
        try:
            return float(metric(
                results[index] if index < len(results) else None,
                expected[index] if index < len(expected) else None,
                **options,
            ))
        except ReferenceCrash as exc:
            if exc.fix not in self.fixes:
                raise Refused(f"{task_id}: {exc}") from None
            notes.append(f" (fix {exc.fix!r} used: {exc})")
            return exc.fixed
        except MetricFailed as exc:
            raise Refused(f"{task_id}: {exc}") from None
        except Exception as exc:  # noqa: BLE001 - no input file may crash the evaluator
            raise Refused(f"{task_id}: harness error: metric {func} raised {type(exc).__name__}: {exc}") from None
