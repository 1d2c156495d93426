"""`compare_zip_files` as WAA's and OSWorld's references both judge two zip archives (vscode.py).

The same set of member names, and every member's bytes equal, except a PDF
member (by its name's suffix), whose text both extract page by page with
PyPDF2 (here pypdf, its successor: `bench.formats.pdf.pypdf_text`) and
compare with difflib: a `SequenceMatcher` ratio of at least 0.95 holds.
An archive zipfile cannot open or read (not a zip, a damaged or
password-locked member), or a PDF member that does not read, makes both
references raise: `UnreadableArchive` here, which each suite gives its
reference's outcome. Handling a missing file is each suite's.
"""

from __future__ import annotations

import io
import zipfile
from difflib import SequenceMatcher

from protocols import TroupeError

from bench.formats.pdf import pypdf_text

__all__ = ["PDF_SIMILARITY", "UnreadableArchive", "same_zip_files"]

PDF_SIMILARITY = 0.95
"""Both references' threshold: two PDF members whose texts are at least this alike are the same."""


class UnreadableArchive(TroupeError, ValueError):
    """An archive, or a PDF member of it, that the references' zipfile or PyPDF2 raise on; the message says which."""


def _members(archive: zipfile.ZipFile) -> dict[str, bytes]:
    return {name: archive.read(name) for name in archive.namelist()}


def same_zip_files(result: bytes, expected: bytes) -> float:
    try:
        with zipfile.ZipFile(io.BytesIO(result)) as mine, zipfile.ZipFile(io.BytesIO(expected)) as gold:
            if set(mine.namelist()) != set(gold.namelist()):
                return 0.0
            first, second = _members(mine), _members(gold)
    except (zipfile.BadZipFile, RuntimeError, NotImplementedError, EOFError, OSError) as exc:
        raise UnreadableArchive(f"compare_zip_files: an archive does not read as a zip ({type(exc).__name__}: "
                                f"{exc})") from None
    pdfs = sorted(name for name in first if name.lower().endswith(".pdf"))
    if any(first[name] != second[name] for name in first if name not in pdfs):
        return 0.0
    return float(all(_same_pdf_text(name, first[name], second[name]) for name in pdfs))


def _pdf_text(name: str, data: bytes) -> str:
    try:
        return pypdf_text(data)
    except Exception as exc:  # noqa: BLE001 - pypdf raises many kinds on a damaged file, as PyPDF2 does
        raise UnreadableArchive(f"compare_zip_files: member {name!r} does not read as a PDF ({type(exc).__name__}: "
                                f"{exc})") from None


def _same_pdf_text(name: str, mine: bytes, gold: bytes) -> bool:
    return SequenceMatcher(None, _pdf_text(name, mine), _pdf_text(name, gold)).ratio() >= PDF_SIMILARITY
