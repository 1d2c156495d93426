"""Writer checks on the .docx files the libreoffice_writer tasks save.

Read with python-docx, each with the reference semantics of WAA's own
function for it (docs.py), edge cases included. Each takes the result
file's bytes (None when the agent did not save it: score 0) and, where the
task has one, the gold file's bytes or a rule. A file python-docx cannot
open scores 0, as in WAA.

- `compare_docx_files`: the paragraphs' text, judged as paragraph_texts.py
  says (a soft line break inside a paragraph is not a paragraph break); two
  OpenDocument text files are read as .odt files (odt.py);
- `compare_line_spacing`: `compare_docx_files`, then as many paragraphs
  with equal line spacing each;
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
- `evaluate_strike_through_last_paragraph`: `compare_docx_files`, then
  every run of the last paragraph (empty or not) is struck through;
- `check_italic_font_size_14`: `compare_docx_files`, then every italic run
  (whitespace ones too) is set in 14 pt;
- `check_tabstops`: as many non-empty paragraphs; with
  `word_number_split_by_tabstop`, each of the result's has that many words
  before its tab number `index`; then the paragraphs' own tab stops (but
  cleared ones and a left one at 0) pair up by alignment, and the score is 1
  less the mean, over paragraphs, of their summed position differences over
  the gold page's text width, so a near miss scores just under 1;
- `find_default_font`: Writer's default font (in the profile's
  registrymodifications.xcu, not a .docx) is `rules.font_name`; a file that
  is not XML holds no font.

Where WAA's function raises (a highlighted-text file that is not a zip, a
document without paragraphs, a paragraph without the tab piece asked for),
`ReferenceCrash` names the optional fix; so does a check of two files whose
gold file could not be read (`errors.gold_required`).
"""

from __future__ import annotations

import io
import re
import zipfile
from xml.etree import ElementTree
from typing import Any, Callable

import docx
from docx.document import Document
from docx.enum.text import WD_ALIGN_PARAGRAPH, WD_TAB_ALIGNMENT

from bench.suites.waa.errors import ReferenceCrash, gold_required, rule_field
from bench.suites.waa.odt import is_odt, open_odt, paragraph_texts
from bench.formats.paragraph_texts import same_texts, text_score

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _open(data: bytes | None) -> Document | None:
    """The document, or None when there is none or python-docx cannot read it (WAA scores both 0)."""
    if data is None:
        return None
    try:
        return docx.Document(io.BytesIO(data))
    except Exception:  # noqa: BLE001 - python-docx raises many kinds on a broken file; WAA catches them all
        return None


def _both(result: bytes | None, expected: bytes | None) -> tuple[Document, Document] | None:
    mine, gold = _open(result), _open(expected)
    return None if mine is None or gold is None else (mine, gold)


def _texts(document: Document) -> list[str]:
    return [p.text for p in document.paragraphs]


def _paragraphs_of_both(result: bytes | None, expected: bytes | None) -> tuple[list[str], list[str]] | None:
    """Both files' paragraph texts, as .docx files or, when both are OpenDocument text, as .odt files
    (WAA goes by the files' names, which the tasks give the suffix of their format)."""
    pair = _both(result, expected)
    if pair is not None:
        return _texts(pair[0]), _texts(pair[1])
    if result is None or expected is None or not (is_odt(result) and is_odt(expected)):
        return None
    documents = open_odt(result), open_odt(expected)
    if None in documents:
        return None
    return paragraph_texts(documents[0]), paragraph_texts(documents[1])


def compare_docx_files(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    texts = _paragraphs_of_both(result, expected)
    if texts is None:
        return 0.0
    wanted = ("ignore_blanks", "ignore_case", "ignore_order", "content_only")
    return text_score(*texts, **{k: bool(v) for k, v in options.items() if k in wanted})


def _after_same_text(result: bytes | None, expected: bytes | None) -> tuple[Document, Document] | None:
    """Both documents when their text agrees as compare_docx_files' defaults judge it, else None."""
    pair = _both(result, expected)
    return pair if pair is not None and same_texts(_texts(pair[0]), _texts(pair[1])) else None


def compare_line_spacing(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    pair = _after_same_text(result, expected)
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
    font = rule_field(expected, "compare_font_names", "font_name")
    document = _open(result)
    return float(document is not None and all(run.font.name == font for p in document.paragraphs for run in p.runs))


def _highlighted(data: bytes, which: str) -> set[str | None]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            root = ElementTree.fromstring(archive.read("word/document.xml"))
    except (zipfile.BadZipFile, KeyError, ElementTree.ParseError) as exc:
        raise ReferenceCrash(f"compare_highlighted_text: the {which} file is not a .docx ({exc})",
                             fix="missing-file", fixed=0.0) from None
    found = set()
    for run in root.iter(f"{_W}r"):
        mark = run.find(f".//{_W}highlight")
        if mark is not None and mark.get(f"{_W}val") != "none":
            text = run.find(f".//{_W}t")
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


def _first_paragraph(document: Document, func: str) -> Any:
    if not document.paragraphs:
        raise ReferenceCrash(f"{func}: the document has no paragraph", fix="missing-file", fixed=0.0)
    return document.paragraphs[0]


def is_first_line_centered(result: bytes | None, expected: Any = None, **options: Any) -> float:
    document = _open(result)
    if document is None:
        return 0.0
    first = _first_paragraph(document, "is_first_line_centered")
    return float(first.paragraph_format.alignment == WD_ALIGN_PARAGRAPH.CENTER)


def has_page_numbers_in_footers(result: bytes | None, expected: Any = None, **options: Any) -> float:
    document = _open(result)
    if document is None:
        return 0.0
    for section in document.sections:
        paragraphs = section.footer.paragraphs
        if not any(c.isdigit() for c in (paragraphs[0].text if paragraphs else "")):
            return 0.0
    return 1.0


def evaluate_strike_through_last_paragraph(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    pair = _after_same_text(result, expected)
    if pair is None:
        return 0.0
    if not pair[0].paragraphs:
        raise ReferenceCrash("evaluate_strike_through_last_paragraph: the document has no paragraph",
                             fix="missing-file", fixed=0.0)
    return float(all(run.font.strike for run in pair[0].paragraphs[-1].runs))


def check_italic_font_size_14(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    pair = _after_same_text(result, expected)
    if pair is None:
        return 0.0
    italic = [run for p in pair[0].paragraphs for run in p.runs if run.italic]
    return float(all(run.font.size is not None and run.font.size.pt == 14 for run in italic))


_OOR = "{http://openoffice.org/2001/registry}"
_DEFAULT_FONT = "/org.openoffice.Office.Writer/DefaultFont"


def find_default_font(result: bytes | None, expected: Any, **options: Any) -> float:
    """Writer's default font lives in the user profile's registrymodifications.xcu
    as the `Standard` property of the DefaultFont item; the last one read counts."""
    font = rule_field(expected, "find_default_font", "font_name")
    if result is None:
        return 0.0
    try:
        root = ElementTree.fromstring(result)
    except ElementTree.ParseError:
        return float(font is None)
    standard = [value.text for item in root.iter("item") if item.get(f"{_OOR}path") == _DEFAULT_FONT
                for prop in item.iter("prop") if prop.get(f"{_OOR}name") == "Standard" for value in prop.findall("value")]
    return float((standard[-1] if standard else None) == font)


def _tab_stops(paragraph: Any) -> list[Any]:
    """The paragraph's own tab stops but cleared ones and a left one at 0, which WAA ignores."""
    return [stop for stop in paragraph.paragraph_format.tab_stops
            if not (stop.alignment == WD_TAB_ALIGNMENT.CLEAR
                    or (stop.alignment == WD_TAB_ALIGNMENT.LEFT and stop.position == 0))]


def _words_before_tab(paragraph: Any, index: int) -> int | None:
    pieces = paragraph.text.split("\t")
    return len([w for w in re.split(r"\s", pieces[index]) if w.strip()]) if index < len(pieces) else None


def check_tabstops(result: bytes | None, expected: bytes | None, *, word_number_split_by_tabstop: int | None = None,
                   index: int = 0, **options: Any) -> float:
    pair = _both(result, expected)
    if pair is None:
        return 0.0
    mine = [p for p in pair[0].paragraphs if p.text.strip()]
    gold = [p for p in pair[1].paragraphs if p.text.strip()]
    if len(mine) != len(gold):
        return 0.0
    if word_number_split_by_tabstop is not None:
        for paragraph in mine:
            words = _words_before_tab(paragraph, index)
            if words is None:
                raise ReferenceCrash(f"check_tabstops: a paragraph has no tab-separated piece {index}",
                                     fix="missing-file", fixed=0.0)
            if words != word_number_split_by_tabstop:
                return 0.0
    section = pair[1].sections[0] if pair[1].sections else None
    if section is None or None in (section.page_width, section.left_margin, section.right_margin) or not mine:
        raise ReferenceCrash("check_tabstops: the gold document has no text or no page width and margins to "
                             "measure tab stops against", fix="missing-file", fixed=0.0)
    width = section.page_width - section.left_margin - section.right_margin
    lost = 0.0
    for first, second in zip(mine, gold):
        stops, wanted = _tab_stops(first), _tab_stops(second)
        if len(stops) != len(wanted) or any(a.alignment != b.alignment for a, b in zip(stops, wanted)):
            return 0.0
        lost += sum(abs(a.position - b.position) for a, b in zip(stops, wanted)) / width
    return 1 - lost / len(mine)


DOCX_METRICS: dict[str, Callable[..., float]] = {
    **{metric.__name__: gold_required(metric) for metric in (
        compare_docx_files, compare_line_spacing, compare_docx_tables, compare_highlighted_text,
        compare_subscript_contains, evaluate_strike_through_last_paragraph, check_italic_font_size_14,
        check_tabstops)},
    "compare_font_names": compare_font_names,
    "is_first_line_centered": is_first_line_centered,
    "has_page_numbers_in_footers": has_page_numbers_in_footers,
    "find_default_font": find_default_font,
}
