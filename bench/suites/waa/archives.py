"""`compare_zip_files`: WAA's vscode.py check that two zip archives hold the same files.

The same set of member names, and every member's bytes equal (a PDF member
WAA compares by its extracted text, at least 95% alike; that needs a PDF
reader troupe does not carry for this, so such a pair is refused by name).
No result file scores 0; a result that zipfile cannot open or read (not a
zip, a damaged or password-locked member) makes WAA raise: `ReferenceCrash`,
whose `unreadable-archive` fix scores 0.

The one WAA task using it fetches `DownloadssBackup.zip` (sic) while asking
the agent for `DownloadsBackup.zip`, so WAA scores it 0 unless the agent
misspells the name the same way; troupe reads the path the task gives.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

from bench.suites.waa.errors import MetricFailed, ReferenceCrash


def _members(archive: zipfile.ZipFile) -> dict[str, bytes]:
    return {name: archive.read(name) for name in archive.namelist()}


def compare_zip_files(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    if result is None:
        return 0.0
    if expected is None:
        raise ReferenceCrash("compare_zip_files: the gold archive could not be read", fix="missing-file", fixed=0.0)
    try:
        with zipfile.ZipFile(io.BytesIO(result)) as mine, zipfile.ZipFile(io.BytesIO(expected)) as gold:
            if set(mine.namelist()) != set(gold.namelist()):
                return 0.0
            first, second = _members(mine), _members(gold)
    except (zipfile.BadZipFile, RuntimeError, NotImplementedError, EOFError, OSError) as exc:
        raise ReferenceCrash(f"compare_zip_files: an archive does not read as a zip ({type(exc).__name__}: {exc})",
                             fix="unreadable-archive", fixed=0.0) from None
    for name, data in first.items():
        if name.lower().endswith(".pdf"):
            raise MetricFailed(f"compare_zip_files: member {name!r} is a PDF, which WAA compares by its text; "
                               "troupe has no PDF reader for it")
        if data != second[name]:
            return 0.0
    return 1.0


ARCHIVE_METRICS = {"compare_zip_files": compare_zip_files}
