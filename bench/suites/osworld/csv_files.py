"""CSV files as OSWorld's table.py reads them: `compare_csv`, and sheet_print's CSVs.

- `lines`: a file's lines as OSWorld's _safe_read_file reads them: decoded as
  UTF-8 (a byte-order mark stays a character), else as Latin-1 (which reads
  any bytes), in text mode (universal newlines), then `str.splitlines`;
- `compare_csv`: the result's lines equal the expected file's, or with a list
  of expected files any one's; `strict` false strips each line, `ignore_case`
  lowercases them. No result scores 0; no expected file raises, as there.
"""

from __future__ import annotations

from typing import Any

from bench.formats.text_file import text_mode
from bench.suites.osworld.errors import MetricFailed


def lines(data: bytes) -> list[str]:
    try:
        return text_mode(data).splitlines()
    except UnicodeDecodeError:
        return text_mode(data, "latin-1").splitlines()


def _normalized(found: list[str], options: dict[str, Any]) -> list[str]:
    if not options.get("strict", True):
        found = [line.strip() for line in found]
    if options.get("ignore_case", False):
        found = [line.lower() for line in found]
    return found


def compare_csv(result: bytes | None, expected: bytes | list[bytes] | None, **options: Any) -> float:
    if result is None:
        return 0.0
    candidates = [expected] if isinstance(expected, bytes) else expected
    if not isinstance(candidates, list) or not all(isinstance(c, bytes) for c in candidates):
        raise MetricFailed(f"compare_csv: the expected file could not be read ({type(expected).__name__}; "
                           "OSWorld's function raises here)")
    mine = _normalized(lines(result), options)
    return float(any(mine == _normalized(lines(gold), options) for gold in candidates))


CSV_METRICS = {"compare_csv": compare_csv}
