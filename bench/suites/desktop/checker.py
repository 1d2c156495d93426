"""Operating-system state checks: how the desktop suite's verdict is reached.

A desktop task is judged by what the user's actions left on the machine —
a file with given content, a folder that now exists, a value in a settings
file — never by pixels. The spec names paths relative to the home folder:

    {"checks": [
      {"type": "file_content", "path": "notes.txt", "expected": "hello", "match": "exact"},
      {"type": "folder_exists", "path": "projects"},
      {"type": "absent", "path": "draft.txt"},
      {"type": "ini_value", "path": ".gitconfig", "section": "user", "key": "name", "expected": "Ada"}
    ]}

The VM side (actors.backends.files) only reads the named paths; the judging
happens here, wherever the Evaluator runs.
"""

from __future__ import annotations

import configparser
import re
from typing import Any, Literal

import msgspec

from protocols import Evaluate, Verdict


class FileContent(msgspec.Struct, tag="file_content", forbid_unknown_fields=True):
    path: str
    expected: str
    match: Literal["exact", "stripped", "contains", "regex"] = "stripped"


class FolderExists(msgspec.Struct, tag="folder_exists", forbid_unknown_fields=True):
    path: str


class Absent(msgspec.Struct, tag="absent", forbid_unknown_fields=True):
    path: str


class IniValue(msgspec.Struct, tag="ini_value", forbid_unknown_fields=True):
    path: str
    section: str
    key: str
    expected: str


Check = FileContent | FolderExists | Absent | IniValue


class Spec(msgspec.Struct):
    checks: list[Check]


def parse_spec(spec: dict[str, Any]) -> Spec:
    try:
        return msgspec.convert(spec, Spec)
    except msgspec.ValidationError as exc:
        raise ValueError(f"evaluation spec: {exc}") from None



def judge(check: Check, entry: dict[str, Any]) -> str | None:
    """None when the check holds, else what is wrong."""
    match check:
        case FolderExists(path=path):
            return None if entry["is_dir"] else f"folder {path!r} does not exist"
        case Absent(path=path):
            return None if not entry["exists"] else f"{path!r} still exists"
    content = entry.get("content")
    if content is None:
        return f"file {check.path!r} does not exist"
    match check:
        case FileContent(expected=expected, match=how):
            holds = {
                "exact": lambda: content == expected,
                "stripped": lambda: content.strip() == expected.strip(),
                "contains": lambda: expected in content,
                "regex": lambda: re.search(expected, content) is not None,
            }[how]()
            return None if holds else f"{check.path!r} holds {content[:200]!r}, expected ({how}) {expected!r}"
        case IniValue(section=section, key=key, expected=expected):
            parser = configparser.ConfigParser(interpolation=None, strict=False)
            try:
                parser.read_string(content)
                value = parser.get(section, key, fallback=None)
            except configparser.Error as exc:
                return f"{check.path!r} is not a valid settings file: {exc}"
            return None if value == expected else f"{check.path!r} [{section}] {key} is {value!r}, expected {expected!r}"
    raise AssertionError(check)


class OSStateChecker:
    async def check(self, request: Evaluate) -> Verdict:
        checks = parse_spec(request.task.evaluation_spec).checks
        paths = request.vm_state.get("paths", {})
        misses = [miss for check in checks
                  if (miss := judge(check, paths.get(check.path, {"exists": False, "is_dir": False})))]
        score = 1.0 - len(misses) / len(checks) if checks else 1.0
        return Verdict(success=not misses, score=score, reason="; ".join(misses) or "every check holds")
