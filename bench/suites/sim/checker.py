"""The sim suite's evaluator: the VM state must hold everything the task expects."""

from __future__ import annotations

from protocols import Evaluate, Verdict


class SimChecker:
    """`evaluation_spec["expect"]` may name `fields` (exact values), `checked`
    and `clicked` (names that must be in the state) and `submitted`."""

    async def check(self, request: Evaluate) -> Verdict:
        expect = request.task.evaluation_spec.get("expect", {})
        state = request.vm_state
        misses = [
            f"field {name!r} is {state['fields'].get(name)!r}, expected {value!r}"
            for name, value in expect.get("fields", {}).items()
            if state["fields"].get(name) != value
        ]
        for key in ("checked", "clicked"):
            misses += [f"{name!r} is not {key}" for name in expect.get(key, []) if name not in state[key]]
        if expect.get("submitted") and not state["submitted"]:
            misses.append("the form was not submitted")
        total = sum(len(expect.get(k, ())) for k in ("fields", "checked", "clicked")) + bool(expect.get("submitted"))
        score = 1.0 - len(misses) / total if total else 1.0
        return Verdict(success=not misses, score=score, reason="; ".join(misses) or "all expectations hold")
