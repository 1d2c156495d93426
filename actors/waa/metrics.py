"""Metrics: a score in [0, 1] from what the getters read and what the task expects.

Each metric takes the `result` value, the `expected` value and the task's
`options`, as the task file pairs them. Written from the schema's meaning:

- `exact_match`: the result equals `expected["expected"]` (the rule's value);
- `compare_text_file`: two files hold the same text (options `ignore_blanks`,
  `ignore_case`); a missing file scores 0;
- `check_json_settings`: every key of `expected["expected"]` has that value in
  the result file's JSON (VS Code's settings.json style, comments allowed);
- `check_json_keybindings`: keybindings.json (a JSON list) holds the wanted
  binding: every key of `expected["expected"]` with that value in one entry;
- `check_direct_json_object`: the same, with the result already a JSON object;
- `is_extension_installed`: command output does (`contain`) or does not
  (`not_contain`) include the expected text.

Families with their own modules: `compare_table` (tables.py), the VLC
preference checks (vlc.py), the Writer document checks (documents.py).

`infeasible` is not here: it reads the agent's last action, not VM state,
so the checker decides it.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

from actors.waa.errors import MetricFailed, rule_field
from actors.waa.documents import DOCX_METRICS
from actors.waa.tables import RULES as TABLE_RULES, compare_table
from actors.waa.vlc import VLC_METRICS

Metric = Callable[..., float]


def _text(value: bytes | str | None) -> str | None:
    if value is None:
        return None
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _rule(expected: Any, metric: str) -> Any:
    return rule_field(expected, metric, "expected")


def exact_match(result: Any, expected: Any, **options: Any) -> float:
    return float(result == _rule(expected, "exact_match"))


def compare_text_file(result: bytes | str | None, expected: bytes | str | None, *,
                      ignore_blanks: bool = False, ignore_case: bool = False, **options: Any) -> float:
    mine, gold = _text(result), _text(expected)
    if mine is None or gold is None:
        return 0.0
    if ignore_blanks:
        mine, gold = re.sub(r"\s+", " ", mine).strip(), re.sub(r"\s+", " ", gold).strip()
    if ignore_case:
        mine, gold = mine.lower(), gold.lower()
    return float(mine == gold)


_COMMENT = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def loads_jsonc(text: str) -> Any:
    """JSON with // and /* */ comments and trailing commas, as VS Code writes it."""
    without_comments = _COMMENT.sub(lambda m: m.group(1) or "", text)
    return json.loads(_TRAILING_COMMA.sub(r"\1", without_comments))


def _holds(actual: Any, wanted: dict[str, Any]) -> float:
    return float(isinstance(actual, dict) and all(k in actual and actual[k] == v for k, v in wanted.items()))


def _jsonc_file(result: bytes | str | None) -> Any:
    """The file's JSON, or None when it is missing or unreadable: VS Code itself
    ignores a settings file it cannot parse, so the setting is not in effect."""
    text = _text(result)
    if text is None:
        return None
    try:
        return loads_jsonc(text)
    except ValueError:
        return None


def check_json_settings(result: bytes | str | None, expected: Any, **options: Any) -> float:
    return _holds(_jsonc_file(result), _rule(expected, "check_json_settings"))


def check_json_keybindings(result: bytes | str | None, expected: Any, **options: Any) -> float:
    """keybindings.json is a list of `{key, command, when?}`: the wanted one must be among them."""
    wanted = _rule(expected, "check_json_keybindings")
    bindings = _jsonc_file(result)
    return float(isinstance(bindings, list) and any(_holds(b, wanted) for b in bindings))


def check_direct_json_object(result: Any, expected: Any, **options: Any) -> float:
    return _holds(result, _rule(expected, "check_direct_json_object"))


def is_extension_installed(result: Any, expected: Any, **options: Any) -> float:
    if not isinstance(expected, dict) or expected.get("type") not in ("contain", "not_contain"):
        raise MetricFailed(f"is_extension_installed: rules need `type` contain or not_contain, got {expected!r}")
    found = str(_rule(expected, "is_extension_installed")) in (_text(result) or "")
    return float(found if expected["type"] == "contain" else not found)


METRICS: dict[str, Metric] = {
    "exact_match": exact_match,
    "compare_text_file": compare_text_file,
    "check_json_settings": check_json_settings,
    "check_direct_json_object": check_direct_json_object,
    "is_extension_installed": is_extension_installed,
    "compare_table": compare_table,
    "check_json_keybindings": check_json_keybindings,
    **VLC_METRICS,
    **DOCX_METRICS,
}

RULED: dict[str, frozenset[str]] = {"compare_table": frozenset(TABLE_RULES)}
"""Metrics whose `options.rules` each name a check: only some checks are written."""


def unsupported_rules(func: str, options: Any) -> set[str]:
    """The rule types a task asks of `func` that it cannot check, as "func rule type",
    so the coverage listing never counts a task whose rules would be refused."""
    known = RULED.get(func)
    if known is None or not isinstance(options, dict):
        return set()
    return {f"{func} rule {rule.get('type')}" for rule in options.get("rules", []) if rule.get("type") not in known}


INFEASIBLE = "infeasible"
"""Decided by the checker from the agent's last action; listed with the metrics."""

SUPPORTED_FUNCTIONS = frozenset(METRICS) | {INFEASIBLE}
