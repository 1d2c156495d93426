"""The Writer checks WAA's and OSWorld's docs.py define alike, on the .docx files the tasks save.

Read with python-docx, each with the references' semantics, edge cases
included. Each takes the result file's bytes (None when the agent did not
save it: score 0) and, where the task has one, the gold file's bytes (None:
score 0) or a rule. A file python-docx cannot open scores 0, as in both.

- `compare_line_spacing`: the texts agree as compare_docx_files' defaults
  judge them (paragraph_texts.same_texts), then as many paragraphs with
  equal line spacing each;
- `compare_docx_tables`: as many tables, of the same shape, cell texts equal
  once stripped;
- `compare_font_names`: every run of the body's paragraphs names
  `rules.font_name` itself (a font set only by a style does not count);
- `compare_highlighted_text`: the set of the first text of each highlighted
  run (highlight other than "none"), read from word/document.xml, is the gold's;
- `compare_subscript_contains`: some run is subscript in both documents at
  the same paragraph and run position;
- `is_first_line_centered`: the first paragraph is centred by its own
  formatting (a centred style does not count);
- `has_page_numbers_in_footers`: every section's footer's first paragraph
  holds a digit;
- `evaluate_strike_through_last_paragraph`: the texts agree, then every run
  of the last paragraph (empty or not) is struck through;
- `check_italic_font_size_14`: the texts agree, then every italic run
  (whitespace ones too) is set in 14 pt.

Where the references raise (a highlighted-text file that is not a .docx, a
document without paragraphs, a rule without its key) these raise
`ReferenceRaises` (`RuleLacks`), which each suite turns into its own outcome.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any, Callable
from xml.etree import ElementTree

import docx
from docx.document import Document
from docx.enum.text import WD_ALIGN_PARAGRAPH

from bench.formats.paragraph_texts import same_texts
from bench.formats.reference_raises import ReferenceRaises, rule_value

__all__ = ["DOCX_CHECKS", "W", "open_docx", "paragraph_texts", "same_text_documents"]

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def open_docx(data: bytes | None) -> Document | None:
    """The document, or None when there is none or python-docx cannot read it (both references score 0)."""
    if data is None:
        return None
    try:
        return docx.Document(io.BytesIO(data))
    except Exception:  # noqa: BLE001 - python-docx raises many kinds on a broken file; the references catch them all
        return None


def _both(result: bytes | None, expected: bytes | None) -> tuple[Document, Document] | None:
    mine, gold = open_docx(result), open_docx(expected)
    return None if mine is None or gold is None else (mine, gold)


def paragraph_texts(document: Document) -> list[str]:
    """The body's paragraphs' texts as python-docx reads them (a soft line break is not a paragraph break)."""
    return [p.text for p in document.paragraphs]


def same_text_documents(result: bytes | None, expected: bytes | None) -> tuple[Document, Document] | None:
    """Both documents when their text agrees as compare_docx_files' defaults judge it, else None."""
    pair = _both(result, expected)
    return pair if pair is not None and same_texts(paragraph_texts(pair[0]), paragraph_texts(pair[1])) else None


def compare_line_spacing(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    pair = same_text_documents(result, expected)
    if pair is None or len(pair[0].paragraphs) != len(pair[1].paragraphs):
        return 0.0
    return float(all(a.paragraph_format.line_spacing == b.paragraph_format.line_spacing
                     for a, b in zip(pair[0].paragraphs, pair[1].paragraphs)))


def compare_docx_tables(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    pair = _both(result, expected)
    if pair is None or len(pair[0].tables) != len(pair[1].tables):
        return 0.0
    for mine, gold in zip(pair[0].tables, pair[1].tables):
        if len(mine.rows) != len(gold.rows) or len(mine.columns) != len(gold.columns):
            return 0.0
        for i in range(len(mine.rows)):
            for j in range(len(mine.columns)):
                if mine.cell(i, j).text.strip() != gold.cell(i, j).text.strip():
                    return 0.0
    return 1.0


def compare_font_names(result: bytes | None, expected: Any, **options: Any) -> float:
    document = open_docx(result)
    if document is None:
        return 0.0
    font = rule_value(expected, "font_name", "compare_font_names")
    return float(all(run.font.name == font for p in document.paragraphs for run in p.runs))


def _highlighted(data: bytes, which: str) -> set[str | None]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            root = ElementTree.fromstring(archive.read("word/document.xml"))
    except (zipfile.BadZipFile, KeyError, ElementTree.ParseError) as exc:
        raise ReferenceRaises(f"compare_highlighted_text: the {which} file is not a .docx ({exc})") from None
    found = set()
    for run in root.iter(f"{W}r"):
        mark = run.find(f".//{W}highlight")
        if mark is not None and mark.get(f"{W}val") != "none":
            text = run.find(f".//{W}t")
            if text is not None:
                found.add(text.text)
    return found


def compare_highlighted_text(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    if result is None or expected is None:
        return 0.0
    return float(_highlighted(result, "result") == _highlighted(expected, "expected"))


def compare_subscript_contains(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    pair = _both(result, expected)
    if pair is None:
        return 0.0
    return float(any(a.font.subscript and b.font.subscript
                     for p, q in zip(pair[0].paragraphs, pair[1].paragraphs) for a, b in zip(p.runs, q.runs)))


def _paragraph(document: Document, index: int, metric: str) -> Any:
    if not document.paragraphs:
        raise ReferenceRaises(f"{metric}: the document has no paragraph")
    return document.paragraphs[index]


def is_first_line_centered(result: bytes | None, expected: Any = None, **options: Any) -> float:
    document = open_docx(result)
    if document is None:
        return 0.0
    first = _paragraph(document, 0, "is_first_line_centered")
    return float(first.paragraph_format.alignment == WD_ALIGN_PARAGRAPH.CENTER)


def has_page_numbers_in_footers(result: bytes | None, expected: Any = None, **options: Any) -> float:
    document = open_docx(result)
    if document is None:
        return 0.0
    for section in document.sections:
        paragraphs = section.footer.paragraphs
        if not any(c.isdigit() for c in (paragraphs[0].text if paragraphs else "")):
            return 0.0
    return 1.0


def evaluate_strike_through_last_paragraph(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    pair = same_text_documents(result, expected)
    if pair is None:
        return 0.0
    last = _paragraph(pair[0], -1, "evaluate_strike_through_last_paragraph")
    return float(all(run.font.strike for run in last.runs))


def check_italic_font_size_14(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    pair = same_text_documents(result, expected)
    if pair is None:
        return 0.0
    italic = [run for p in pair[0].paragraphs for run in p.runs if run.italic]
    return float(all(run.font.size is not None and run.font.size.pt == 14 for run in italic))


DOCX_CHECKS: dict[str, Callable[..., float]] = {metric.__name__: metric for metric in (
    compare_line_spacing, compare_docx_tables, compare_font_names, compare_highlighted_text,
    compare_subscript_contains, is_first_line_centered, has_page_numbers_in_footers,
    evaluate_strike_through_last_paragraph, check_italic_font_size_14)}
"""The checks by their names in both references."""
