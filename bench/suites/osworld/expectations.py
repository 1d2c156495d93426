"""A file's lines, CSV records or JSON values held against a task's `expect`/`unexpect` rules, as OSWorld's
metrics/general.py holds them.

- `check_list`: every `expect` regex is found in some line, no `unexpect`
  regex in any line (re.search per line, the line with its newline).
- `check_csv`: every `expect` record (a dict) matches some row of the CSV
  read with a header, no `unexpect` record matches any row (a record matches
  a row that has each of its keys with an equal value).
- `check_json`: every `expect` rule's value (found by its `key` path)
  matches the rule's `{method, ref}`, and no `unexpect` rule's value (None
  when its path is missing) does. A file that is not JSON (YAML with
  `is_yaml`), a path that is missing, or a rule that cannot be applied scores
  0: OSWorld's function catches each.

The file is read as `open(path)` reads it on OSWorld's host (UTF-8, universal
newlines); no file scores 0. Where OSWorld's function raises (a regex that
does not compile, check_list's or check_csv's text that is not UTF-8, rules
that are not a dict of lists), these raise `MetricFailed`.
"""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

import yaml

from bench.formats.spreadsheet import value_matches
from bench.suites.osworld.errors import raising_as_osworld


def text_file(data: bytes) -> io.TextIOWrapper:
    """The file as OSWorld's metrics `open()` it: UTF-8 text, universal newlines, iterated line by line."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")


def rule_matches(value: Any, rule: dict[str, Any]) -> bool:
    """OSWorld's _match_value_to_rule: `value_matches`, and a rule without `ref` raises (OSWorld's reads
    `rule["ref"]` for each method it knows, and raises on the others)."""
    if "ref" not in rule:
        raise KeyError(f"the rule {rule!r} has no ref")
    return value_matches(value, rule)


def matches_record(pattern: dict[str, Any], row: dict[str, Any]) -> bool:
    """OSWorld's _match_record: the row has each of the pattern's keys, with an equal value."""
    return all(key in row and row[key] == value for key, value in pattern.items())


@raising_as_osworld
def check_list(result: bytes | None, rules: Any, **options: Any) -> float:
    if result is None:
        return 0.0
    expect = [re.compile(pattern) for pattern in rules.get("expect", [])]
    unexpect = [re.compile(pattern) for pattern in rules.get("unexpect", [])]
    found, clean = [False] * len(expect), True
    for line in text_file(result):
        for index, pattern in enumerate(expect):
            found[index] = found[index] or pattern.search(line) is not None
        clean = clean and all(pattern.search(line) is None for pattern in unexpect)
    return float(all(found) and clean)


@raising_as_osworld
def check_csv(result: bytes | None, rules: Any, **options: Any) -> float:
    if result is None:
        return 0.0
    expect, unexpect = rules.get("expect", []), rules.get("unexpect", [])
    found, clean = [False] * len(expect), True
    for row in csv.DictReader(text_file(result)):
        for index, pattern in enumerate(expect):
            found[index] = found[index] or matches_record(pattern, row)
        clean = clean and not any(matches_record(pattern, row) for pattern in unexpect)
    return float(all(found) and clean)


def _load(result: bytes, is_yaml: bool) -> Any:
    return yaml.safe_load(text_file(result)) if is_yaml else json.load(text_file(result))


@raising_as_osworld
def check_json(result: bytes | None, rules: Any, is_yaml: bool = False, **options: Any) -> float:
    if result is None:
        return 0.0
    try:
        data = _load(result, is_yaml)
    except Exception:  # noqa: BLE001 - OSWorld's function scores any file it cannot read 0
        return 0.0
    if is_yaml and data is None:
        return 0.0
    expect, unexpect = rules.get("expect", {}), rules.get("unexpect", {})
    holds: Any = True
    for rule in expect:
        try:
            value = data
            for key in rule["key"]:
                value = value[key]
            holds = holds and rule_matches(value, rule)
        except Exception:  # noqa: BLE001 - a missing key or a rule that cannot be applied scores 0 in OSWorld
            return 0.0
    for rule in unexpect:
        try:
            value = data
            for key in rule["key"]:
                try:
                    value = value[key]
                except (KeyError, TypeError):
                    value = None
                    break
            holds = holds and not rule_matches(value, rule)
        except Exception:  # noqa: BLE001 - as OSWorld's
            return 0.0
    return float(holds)


EXPECTATION_METRICS = {"check_list": check_list, "check_csv": check_csv, "check_json": check_json}
