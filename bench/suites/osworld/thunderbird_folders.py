"""`check_thunderbird_folder`: Thunderbird's mail folders (mbox files) compared as OSWorld's
metrics/thunderbird.py compares them, its quirk included.

OSWorld splits each file (read as UTF-8 text, stripped) on "FROM - " and
means to keep each message, but its loop keeps only the pieces that are
blank (`if mail.strip(): continue` skips every message), each kept piece
as "FROM - " (a blank piece normalized is empty); with `remove_duplicate`
(the default) they are a set. So a file scores as its count of blank
pieces: none (Thunderbird's mbox separator is "From - ", which the upper-case
split never matches), one (an empty file, or one that starts with
"FROM - "), or more, counted only without `remove_duplicate`; the messages
themselves are never compared. troupe gives that same judgement.

`result` and `expected` are a file each or lists of files (compared pair by
pair, as far as the shorter list goes); a missing result scores 0; a
missing expected file, one that is not UTF-8, or a list against a single
file raise, as OSWorld's `open` does.
"""

from __future__ import annotations

from typing import Any

from bench.formats.text_file import text_mode
from bench.suites.osworld.errors import MetricFailed, raising_as_osworld

SEPARATOR = "FROM - "


def _kept(data: bytes, remove_duplicate: bool) -> str:
    """What OSWorld's reader returns for the file: "FROM - " once per blank piece (once at most as a set)."""
    if data is None:
        raise MetricFailed("check_thunderbird_folder: the expected folder file is missing "
                           "(OSWorld's open(None) raises)")
    blank = sum(1 for piece in text_mode(data).strip().split(SEPARATOR) if not piece.strip())
    kept = min(blank, 1) if remove_duplicate else blank
    return "\n".join([SEPARATOR] * kept)


@raising_as_osworld
def check_thunderbird_folder(result: Any, expected: Any, *, remove_duplicate: Any = True, **options: Any) -> float:
    if not isinstance(expected, list):
        result, expected = [result], [expected]
    elif not isinstance(result, list):
        if result is None or expected:
            raise MetricFailed("check_thunderbird_folder: a list of expected folders against one result "
                               "(OSWorld's function opens each character of the path)")
        return 1.0  # OSWorld zips the path with no expected folders: nothing to compare
    for mine, gold in zip(result, expected):
        if mine is None:
            return 0.0
        if _kept(mine, bool(remove_duplicate)) != _kept(gold, bool(remove_duplicate)):
            return 0.0
    return 1.0


THUNDERBIRD_FOLDER_METRICS = {"check_thunderbird_folder": check_thunderbird_folder}
