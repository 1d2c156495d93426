"""The OSWorld verdict: OSWorld's `DesktopEnv.evaluate()`, over what `inspect` read from the VM.

Its rules, in its order:

- postconfig runs first; a step its SetupController raises on leaves OSWorld
  no score, so the verdict is an evaluation error (`Refused`);
- a task whose `func` is the string "infeasible" scores 1 when the agent's
  last action was Fail and 0 otherwise; any other task scores 0 when it was;
- one function: a result getter that found no file (FileNotFoundError in
  OSWorld) scores 0; otherwise the metric is called with the result, the
  expected value when the task has an `expected` spec, and the options (a
  file as a CachedFile, with the files beside it in OSWorld's cache folder);
- several functions, in order: with `conj` "and" the first that scores 0
  (or whose result getter found no file) decides 0, with "or" the first that
  scores 1 decides 1; otherwise the mean ("and") or the best ("or"). Under
  "or", a result getter that finds no file leaves the previous function's
  result in place, as OSWorld's loop does (for the first, OSWorld raises);
- a getter or metric that raises in OSWorld (and any exception troupe did not
  expect) makes the verdict an evaluation error naming it, never a failure of
  the agent. A function after the one that decided is never run, so what its
  getters could not read does not matter.

Setup steps the server refused, which OSWorld logs and goes past, are named in the reason, and so are
the settings writes waited for before the postconfig (settling.py).

The metrics run in a worker thread: some take seconds (an SSIM of two screenshots, an audio alignment, a
task's own test suite), and on the event loop they would stall every other episode's actors.
"""

from __future__ import annotations

from typing import Any

import anyio

from protocols import Evaluate, Fail, Verdict
from runtime.errors import Refused

from bench.suites.osworld.cached_file import as_cached
from bench.suites.osworld.errors import MetricFailed
from bench.suites.osworld.metrics import INFEASIBLE, METRICS


def functions(spec: dict[str, Any]) -> list[str]:
    func = spec.get("func", [])
    return [func] if isinstance(func, str) else list(func)


class OSWorldChecker:
    async def check(self, request: Evaluate) -> Verdict:
        verdict = await anyio.to_thread.run_sync(self._verdict, request)
        notes = [f"before evaluating, {settled}" for settled in [request.vm_state.get("settled")] if settled]
        failed = request.vm_state.get("setup_errors") or []
        if failed:
            notes.append(f"setup steps the server refused (OSWorld logs these and goes on): {'; '.join(failed)}")
        if not notes:
            return verdict
        return Verdict(success=verdict.success, score=verdict.score, reason="; ".join([verdict.reason, *notes]))

    def _verdict(self, request: Evaluate) -> Verdict:
        task_id, spec, state = request.task.task_id, request.task.evaluation_spec, request.vm_state
        if state.get("postconfig_failed"):
            raise Refused(f"{task_id}: {state['postconfig_failed']} (OSWorld's evaluate() raises here)")
        gave_up = bool(request.steps) and isinstance(request.steps[-1].action, Fail)
        if spec.get("func") == INFEASIBLE:
            if gave_up:
                return Verdict(success=True, score=1.0, reason="infeasible task, and the agent said so (Fail)")
            return Verdict(success=False, reason="infeasible task, but the agent did not declare it so (Fail)")
        if gave_up:
            return Verdict(success=False, reason="the agent declared a feasible task infeasible (Fail)")
        funcs = functions(spec)
        if isinstance(spec.get("func"), str):
            if "result[0]" in state.get("absent", []):
                return Verdict(success=False, reason=f"{funcs[0]}: the result getter found no file")
            result = self._value(task_id, state, spec, "result", 0)
            score = self._score(task_id, 0, funcs[0], result, state, spec, spec.get("options", {}))
            return Verdict(success=score >= 1.0, score=score, reason=f"{funcs[0]}={score:g}")
        conj = spec.get("conj", "and")
        scores: list[float] = []
        result: Any = _UNSET
        for index, func in enumerate(funcs):
            if f"result[{index}]" in state.get("absent", []):
                if conj == "and":
                    return Verdict(success=False, reason=f"{func}: the result getter found no file")
                if result is _UNSET:
                    raise Refused(f"{task_id}: {func}: the first result getter found no file under conj 'or' "
                                  "(OSWorld's evaluate() raises here)")
            else:
                result = self._value(task_id, state, spec, "result", index)
            options = (spec["options"][index] or {}) if "options" in spec else {}
            score = self._score(task_id, index, func, result, state, spec, options)
            scores.append(score)
            if conj == "and" and score == 0.0 or conj == "or" and score == 1.0:
                break
        decided = len(scores) < len(funcs) or scores[-1] == (0.0 if conj == "and" else 1.0)
        score = scores[-1] if decided else (sum(scores) / len(scores) if conj == "and" else max(scores))
        reason = ", ".join(f"{f}={s:g}" for f, s in zip(funcs, scores))
        return Verdict(success=score >= 1.0, score=score, reason=reason)

    @staticmethod
    def _value(task_id: str, state: dict[str, Any], spec: dict[str, Any], key: str, index: int) -> Any:
        """The value a getter read, a file as a CachedFile (cached_file.py)."""
        errors = [e for e in state.get("errors", []) if e.startswith(f"{key}[{index}]")]
        if errors:
            raise Refused(f"{task_id}: could not read the VM state: {'; '.join(errors)}")
        values = state.get(key, [])
        getters = spec.get(key)
        getter = getters[index] if isinstance(getters, list) and index < len(getters) else getters
        return as_cached(values[index] if index < len(values) else None, getter, state.get("cache", {}))

    def _score(self, task_id: str, index: int, func: str, result: Any, state: dict[str, Any],
               spec: dict[str, Any], options: Any) -> float:
        metric = METRICS.get(func)
        if metric is None:
            raise Refused(f"{task_id}: metric {func!r} is not supported (supported: {sorted(METRICS)})")
        arguments = [result]
        expected = spec.get("expected")
        if expected:
            wanted = expected[index] if isinstance(expected, list) else expected
            if not wanted:
                raise Refused(f"{task_id}: {func}: expected[{index}] is empty, so OSWorld has no getter to call "
                              "(its evaluate() raises here)")
            arguments.append(self._value(task_id, state, spec, "expected", index))
        try:
            return float(metric(*arguments, **options))
        except MetricFailed as exc:
            raise Refused(f"{task_id}: {exc}") from None
        except Exception as exc:  # noqa: BLE001 - no file an episode produces may crash the evaluator
            raise Refused(f"{task_id}: metric {func} raised {type(exc).__name__}: {exc} "
                          "(OSWorld's evaluate() raises too, so the task gets no score)") from None


_UNSET = object()
