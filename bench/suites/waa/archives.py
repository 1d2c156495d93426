"""`compare_zip_files`: WAA's vscode.py check that two zip archives hold the same files, judged as
`bench.formats.zip_archive` says (OSWorld's reference judges them the same way).

No result file scores 0; a result that zipfile cannot open or read (not a
zip, a damaged or password-locked member), or a PDF member that does not
read, makes WAA raise: `ReferenceCrash`, whose `unreadable-archive` fix
scores 0.

The one WAA task using it fetches `DownloadssBackup.zip` (sic) while asking
the agent for `DownloadsBackup.zip`, so WAA scores it 0 unless the agent
misspells the name the same way; troupe reads the path the task gives.
"""

from __future__ import annotations

from typing import Any

from bench.formats.zip_archive import UnreadableArchive, same_zip_files
from bench.suites.waa.errors import ReferenceCrash


def compare_zip_files(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    if result is None:
        return 0.0
    if expected is None:
        raise ReferenceCrash("compare_zip_files: the gold archive could not be read", fix="missing-file", fixed=0.0)
    try:
        return same_zip_files(result, expected)
    except UnreadableArchive as exc:
        raise ReferenceCrash(str(exc), fix="unreadable-archive", fixed=0.0) from None


ARCHIVE_METRICS = {"compare_zip_files": compare_zip_files}
