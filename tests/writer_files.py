"""Writer files the parity tests of both suites build: .docx files (python-docx) with runs, tables, tab
stops, footers, images and page breaks, .odt files (odfpy) with spans and automatic styles, and the
profile's registrymodifications.xcu."""

from __future__ import annotations

import io
import zipfile
from typing import Any, Callable

import docx
from docx.shared import Inches
from odf.opendocument import OpenDocumentText
from odf.style import Style, TextProperties
from odf.text import A, P, S, Span

Build = Callable[[Any], None]


def saved(written: Any) -> bytes:
    out = io.BytesIO()
    written.save(out)
    return out.getvalue()


def document(paragraphs: list[str], build: Build | None = None) -> bytes:
    """A .docx of one paragraph per text, then `build(document)`."""
    written = docx.Document()
    for text in paragraphs:
        written.add_paragraph(text)
    if build is not None:
        build(written)
    return saved(written)


def runs(*parts: tuple[str, dict[str, Any]], before: list[str] = (), after: list[str] = ()) -> bytes:
    """A .docx whose middle paragraph is made of runs, each (text, font attributes)."""
    written = docx.Document()
    for text in before:
        written.add_paragraph(text)
    paragraph = written.add_paragraph()
    for text, font in parts:
        run = paragraph.add_run(text)
        for name, value in font.items():
            setattr(run.font, name, value)
    for text in after:
        written.add_paragraph(text)
    return saved(written)


def spacing(*values: Any) -> Build:
    """Sets the line spacing of the first paragraphs, one value each."""
    def build(written: Any) -> None:
        for paragraph, value in zip(written.paragraphs, values):
            paragraph.paragraph_format.line_spacing = value
    return build


def table(rows: list[list[str]]) -> Build:
    """Adds a table holding `rows`."""
    def build(written: Any) -> None:
        added = written.add_table(rows=len(rows), cols=len(rows[0]))
        for i, row in enumerate(rows):
            for j, text in enumerate(row):
                added.cell(i, j).text = text
    return build


def tabbed(lines: list[tuple[str, list[tuple[float, Any]]]]) -> bytes:
    """A .docx of one paragraph per (text, its tab stops as (inches, alignment))."""
    written = docx.Document()
    for text, stops in lines:
        paragraph = written.add_paragraph(text)
        for position, alignment in stops:
            paragraph.paragraph_format.tab_stops.add_tab_stop(Inches(position), alignment)
    return saved(written)


def odt(parts: list[tuple[str, str | None]], *, link: bool = False, spaced: bool = False) -> bytes:
    """An .odt with one paragraph per (text, background colour of its span, or None for plain text)."""
    written = OpenDocumentText()
    for n, (text, colour) in enumerate(parts):
        paragraph = P()
        if colour is None:
            paragraph.addText(text)
        else:
            style = Style(name=f"T{n}", family="text")
            style.addElement(TextProperties(backgroundcolor=colour))
            written.automaticstyles.addElement(style)
            paragraph.addElement(Span(stylename=style, text=text))
        if link:
            paragraph.addElement(A(href="https://example.com", text=" link"))
        if spaced:
            paragraph.addElement(S(c=2))
        written.text.addElement(paragraph)
    out = io.BytesIO()
    written.write(out)
    return out.getvalue()


def xcu(font: str | None) -> bytes:
    """A registrymodifications.xcu setting Writer's default font (none when None) besides another item."""
    item = ("" if font is None else
            '<item oor:path="/org.openoffice.Office.Writer/DefaultFont"><prop oor:name="Standard" oor:op="fuse">'
            f"<value>{font}</value></prop></item>")
    return ('<?xml version="1.0" encoding="UTF-8"?><oor:items xmlns:oor="http://openoffice.org/2001/registry" '
            f'xmlns:xs="http://www.w3.org/2001/XMLSchema">{item}'
            '<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse">'
            "<value>false</value></prop></item></oor:items>").encode()


def replaced(package: bytes, member: str, data: bytes) -> bytes:
    """The zip package with `member`'s bytes replaced (a document whose image is not one, say)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(package)) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            target.writestr(info, data if info.filename == member else source.read(info))
    return out.getvalue()
