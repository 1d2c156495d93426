"""Files the OSWorld tests make in the formats its tasks name (the task files themselves live in a data set
this machine cannot reach): documents, workbooks, decks, a mail client's profile, a browser extension's archive."""

from __future__ import annotations

import io
import tarfile
import zipfile

import docx
from openpyxl import Workbook
from pptx import Presentation
from pptx.dml.color import RGBColor


def document(*paragraphs: str) -> bytes:
    """A .docx of one paragraph per text."""
    written = docx.Document()
    for text in paragraphs:
        written.add_paragraph(text)
    out = io.BytesIO()
    written.save(out)
    return out.getvalue()


def xlsx(rows: list[list[object]]) -> bytes:
    """An .xlsx workbook of one sheet, named Sheet1 as LibreOffice names it, holding `rows`."""
    workbook = Workbook()
    workbook.active.title = "Sheet1"
    for row in rows:
        workbook.active.append(row)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def slides(*titles: str, background: str | None = None) -> bytes:
    """A .pptx of one title slide per text; the first slide's background a solid `background` (RRGGBB)."""
    deck = Presentation()
    for title in titles:
        deck.slides.add_slide(deck.slide_layouts[0]).shapes.title.text = title
    if background is not None:
        fill = deck.slides[0].background.fill
        fill.solid()
        fill.fore_color.rgb = RGBColor.from_string(background)
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def tar_gz(files: dict[str, bytes]) -> bytes:
    """A .tar.gz holding `files` by their paths inside it."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in files.items():
            member = tarfile.TarInfo(name)
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))
    return out.getvalue()


def zip_of(files: dict[str, bytes]) -> bytes:
    """A .zip holding `files` by their paths inside it."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return out.getvalue()
