"""Metrics: a score in [0, 1] from what the getters read and what the task expects.

Each metric takes the `result` value, the `expected` value and the task's
`options`, as the task file pairs them, and gives the score WAA's own metric
function gives for the same files (its reference semantics, edge cases
included):

- `exact_match`: the result equals `expected["expected"]` (the rule's value);
- `compare_text_file`: two files hold the same text, read as WAA reads them:
  as UTF-8 text, where CRLF and a lone CR are line ends (options
  `ignore_blanks`: tabs and newlines become spaces, the ends are stripped and
  runs of whitespace are one space; `ignore_case`); a missing result scores 0;
- `check_json_settings`: every key of `expected["expected"]` has that value in
  the result file, read with plain `json.load` (no comments), which must hold
  an object;
- `check_json_keybindings`: keybindings.json, read as JSON or, failing that,
  as JSON after its first line (where VS Code writes a comment), is a list
  holding the wanted binding as one of its entries, exactly (an entry with
  an extra `when` or `args` is another binding);
- `is_extension_installed`: command output does (`contain`) or does not
  (`not_contain`) include the expected text.

The keybindings reading and the extension judgement are OSWorld's too
(bench/formats/vscode_state.py, which both suites import).

Where WAA's function raises (a text file that is not UTF-8, a settings file
that is not plain JSON, no command output), so that WAA records no score,
the metric raises `ReferenceCrash` naming the optional fix (errors.FIXES).

Families with their own modules: `compare_table` (tables.py), the VLC
preference checks (vlc.py), the Writer document checks (documents.py, most
of them shared with OSWorld's suite from bench/formats/), image/audio/video
comparisons (media.py), `compare_zip_files` (archives.py), the Chrome and Edge metrics with
`check_direct_json_object` and `compare_pdfs` (browser/metrics.py).

`infeasible` is not here: it reads the agent's last action, not VM state,
so the checker decides it.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

from bench.formats.text_file import same_text, text_mode
from bench.formats.vscode_state import extension_rule_holds, keybindings
from bench.suites.waa.errors import MetricFailed, ReferenceCrash, rule_field
from bench.suites.waa.archives import ARCHIVE_METRICS
from bench.suites.waa.browser import BROWSER_METRICS
from bench.suites.waa.documents import DOCX_METRICS
from bench.suites.waa.media import MEDIA_METRICS
from bench.suites.waa.tables import RULES as TABLE_RULES, compare_table
from bench.suites.waa.vlc import VLC_METRICS

Metric = Callable[..., float]


def _rule(expected: Any, metric: str) -> Any:
    return rule_field(expected, metric, "expected")


def exact_match(result: Any, expected: Any, **options: Any) -> float:
    return float(result == _rule(expected, "exact_match"))


def compare_text_file(result: bytes | str | None, expected: bytes | str | None, *,
                      ignore_blanks: bool = False, ignore_case: bool = False, **options: Any) -> float:
    if result is None:
        return 0.0
    if expected is None:
        raise ReferenceCrash("compare_text_file: the gold file could not be read", fix="missing-file", fixed=0.0)
    try:
        mine, gold = text_mode(result), text_mode(expected)
    except UnicodeDecodeError as exc:
        fixed = same_text(text_mode(result, "latin-1"), text_mode(expected, "latin-1"), ignore_blanks, ignore_case)
        raise ReferenceCrash(f"compare_text_file: a file is not UTF-8 ({exc})", fix="text-encoding",
                             fixed=fixed) from None
    return same_text(mine, gold, ignore_blanks, ignore_case)


_COMMENT = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def loads_jsonc(text: str) -> Any:
    """JSON with // and /* */ comments and trailing commas, as VS Code writes it."""
    without_comments = _COMMENT.sub(lambda m: m.group(1) or "", text)
    return json.loads(_TRAILING_COMMA.sub(r"\1", without_comments))


def _holds(actual: Any, wanted: dict[str, Any]) -> float:
    return float(isinstance(actual, dict) and all(k in actual and actual[k] == v for k, v in wanted.items()))


def _jsonc_score(data: bytes | str, wanted: dict[str, Any]) -> float:
    try:
        return _holds(loads_jsonc(data.decode("utf-8", "replace") if isinstance(data, bytes) else data), wanted)
    except ValueError:
        return 0.0


def check_json_settings(result: bytes | str | None, expected: Any, **options: Any) -> float:
    wanted = _rule(expected, "check_json_settings")
    if result is None:
        return 0.0
    try:
        data = json.loads(text_mode(result))
    except ValueError as exc:
        raise ReferenceCrash(f"check_json_settings: settings.json is not plain JSON ({exc})", fix="jsonc",
                             fixed=_jsonc_score(result, wanted)) from None
    if not isinstance(data, dict):
        raise ReferenceCrash(f"check_json_settings: settings.json holds a {type(data).__name__}, not an object "
                             "(WAA's dict update raises)", fix="jsonc", fixed=0.0)
    return _holds(data, wanted)


def check_json_keybindings(result: bytes | str | None, expected: Any, **options: Any) -> float:
    """keybindings.json is a list of `{key, command, when?, args?}`: the wanted one must be among them."""
    wanted = _rule(expected, "check_json_keybindings")
    bindings = keybindings(result)
    return float(bindings is not None and wanted in bindings)


def is_extension_installed(result: Any, expected: Any, **options: Any) -> float:
    if not isinstance(expected, dict) or expected.get("type") not in ("contain", "not_contain"):
        raise MetricFailed(f"is_extension_installed: rules need `type` contain or not_contain, got {expected!r}")
    wanted = str(_rule(expected, "is_extension_installed"))
    if result is None:
        raise ReferenceCrash("is_extension_installed: the command gave no output", fix="missing-file",
                             fixed=float(expected["type"] == "not_contain"))
    output = result.decode("utf-8", "replace") if isinstance(result, bytes) else str(result)
    return extension_rule_holds(output, expected["type"], wanted)


METRICS: dict[str, Metric] = {
    "exact_match": exact_match,
    "compare_text_file": compare_text_file,
    "check_json_settings": check_json_settings,
    "is_extension_installed": is_extension_installed,
    "compare_table": compare_table,
    "check_json_keybindings": check_json_keybindings,
    **VLC_METRICS,
    **DOCX_METRICS,
    **MEDIA_METRICS,
    **ARCHIVE_METRICS,
    **BROWSER_METRICS,
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
