"""Thunderbird's profile as OSWorld's thunderbird.py metrics read it.

- `check_thunderbird_prefs`: prefs.js's `user_pref("key", value);` lines
  (each stripped, the value read as JSON); every `expect` key's last value
  matches its `{method, ref}` rule (a key that is not there fails), and no
  `unexpect` key's value matches its rule. No file scores 0; a value that is
  not JSON, a file that is not UTF-8 text or a rule that cannot be applied
  raise in OSWorld (`MetricFailed` here). Rules match as
  `expectations.rule_matches` (OSWorld's _match_value_to_rule).
- `check_thunderbird_filter`: msgFilterRules.dat read line by line as
  OSWorld reads it: `name="..."` starts a filter, `enabled=`, `type=`,
  `action=` and `actionValue=` set its fields (the text between the quote
  after `=` and the line's last character, `\\"` and `\\\\` unescaped), and
  `condition=` lists its `AND (...)`/`OR (...)`/`ALL` terms and ends the filter
  (a filter with no condition line is not counted; a field before any name
  raises). Every `expect` record matches some filter (each of its keys equal),
  no `unexpect` record matches any. No file scores 0.
"""

from __future__ import annotations

import json
import re
from typing import Any

from bench.suites.osworld.errors import raising_as_osworld
from bench.suites.osworld.expectations import matches_record, rule_matches, text_file

_PREF = re.compile(r'^user_pref\("(?P<key>(?:[^"]|\\")+)\", (?P<val>.+)\);$')
_CONDITION = re.compile(
    r'\b(?:AND|OR) \((?:[\w ]+),(?:[\w ' + "'" + r']+),(?:"(?:(?:[^"]|\")+)"|(?:[^)]+))\)|\bALL\b')
_FIELDS = {"name=": "name", "enabled=": "enabled", "type=": "type", "action=": "action",
           "actionValue=": "actionValue"}


@raising_as_osworld
def check_thunderbird_prefs(result: bytes | None, rule: Any, **options: Any) -> float:
    if result is None:
        return 0.0
    expect, unexpect = rule.get("expect", {}), rule.get("unexpect", {})
    holds = {key: False for key in expect}
    clean = True
    for line in text_file(result):
        match = _PREF.match(line.strip())
        if match is None:
            continue
        key, value = match["key"], json.loads(match["val"])
        if key in expect:
            holds[key] = rule_matches(value, expect[key])
        elif key in unexpect:
            clean = clean and not rule_matches(value, unexpect[key])
    return float(all(holds.values()) and clean)


def _quoted(line: str, prefix: str) -> str:
    """A `key="value"` line's value: past the prefix and its quote, short of the line's last two characters
    (the closing quote and the newline, as OSWorld cuts it), `\\"` and `\\\\` unescaped."""
    return line[len(prefix) + 1:-2].replace('\\"', '"').replace("\\\\", "\\")


def _filters(result: bytes) -> list[dict[str, Any]]:
    filters: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for line in text_file(result):
        prefix = next((prefix for prefix in _FIELDS if line.startswith(prefix)), None)
        if prefix == "name=":
            current = {"name": _quoted(line, prefix)}
        elif prefix is not None or line.startswith("condition="):
            if current is None:
                raise ValueError(f"{line.strip()!r} comes before any filter's name")
            if prefix is not None:
                current[_FIELDS[prefix]] = _quoted(line, prefix)
            else:
                current["condition"] = _CONDITION.findall(_quoted(line, "condition="))
                filters.append(current)
    return filters


@raising_as_osworld
def check_thunderbird_filter(result: bytes | None, rules: Any, **options: Any) -> float:
    if result is None:
        return 0.0
    filters = _filters(result)
    found, clean = [False] * len(rules.get("expect", [])), True
    for found_filter in filters:
        for index, pattern in enumerate(rules.get("expect", [])):
            found[index] = found[index] or matches_record(pattern, found_filter)
        clean = clean and not any(matches_record(pattern, found_filter) for pattern in rules.get("unexpect", []))
    return float(all(found) and clean)


THUNDERBIRD_METRICS = {"check_thunderbird_prefs": check_thunderbird_prefs,
                       "check_thunderbird_filter": check_thunderbird_filter}
