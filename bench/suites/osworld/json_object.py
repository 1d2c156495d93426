"""OSWorld's `check_direct_json_object` (metrics/general.py): a dict a getter read against the rule's
`expected` one, as OSWorld compares them.

A string result is read as JSON after its single quotes become double ones
(text that is not JSON then raises, as in OSWorld); None scores 0, and so does
an `expected` value "__EVALUATION_FAILED__". Without `expect_in_result`, each
expected key's value must equal the result's (with `ignore_list_order` among
the expected keys, each value is compared sorted, that key itself too). With
it, an expected list matches when one of its items is in the result's list
or equals the result's string, an expected string when it is within the
result's; any other expected value scores 0. Anything that fails on the way
(a missing key, a result that is not a dict) scores 0, as OSWorld's catches
it.
"""

from __future__ import annotations

import json
from typing import Any

from bench.suites.osworld.errors import MetricFailed

EVALUATION_FAILED = "__EVALUATION_FAILED__"


def _equal(result: Any, expected: dict[str, Any]) -> bool:
    for key in expected.keys():
        if expected.get("ignore_list_order", False):
            if sorted(expected.get(key)) != sorted(result.get(key)):
                return False
        elif expected.get(key) != result.get(key):
            return False
    return True


def _within(result: Any, expected: dict[str, Any]) -> bool:
    for key in expected.keys():
        wanted, found = expected.get(key), result.get(key)
        if isinstance(wanted, list):
            if not any((isinstance(found, list) and item in found) or (isinstance(found, str) and item == found)
                       for item in wanted):
                return False
        elif isinstance(wanted, str):
            if wanted not in found:
                return False
        else:
            return False
    return True


def check_direct_json_object(result: Any, rules: Any, **options: Any) -> float:
    if isinstance(result, str):
        try:
            result = json.loads(result.strip().replace("'", '"'))
        except ValueError as exc:
            raise MetricFailed(f"check_direct_json_object: the result is not JSON ({exc}; OSWorld's function "
                               "raises here)") from None
    if result is None:
        return 0.0
    try:
        if any(value == EVALUATION_FAILED for value in (rules.get("expected", {}) or {}).values()):
            return 0.0
        compare = _within if rules.get("expect_in_result", False) else _equal
        return float(compare(result, rules["expected"]))
    except Exception:  # noqa: BLE001 - OSWorld's function scores anything that fails 0
        return 0.0


JSON_METRICS = {"check_direct_json_object": check_direct_json_object}
