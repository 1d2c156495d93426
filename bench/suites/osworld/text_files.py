"""Text files as OSWorld's metrics compare them (its metrics/vscode.py and general.py), each file
read as `open(path).read()` reads it there (`bench.formats.text_file.text_mode`).

- `diff_text_file`: difflib's ratio of the two files' lines; a missing
  result scores 0, a missing expected file raises, as OSWorld's `open` does;
- `compare_text_file`: `bench.formats.text_file.same_text` with the options
  `ignore_blanks` and `ignore_case` (WAA's is the same); a missing result
  scores 0, a missing gold file or one that is not UTF-8 raises, as
  OSWorld's `open` does;
- `compare_result_files`: the two texts stripped; when the gold one reads
  as a number (Python's `float`), the result holding it, or reading as a
  number within 1e-4 of it, scores 1; otherwise the two must be equal. A
  missing file scores 0, one that is not UTF-8 raises;
- `compare_python_pure_text`: two Python files equal once normalized as
  OSWorld normalizes them: of the first three lines, leading ones that are a
  shebang or a coding declaration are dropped, then blank lines, then each
  line's tabs are expanded to 4 columns and its right end stripped. A
  missing or unreadable file scores 0.
"""

from __future__ import annotations

import difflib
from typing import Any

from bench.formats.text_file import same_text, text_mode
from bench.suites.osworld.errors import MetricFailed

NUMBER_TOLERANCE = 1e-4
_METADATA = ("#!", "# -*- coding:", "# coding:", "# coding=")
"""How a leading line that compare_python_pure_text passes over starts."""


def _read(data: bytes, func: str, which: str) -> str:
    try:
        return text_mode(data)
    except UnicodeDecodeError as exc:
        raise MetricFailed(f"{func}: the {which} file is not UTF-8 ({exc}) (OSWorld's function raises here)") from None


def diff_text_file(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    if result is None:
        return 0.0
    if expected is None:
        raise MetricFailed("diff_text_file: the expected file could not be read (OSWorld's function raises here)")
    return difflib.SequenceMatcher(a=text_mode(result).splitlines(), b=text_mode(expected).splitlines()).ratio()


def compare_text_file(result: bytes | None, expected: bytes | None, *, ignore_blanks: bool = False,
                      ignore_case: bool = False, **options: Any) -> float:
    if result is None:
        return 0.0
    if expected is None:
        raise MetricFailed("compare_text_file: the expected file could not be read (OSWorld's function raises here)")
    mine, gold = _read(result, "compare_text_file", "result"), _read(expected, "compare_text_file", "expected")
    return same_text(mine, gold, ignore_blanks, ignore_case)


def compare_result_files(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    if result is None or expected is None:
        return 0.0
    mine = _read(result, "compare_result_files", "result").strip()
    gold = _read(expected, "compare_result_files", "expected").strip()
    try:
        wanted = float(gold)
        return float(gold in mine or abs(float(mine) - wanted) < NUMBER_TOLERANCE)
    except ValueError:
        return float(mine == gold)


def _normalized(text: str) -> str:
    lines = text.splitlines()
    start = 0
    while start < min(len(lines), 3) and lines[start].strip().startswith(_METADATA):
        start += 1
    return "\n".join(line.expandtabs(4).rstrip() for line in lines[start:] if line.strip())


def compare_python_pure_text(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    if result is None or expected is None:
        return 0.0
    try:
        return float(_normalized(text_mode(result)) == _normalized(text_mode(expected)))
    except UnicodeDecodeError:
        return 0.0


TEXT_METRICS = {"diff_text_file": diff_text_file, "compare_text_file": compare_text_file, "compare_result_files": compare_result_files,
                "compare_python_pure_text": compare_python_pure_text}
