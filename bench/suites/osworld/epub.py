"""`compare_epub`: two EPUB books as OSWorld's metrics/others.py compares them.

Each book is read as its `process_epub` leaves it: from the zip, a
top-level `toc.ncx` without its lines that name `navPoint`, a top-level
`content.opf` without its lines that name `dc:identifier`, and every member
whose name ends in ".html", with line ends taken out and pretty-printed by
lxml. These files, in the order of their names, are paired with the other
book's, and the score is the mean over the result's files of
`diff_text_file` (difflib's ratio of the two files' lines). A result that
is not a zip has no files and scores 0, as a book with none does; no result
scores 0. Where OSWorld's function raises, this raises: no expected book,
a member that is not UTF-8 or whose HTML does not parse, and an .html member
in a folder (OSWorld writes it beside the book, in a folder it never made).
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from typing import Any

import lxml.html
from lxml import etree

from bench.suites.osworld.errors import MetricFailed
from bench.suites.osworld.text_files import diff_text_file

TOC = "toc.ncx"
PACKAGE = "content.opf"


def _lines_without(data: bytes, word: str) -> bytes:
    """The member's text without its lines holding `word`, each written back with a newline."""
    return "".join(line + "\n" for line in data.decode().splitlines() if word not in line).encode()


def _pretty_html(data: bytes) -> bytes:
    text = "".join(ch for ch in data.decode() if ch not in "\n\r")
    return lxml.html.tostring(lxml.html.fromstring(text.encode()), pretty_print=True, encoding="unicode").encode()


def book_files(data: bytes) -> list[bytes]:
    """What OSWorld's process_epub writes for the book, in the order of the files' names."""
    try:
        book = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        return []
    written: dict[str, bytes] = {}
    names: list[str] = []
    with book:
        members = book.namelist()
        for name, word in ((TOC, "navPoint"), (PACKAGE, "dc:identifier")):
            if name in members:
                written[name] = _lines_without(book.read(name), word)
                names.append(name)
        for name in members:
            if name.endswith(".html"):
                if posixpath.dirname(name):
                    raise MetricFailed(f"compare_epub: {name!r} is in a folder, which OSWorld's process_epub "
                                       "writes into without making it (its function raises here)")
                written[name] = _pretty_html(book.read(name))
                names.append(name)
    return [written[name] for name in sorted(names)]


def compare_epub(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    if result is None:
        return 0.0
    if expected is None:
        raise MetricFailed("compare_epub: the expected book could not be read (OSWorld's function raises here)")
    try:
        mine, gold = book_files(result), book_files(expected)
    except (UnicodeDecodeError, ValueError, etree.ParserError) as exc:
        raise MetricFailed(f"compare_epub: a book's member does not read ({type(exc).__name__}: {exc}) "
                           "(OSWorld's function raises here)") from None
    score = sum(diff_text_file(first, second) for first, second in zip(mine, gold))
    return score / len(mine) if mine else score


EPUB_METRICS = {"compare_epub": compare_epub}
