"""Office files the OSWorld tests make in the formats its tasks name (the task files themselves live in a
data set this machine cannot reach)."""

from __future__ import annotations

import io

import docx
from openpyxl import Workbook


def document(*paragraphs: str) -> bytes:
    """A .docx of one paragraph per text."""
    written = docx.Document()
    for text in paragraphs:
        written.add_paragraph(text)
    out = io.BytesIO()
    written.save(out)
    return out.getvalue()


def xlsx(rows: list[list[object]]) -> bytes:
    """An .xlsx workbook of one sheet holding `rows`."""
    workbook = Workbook()
    for row in rows:
        workbook.active.append(row)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()
