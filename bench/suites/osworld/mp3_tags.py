"""`check_mp3_meta`: an MP3's ID3 tags as OSWorld's metrics/others.py checks them.

Each key of the task's rule (`title`, `artist`, ...) names a tag, read as
mutagen's EasyID3 reads it (a tag with several values joined by commas, a
missing one as ""), and its `{method, ref}` rule must hold
(`bench.formats.spreadsheet.value_matches`, OSWorld's _match_value_to_rule),
in order: the first that fails decides, and the rules after it are not
looked at. No file scores 0; a file without an ID3 tag raises, as mutagen
does there.
"""

from __future__ import annotations

import io
from typing import Any

from mutagen import MutagenError
from mutagen.easyid3 import EasyID3

from bench.formats.spreadsheet import value_matches
from bench.suites.osworld.errors import MetricFailed


def check_mp3_meta(result: bytes | None, rules: Any, **options: Any) -> float:
    if result is None:
        return 0.0
    try:
        tags = EasyID3(io.BytesIO(result))
    except MutagenError as exc:
        raise MetricFailed(f"check_mp3_meta: the file has no ID3 tag mutagen reads ({type(exc).__name__}: {exc}) "
                           "(OSWorld's function raises here)") from None
    for key, rule in rules.items():
        value = tags.get(key, "")
        if not value_matches(",".join(value) if isinstance(value, list) else value, rule):
            return 0.0
    return 1.0


MP3_METRICS = {"check_mp3_meta": check_mp3_meta}
