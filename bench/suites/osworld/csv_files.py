"""CSV files as OSWorld's metrics read them: `compare_csv` (metrics/table.py) and `check_csv`
(metrics/general.py).

- `lines`: a file's lines as OSWorld's _safe_read_file reads them: decoded as
  UTF-8 (a byte-order mark stays a character), else as Latin-1 (which reads
  any bytes), in text mode (universal newlines), then `str.splitlines`;
- `compare_csv`: the result's lines equal the expected file's, or with a list
  of expected files any one's; `strict` false strips each line, `ignore_case`
  lowercases them. No result scores 0; no expected file raises, as there;
- `check_csv`: the result read as UTF-8 text by `csv.DictReader`, its header
  naming the fields: every record of `rules["expect"]` (a dict of field
  values) matches some row, and no row matches a record of
  `rules["unexpect"]`. No result scores 0; a file that is not UTF-8 raises.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from bench.suites.osworld.errors import MetricFailed


def _read(data: bytes, encoding: str) -> str:
    return io.TextIOWrapper(io.BytesIO(data), encoding=encoding).read()


def lines(data: bytes) -> list[str]:
    try:
        return _read(data, "utf-8").splitlines()
    except UnicodeDecodeError:
        return _read(data, "latin-1").splitlines()


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


def _matches(record: dict[str, Any], row: dict[str, Any]) -> bool:
    """OSWorld's _match_record: the row has every field of the record, each with its value."""
    return all(key in row and row[key] == value for key, value in record.items())


def check_csv(result: bytes | None, rules: Any, **options: Any) -> float:
    if result is None:
        return 0.0
    if not isinstance(rules, dict):
        raise MetricFailed(f"check_csv: expected rules with `expect`/`unexpect`, got {rules!r} "
                           "(OSWorld's function raises here)")
    try:
        rows = list(csv.DictReader(io.StringIO(_read(result, "utf-8"), newline="")))
    except UnicodeDecodeError as exc:
        raise MetricFailed(f"check_csv: the file is not UTF-8 text ({exc}; OSWorld's function raises here)") from None
    expect, unexpect = rules.get("expect", []), rules.get("unexpect", [])
    found, clean = [False] * len(expect), True
    for row in rows:  # OSWorld's loop, so a malformed record raises where it raises there
        for index, record in enumerate(expect):
            found[index] = found[index] or _matches(record, row)
        clean = clean and not any(_matches(record, row) for record in unexpect)
    return float(all(found) and clean)


CSV_METRICS = {"compare_csv": compare_csv, "check_csv": check_csv}
