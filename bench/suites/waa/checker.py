"""The WAA verdict: the task's metrics over what `inspect` read from the VM.

Runs inside the Evaluator, after the episode's steps: nothing here is ever
shown to the agent. `infeasible` tasks pass only when the agent's last
action was Fail; a feasible task the agent gave up on scores 0 whatever the
VM holds. Several functions combine by the task's `conj` as WAA combines
them, in order: "and" (the default) stops at the first that scores 0 and
otherwise takes their mean, "or" stops at the first that scores 1 and
otherwise takes their best; a function after the one that decided is never
run, so what it could not read or would raise on does not matter.

What WAA scores, this scores, as its `DesktopEnv.evaluate()` decides:

- a one-function task whose result getter raised (here: a getter that could
  not read the VM, `errors`, or one that raises where WAA's does, `crashes`)
  scores 0: `evaluate()` catches whatever that getter raises;
- in a task of several functions, such a getter is an evaluation error
  (`Refused`): `evaluate()` catches only FileNotFoundError there, which none
  of WAA's getters of those tasks raises, and lets anything else escape, so
  WAA records no score;
- an expected getter that failed or read nothing, and a metric that raised,
  are evaluation errors in any task (`ReferenceCrash`: WAA's own metric raises on this
  input), as WAA records no score;
- a getter type this harness does not have is refused before anything is read.

A crash that names a fix (`FIXES`) the run turned on is read or scored as
the fix says, and the reason states it. A setup or postconfig step that
failed is logged by WAA's client, which carries on: it is named in the
verdict's reason and evaluation goes on. No exception from a metric escapes:
one this module did not expect is an evaluation error naming it.

The metrics run in a worker thread: some take seconds (image, audio and video comparisons), and on the
event loop they would stall every other episode's actors.
"""

from __future__ import annotations

from typing import Any, Iterable

import anyio

from protocols import Evaluate, Fail, Verdict
from runtime.errors import Refused

from bench.suites.waa.errors import FIXES, ReferenceCrash
from bench.suites.waa.getters import GETTERS, specs
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
        verdict = await anyio.to_thread.run_sync(self._verdict, request)
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
        self._supported(request.task.task_id, funcs, spec)
        state = {**request.vm_state, "result": list(request.vm_state.get("result", [])),
                 "expected": list(request.vm_state.get("expected", []))}
        conj = spec.get("conj", "and")
        notes: list[str] = []
        scores: list[float] = []
        decided = None
        for index, func in enumerate(funcs):
            unread = self._unread(request.task.task_id, index, state, notes, one_function=len(funcs) == 1)
            if unread is not None:
                return Verdict(success=False, score=0.0, reason=f"{func}=0 ({unread}; WAA's evaluate() scores a "
                                                                  "one-function task 0 when its result getter raises)")
            self._expected_read(request.task.task_id, index, func, state, spec)
            scores.append(self._score(request.task.task_id, index, func, state, spec, len(funcs), notes))
            if scores[-1] == (0.0 if conj == "and" else 1.0):
                decided = scores[-1]  # WAA returns at the first function that decides the verdict
                break
        if decided is not None:
            score = decided
        elif conj == "or":
            score = max(scores)
        else:
            score = sum(scores) / len(scores)
        reason = ", ".join(f"{f}={s:g}" for f, s in zip(funcs, scores)) + "".join(notes)
        return Verdict(success=score >= 1.0, score=score, reason=reason)

    @staticmethod
    def _supported(task_id: str, funcs: list[str], spec: dict[str, Any]) -> None:
        """Every metric and getter the task names is here (WAA's client fails on the task otherwise)."""
        for func in funcs:
            if func not in METRICS:
                raise Refused(f"{task_id}: metric {func!r} is not supported (supported: {sorted(METRICS)})")
        for item in [*specs(spec.get("result")), *specs(spec.get("expected"))]:
            if item is not None and item.get("type") not in GETTERS:
                raise Refused(f"{task_id}: getter {item.get('type')!r} is not supported (supported: {sorted(GETTERS)})")

    def _unread(self, task_id: str, index: int, state: dict[str, Any], notes: list[str], one_function: bool) -> str | None:
        """Why function `index`'s result could not be read, when that scores the task 0 (a
        one-function task's result getter, as WAA's evaluate() catches it); Refused where WAA
        records no score; None when its values are read (or read under a fix the run turned on)."""
        expected_failed = [e for e in state.get("errors", []) if e.startswith(f"expected[{index}]")]
        result_failed = [e for e in state.get("errors", []) if e.startswith(f"result[{index}]")]
        crashed = [c for c in state.get("crashes", []) if c["at"] in (f"result[{index}]", f"expected[{index}]")]
        for crash in crashed:
            if crash["fix"] in self.fixes:
                key = crash["at"].partition("[")[0]
                state[key][index] = crash["value"]
                notes.append(f" (fix {crash['fix']!r} used: {crash['at']}: {crash['reason']})")
        unfixed = [c for c in crashed if c["fix"] not in self.fixes]
        result_failed += [c["reason"] for c in unfixed if c["at"].startswith("result")]
        if result_failed and one_function:
            return "; ".join(result_failed)  # WAA never runs the expected getter then
        failed = result_failed + expected_failed + [c["reason"] for c in unfixed if c["at"].startswith("expected")]
        if failed:
            raise Refused(f"{task_id}: could not read the VM state: {'; '.join(failed)}")
        return None

    @staticmethod
    def _expected_read(task_id: str, index: int, func: str, state: dict[str, Any], spec: dict[str, Any]) -> None:
        """An expected getter that read nothing (a VM file that is not there): WAA then calls the
        metric with the result alone, which raises for every metric the tasks pair with a VM
        file, so WAA records no score."""
        expected = specs(spec.get("expected"))
        item = expected[index] if index < len(expected) else None
        values = state.get("expected", [])
        if item is not None and (index >= len(values) or values[index] is None):
            raise Refused(f"{task_id}: {func}: the expected value ({item.get('type')}) read nothing; WAA calls the "
                          "metric without it, which raises")

    def _score(self, task_id: str, index: int, func: str, state: dict[str, Any], spec: dict[str, Any], count: int,
               notes: list[str]) -> float:
        metric = METRICS[func]
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
