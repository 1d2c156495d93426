"""Thunderbird's profile as OSWorld's thunderbird.py metrics read it.

- `check_thunderbird_prefs`: prefs.js's `user_pref("key", value);` lines
  (each stripped, the value read as JSON); every `expect` key's last value
  matches its `{method, ref}` rule (a key that is not there fails), and no
  `unexpect` key's value matches its rule. No file scores 0; a value that is
  not JSON, a file that is not UTF-8 text or a rule that cannot be applied
  raise in OSWorld (`MetricFailed` here). Rules match as
  `bench.formats.spreadsheet.value_matches` (OSWorld's _match_value_to_rule).
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

from bench.formats.spreadsheet import value_matches
from bench.suites.osworld.errors import MetricFailed

_PREF = re.compile(r'^user_pref\("(?P<key>(?:[^"]|\\")+)\", (?P<val>.+)\);$')


def check_thunderbird_prefs(result: bytes | None, rule: Any, **options: Any) -> float:
    if result is None:
        return 0.0
    try:
        expect, unexpect = rule.get("expect", {}), rule.get("unexpect", {})
        holds = {key: False for key in expect}
        clean = True
        # the lines of a file read in text mode: universal newlines, then \n alone ends a line
        for line in io.TextIOWrapper(io.BytesIO(result), encoding="utf-8").read().split("\n"):
            match = _PREF.match(line.strip())
            if match is None:
                continue
            key, value = match["key"], json.loads(match["val"])
            if key in expect:
                holds[key] = value_matches(value, expect[key])
            elif key in unexpect:
                clean = clean and not value_matches(value, unexpect[key])
    except Exception as exc:  # noqa: BLE001 - what OSWorld's function raises on gives no score
        raise MetricFailed(f"check_thunderbird_prefs: {type(exc).__name__}: {exc} "
                           "(OSWorld's function raises here)") from None
    return float(all(holds.values()) and clean)


THUNDERBIRD_METRICS = {"check_thunderbird_prefs": check_thunderbird_prefs}
