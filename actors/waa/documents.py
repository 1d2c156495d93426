"""Writer checks on the .docx files the libreoffice_writer tasks save.

Read with python-docx. Each metric takes the result file's bytes (None when
the agent did not save it: score 0) and, where the task has one, the gold
file's bytes or a rule. Written from what each task asks:

- `compare_docx_files`: the same text. By default (`ignore_blanks`) runs of
  whitespace and empty paragraphs do not matter; with `ignore_blanks: false`
  the paragraphs must match one for one, empty ones included (a task that
  asks for blank lines between sentences is judged by them);
  `ignore_case` is off unless asked;
- `compare_line_spacing`: the same paragraphs with the same line spacing each;
- `compare_docx_tables`: the same tables, cell by cell;
- `compare_font_names`: every piece of text is set in `rules.font_name`
  (the font in effect: the run's own, else its styles', else the document's);
- `compare_highlighted_text`: the same text is highlighted as in the gold;
- `compare_subscript_contains`: every subscript of the gold is a subscript
  in the result too;
- `is_first_line_centered`: the first paragraph is centred;
- `has_page_numbers_in_footers`: every section's footer holds a PAGE field;
- `evaluate_strike_through_last_paragraph`: the last paragraph is the gold's
  and all of its text is struck through;
- `check_italic_font_size_14`: the text is the gold's and every italic run
  is 14 pt;
- `find_default_font`: Writer's default font (in the profile's
  registrymodifications.xcu, not a .docx) is `rules.font_name`.

A file that is not a .docx is a `MetricFailed` naming which file.
"""

from __future__ import annotations

import io
import re
import zipfile
from xml.etree import ElementTree
from typing import Any, Callable, Iterator

import docx
from docx.document import Document
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.oxml.ns import qn
from docx.shared import Pt
from docx.text.paragraph import Paragraph
from docx.text.run import Run

from actors.waa.errors import MetricFailed, rule_field


def _open(data: bytes, func: str, which: str) -> Document:
    try:
        return docx.Document(io.BytesIO(data))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise MetricFailed(f"{func}: the {which} file is not a .docx document ({exc})") from None


def _documents(func: str, result: bytes | None, expected: bytes | None) -> tuple[Document, Document] | None:
    """Both documents, or None when the result is missing (the agent did not save)."""
    if result is None:
        return None
    if not isinstance(expected, bytes):
        raise MetricFailed(f"{func}: the gold document could not be read")
    return _open(result, func, "result"), _open(expected, func, "expected")


def _texts(document: Document) -> list[str]:
    return [p.text for p in document.paragraphs]


def _same_text(mine: Document, gold: Document, *, ignore_blanks: bool = True, ignore_case: bool = False) -> bool:
    if ignore_blanks:
        mine_text, gold_text = (re.sub(r"\s+", " ", "\n".join(_texts(d))).strip() for d in (mine, gold))
    else:
        mine_text, gold_text = "\n".join(_texts(mine)), "\n".join(_texts(gold))
    if ignore_case:
        mine_text, gold_text = mine_text.lower(), gold_text.lower()
    return mine_text == gold_text


def compare_docx_files(result: bytes | None, expected: bytes | None, *, ignore_blanks: bool = True,
                       ignore_case: bool = False, **options: Any) -> float:
    pair = _documents("compare_docx_files", result, expected)
    return float(pair is not None and _same_text(*pair, ignore_blanks=ignore_blanks, ignore_case=ignore_case))


def compare_line_spacing(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    pair = _documents("compare_line_spacing", result, expected)
    if pair is None or _texts(pair[0]) != _texts(pair[1]):
        return 0.0
    spacing = [[p.paragraph_format.line_spacing for p in d.paragraphs] for d in pair]
    return float(spacing[0] == spacing[1])


def _cells(document: Document) -> list[list[list[str]]]:
    return [[[cell.text for cell in row.cells] for row in table.rows] for table in document.tables]


def compare_docx_tables(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    pair = _documents("compare_docx_tables", result, expected)
    return float(pair is not None and _cells(pair[0]) == _cells(pair[1]))


def _text_runs(document: Document) -> Iterator[tuple[Paragraph, Run]]:
    for paragraph in document.paragraphs:
        for run in paragraph.runs:
            if run.text.strip():
                yield paragraph, run


def _style_font(style: Any) -> str | None:
    while style is not None:
        if style.font.name:
            return style.font.name
        style = style.base_style
    return None


def _default_font(document: Document) -> str | None:
    fonts = document.styles.element.find(f"{qn('w:docDefaults')}/{qn('w:rPrDefault')}/{qn('w:rPr')}/{qn('w:rFonts')}")
    return None if fonts is None else fonts.get(qn("w:ascii"))


def _font_in_effect(document: Document, paragraph: Paragraph, run: Run) -> str | None:
    return run.font.name or _style_font(run.style) or _style_font(paragraph.style) or _default_font(document)


def compare_font_names(result: bytes | None, expected: Any, **options: Any) -> float:
    font = rule_field(expected, "compare_font_names", "font_name")
    if result is None:
        return 0.0
    document = _open(result, "compare_font_names", "result")
    return float(all(_font_in_effect(document, p, r) == font for p, r in _text_runs(document)))


def _marked(document: Document, marked: Callable[[Run], bool]) -> list[str]:
    return [run.text for _, run in _text_runs(document) if marked(run)]


def compare_highlighted_text(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    pair = _documents("compare_highlighted_text", result, expected)
    if pair is None:
        return 0.0
    highlighted = ["".join(_marked(d, lambda run: run.font.highlight_color is not None)) for d in pair]
    return float(highlighted[0] == highlighted[1])


def compare_subscript_contains(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    pair = _documents("compare_subscript_contains", result, expected)
    if pair is None:
        return 0.0
    mine, gold = (_marked(d, lambda run: bool(run.font.subscript)) for d in pair)
    return float(bool(gold) and all(text in mine for text in gold))


def is_first_line_centered(result: bytes | None, expected: Any = None, **options: Any) -> float:
    if result is None:
        return 0.0
    paragraphs = _open(result, "is_first_line_centered", "result").paragraphs
    if not paragraphs:
        return 0.0
    first = paragraphs[0]
    alignment = first.paragraph_format.alignment
    if alignment is None and first.style is not None:
        alignment = first.style.paragraph_format.alignment
    return float(alignment == WD_ALIGN_PARAGRAPH.CENTER)


def _has_page_field(element: Any) -> bool:
    simple = (f.get(qn("w:instr"), "") for f in element.iter(qn("w:fldSimple")))
    complex_ = (i.text or "" for i in element.iter(qn("w:instrText")))
    return any(re.match(r"\s*PAGE\b", instruction) for instruction in (*simple, *complex_))


def has_page_numbers_in_footers(result: bytes | None, expected: Any = None, **options: Any) -> float:
    if result is None:
        return 0.0
    sections = _open(result, "has_page_numbers_in_footers", "result").sections
    return float(bool(sections) and all(_has_page_field(s.footer._element) for s in sections))


def _last_paragraph(document: Document) -> Paragraph | None:
    filled = [p for p in document.paragraphs if p.text.strip()]
    return filled[-1] if filled else None


def evaluate_strike_through_last_paragraph(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    pair = _documents("evaluate_strike_through_last_paragraph", result, expected)
    if pair is None:
        return 0.0
    mine, gold = (_last_paragraph(d) for d in pair)
    if mine is None or gold is None or mine.text != gold.text:
        return 0.0
    return float(all(run.font.strike for run in mine.runs if run.text.strip()))


def check_italic_font_size_14(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    pair = _documents("check_italic_font_size_14", result, expected)
    if pair is None or not _same_text(*pair):
        return 0.0
    italic = [run for _, run in _text_runs(pair[0]) if run.font.italic]
    return float(all(run.font.size == Pt(14) for run in italic))


_OOR = "{http://openoffice.org/2001/registry}"
_DEFAULT_FONT = "/org.openoffice.Office.Writer/DefaultFont"


def find_default_font(result: bytes | None, expected: Any, **options: Any) -> float:
    """Writer's default font lives in the user profile's registrymodifications.xcu
    as the `Standard` property of the DefaultFont item."""
    font = rule_field(expected, "find_default_font", "font_name")
    if result is None:
        return 0.0
    try:
        root = ElementTree.fromstring(result)
    except ElementTree.ParseError as exc:
        raise MetricFailed(f"find_default_font: the result is not registrymodifications.xcu XML ({exc})") from None
    standard = [value.text for item in root.iter("item") if item.get(f"{_OOR}path") == _DEFAULT_FONT
                for prop in item.iter("prop") if prop.get(f"{_OOR}name") == "Standard" for value in prop.iter("value")]
    return float(bool(standard) and standard[-1] == font)


DOCX_METRICS: dict[str, Callable[..., float]] = {
    "compare_docx_files": compare_docx_files,
    "compare_line_spacing": compare_line_spacing,
    "compare_docx_tables": compare_docx_tables,
    "compare_font_names": compare_font_names,
    "compare_highlighted_text": compare_highlighted_text,
    "compare_subscript_contains": compare_subscript_contains,
    "is_first_line_centered": is_first_line_centered,
    "has_page_numbers_in_footers": has_page_numbers_in_footers,
    "evaluate_strike_through_last_paragraph": evaluate_strike_through_last_paragraph,
    "check_italic_font_size_14": check_italic_font_size_14,
    "find_default_font": find_default_font,
}
