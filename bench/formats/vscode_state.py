"""VS Code's state as WAA's and OSWorld's metrics judge it alike (both forked the same metrics/vscode.py).

- `keybindings`: keybindings.json as both read it: plain JSON, or failing
  that JSON after its first line (where VS Code writes a comment), when it
  holds a list; None otherwise (text that is not UTF-8 too);
- `extension_rule_holds`: `is_extension_installed`'s judgement of a
  command's output: it does (`contain`) or does not (`not_contain`) include
  the wanted text. What a missing output or an unknown rule type gives
  differs between the suites (each keeps its reference's outcome).
"""

from __future__ import annotations

import json
from typing import Any

from bench.formats.text_file import text_mode

__all__ = ["extension_rule_holds", "keybindings"]


def _json_list(text: str) -> list[Any] | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, list) else None


def keybindings(data: bytes | str | None) -> list[Any] | None:
    if data is None:
        return None
    try:
        text = text_mode(data)
    except UnicodeDecodeError:
        return None
    found = _json_list(text)
    return found if found is not None else _json_list(text.split("\n", 1)[1] if "\n" in text else "")


def extension_rule_holds(output: str, kind: str, wanted: str) -> float:
    found = wanted in output
    return float(found if kind == "contain" else not found)
