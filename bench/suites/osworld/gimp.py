"""GIMP's settings as OSWorld's `check_config_status` reads them from gimprc or sessionrc.

GIMP writes both (in `~/.config/GIMP/2.10/`, the `gimp_config_file`
getter's folder) as s-expressions, one setting a line: `(undo-levels 100)`,
`(theme "Light")`. OSWorld reads the file in text mode (UTF-8, universal
newlines) and, skipping `#` comments and bare "\\n" lines, splits each
line's text between its outer parentheses on whitespace: the rule's `key`
(a string, or a list of two for a nested setting such as `(session-info
toolbox`) must be the first word(s) and its `value` the last word, exactly
(quotes included). A line of only spaces raises in OSWorld (it indexes the
first word), so it gives no score; a missing file scores 0.
"""

from __future__ import annotations

import io
from typing import Any

from bench.suites.osworld.errors import MetricFailed


def _raises(why: str) -> MetricFailed:
    return MetricFailed(f"check_config_status: {why} (OSWorld's function raises here)")


def check_config_status(result: bytes | None, rule: Any, **options: Any) -> float:
    if result is None:
        return 0.0
    for number, line in enumerate(io.TextIOWrapper(io.BytesIO(result), encoding="utf-8").readlines(), 1):
        if line.startswith("#") or line == "\n":
            continue
        items = line.strip().lstrip("(").rstrip(")\n").split()
        if not isinstance(rule, dict) or "key" not in rule:
            raise _raises(f"expected a rule with `key`, got {rule!r}")
        key = rule["key"]
        if not items and (isinstance(key, str) or isinstance(key, list) and len(key) == 2):
            raise _raises(f"line {number} is blank but for spaces")
        if isinstance(key, str):
            matched = items[0] == key
        elif isinstance(key, list) and len(key) == 2:
            if items[0] == key[0] and len(items) < 2:
                raise _raises(f"line {number} has one word, the rule's key two")
            matched = items[0] == key[0] and items[1] == key[1]
        else:
            continue
        if matched and "value" not in rule:
            raise _raises(f"the rule has no `value`: {rule!r}")
        if matched and items[-1] == rule["value"]:
            return 1.0
    return 0.0


GIMP_METRICS = {"check_config_status": check_config_status}
