"""`compare_zip_files`: WAA's vscode.py check that two zip archives hold the same files.

The same set of member names, and every member's bytes equal, except a PDF
member (by its name's suffix), whose text WAA extracts page by page and
compares with difflib: a `SequenceMatcher` ratio of at least 0.95 holds.
WAA extracts it with PyPDF2, troupe with pypdf (PyPDF2's successor): the
same text for the PDFs the differential tests write. No result file scores 0;
a result that zipfile cannot open or read (not a zip, a damaged or
password-locked member), or a PDF member that does not read, makes WAA raise:
`ReferenceCrash`, whose `unreadable-archive` fix scores 0.

The one WAA task using it fetches `DownloadssBackup.zip` (sic) while asking
the agent for `DownloadsBackup.zip`, so WAA scores it 0 unless the agent
misspells the name the same way; troupe reads the path the task gives.
"""

from __future__ import annotations

import io
import zipfile
from difflib import SequenceMatcher
from typing import Any

from bench.suites.waa.browser.pdfs import extracted_text
from bench.suites.waa.errors import ReferenceCrash

PDF_SIMILARITY = 0.95
"""WAA's threshold: two PDF members whose texts are at least this alike are the same."""


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
    pdfs = sorted(name for name in first if name.lower().endswith(".pdf"))
    if any(first[name] != second[name] for name in first if name not in pdfs):
        return 0.0
    return float(all(_same_pdf_text(name, first[name], second[name]) for name in pdfs))


def _pdf_text(name: str, data: bytes) -> str:
    try:
        return extracted_text(data)
    except Exception as exc:  # noqa: BLE001 - pypdf raises many kinds on a damaged file, as PyPDF2 does in WAA
        raise ReferenceCrash(f"compare_zip_files: member {name!r} does not read as a PDF ({type(exc).__name__}: "
                             f"{exc})", fix="unreadable-archive", fixed=0.0) from None


def _same_pdf_text(name: str, mine: bytes, gold: bytes) -> bool:
    return SequenceMatcher(None, _pdf_text(name, mine), _pdf_text(name, gold)).ratio() >= PDF_SIMILARITY


ARCHIVE_METRICS = {"compare_zip_files": compare_zip_files}
