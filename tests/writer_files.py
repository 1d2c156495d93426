"""Writer files the parity tests of both suites build: .docx files (python-docx) with runs, tables, tab
stops, alignments, footers, pictures, coloured words and page breaks, .odt files (odfpy) with spans and
automatic styles, and the profile's registrymodifications.xcu."""

from __future__ import annotations

import io
import zipfile
from typing import Any, Callable

import docx
from docx.shared import Inches, RGBColor
from odf.opendocument import OpenDocumentText
from odf.style import Map, Style, TextProperties
from odf.text import A, P, S, Span
from PIL import Image

Build = Callable[[Any], None]
TEXT = ["Course outline", "Week 1: introduction to the field.", "Week 2: methods and sources."]
"""A course outline's paragraphs, the text the documents below hold unless told otherwise."""
REFERENCES = ["Smith, J. (2020). Cocoa and health. Journal of Food, 12, 1-10.",
              "Lee, K. (2019). Flavonoids in the diet. Nutrition Reviews, 7, 33-40."]
"""A references section's entries."""
TRAIN_RECORDS = ["08:01:00, T100, S1, 1", "08:05:00, T101, S2, 2", "08:09:00, T100, S1, 1", "Timetable (not a record)"]
"""A train timetable's lines (time, train id, station, platform): T100's twice, and a line that is no record."""


def saved(written: Any) -> bytes:
    """A python-docx document's .docx bytes."""
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


GREETING = ["Hello caller,", "thanks for calling."]
"""check_highlighted_words' document: the gold copy is GREETING in plain text."""


def highlighted_variants() -> dict[str, bytes | None]:
    """check_highlighted_words' edge cases, by name: GREETING plain, its first line highlighted in each way a
    span can say it (yellow in either case, another colour, transparent), with a link or spaces added,
    other text, a file that is no .odt, and no file."""
    lines = GREETING
    return {
        "clean": odt([(line, None) for line in lines]),
        "yellow": odt([(lines[0], "#ffff00"), (lines[1], None)]),
        "upper-yellow": odt([(lines[0], "#FFFF00"), (lines[1], None)]),
        "green": odt([(lines[0], "#00ff00"), (lines[1], None)]),
        "transparent": odt([(lines[0], "transparent"), (lines[1], None)]),
        "link": odt([(line, None) for line in lines], link=True),
        "spaces": odt([(line, None) for line in lines], spaced=True),
        "other-text": odt([("Hello", None)]), "not-odt": b"junk", "missing": None}


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


def first_aligned(alignment: Any, style: bool = False) -> bytes:
    """A .docx whose first paragraph (or, with `style`, its Normal style) has `alignment`."""
    def build(written: Any) -> None:
        owner = written.styles["Normal"] if style else written.paragraphs[0]
        owner.paragraph_format.alignment = alignment
    return document(TEXT, build)


def footer(*texts: str | None) -> bytes:
    """A .docx with a section per text, its footer's first paragraph that text (None: no footer of its own)."""
    def build(written: Any) -> None:
        for n, text in enumerate(texts):
            section = written.sections[0] if n == 0 else written.add_section()
            if text is not None:
                section.footer.is_linked_to_previous = False
                section.footer.paragraphs[0].text = text
    return document(TEXT, build)


def breaks(*kinds: Any, in_table: bool = False) -> bytes:
    """A .docx with a run holding a break of each kind (in a table cell instead when `in_table`)."""
    def build(written: Any) -> None:
        paragraph = written.add_table(rows=1, cols=1).cell(0, 0).paragraphs[0] if in_table else written.paragraphs[0]
        for kind in kinds:
            run = paragraph.add_run("part")
            run.add_break() if kind is None else run.add_break(kind)
    return document(TEXT, build)


def png(colour: tuple[int, int, int], size: tuple[int, int] = (8, 8)) -> bytes:
    """A PNG of one colour."""
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "PNG")
    return out.getvalue()


def pictures(*images: bytes) -> bytes:
    """A .docx holding each image, an inch wide, in order."""
    def build(written: Any) -> None:
        for image in images:
            written.add_picture(io.BytesIO(image), width=Inches(1))
    return document(TEXT, build)


def coloured(cells: list[tuple[str, RGBColor | None]], text: list[str] = TEXT) -> bytes:
    """A .docx of `text` and a table of one row, a cell per (word, its run's colour or None)."""
    def build(written: Any) -> None:
        row = written.add_table(rows=1, cols=len(cells)).rows[0]
        for cell, (word, colour) in zip(row.cells, cells):
            run = cell.paragraphs[0].add_run(word)
            if colour is not None:
                run.font.color.rgb = colour
    return document(text, build)


def mapped_style_odt(text: str) -> bytes:
    """An .odt whose span's automatic style has a `style:map` child, which odfpy cannot read a colour of."""
    written = OpenDocumentText()
    style = Style(name="T0", family="text")
    style.addElement(Map(condition="true()", applystylename="Standard"))
    written.automaticstyles.addElement(style)
    paragraph = P()
    paragraph.addElement(Span(stylename=style, text=text))
    written.text.addElement(paragraph)
    out = io.BytesIO()
    written.write(out)
    return out.getvalue()
