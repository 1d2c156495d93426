"""compare_zip_files, check_tabstops and check_highlighted_words on archives and documents
built here, each sitting on a place where WAA's own function (vscode.py, docs.py) decides
differently from a plainer reading: member order, tab stops WAA ignores, a near miss of a
tab position, highlight colours, text nested deeper than WAA reads."""

from __future__ import annotations

import io
import zipfile

import docx
import pytest
from docx.enum.text import WD_TAB_ALIGNMENT
from docx.shared import Inches
from odf.opendocument import OpenDocumentText
from odf.style import Map, Style, TextProperties
from odf.text import A, P, Span

from bench.suites.waa.errors import MetricFailed, ReferenceCrash
from bench.suites.waa.metrics import METRICS


def archive(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        for name, data in members.items():
            out.writestr(name, data)
    return buffer.getvalue()


def test_zip_archives_need_the_same_members_with_the_same_bytes():
    compare = METRICS["compare_zip_files"]
    gold = archive({"SamplePPT.pptx": b"pptx", "SampleText.txt": b"text"})
    assert compare(archive({"SampleText.txt": b"text", "SamplePPT.pptx": b"pptx"}), gold) == 1.0  # any order
    assert compare(archive({"SamplePPT.pptx": b"pptx", "SampleText.txt": b"text\r\n"}), gold) == 0.0
    assert compare(archive({"SamplePPT.pptx": b"pptx"}), gold) == 0.0
    assert compare(None, gold) == 0.0
    with pytest.raises(ReferenceCrash, match="unreadable-archive"):
        compare(b"7z\xbc\xaf\x27\x1c not a zip", gold)
    with pytest.raises(ReferenceCrash, match="'a.pdf' does not read as a PDF"):  # PyPDF2 raises in WAA
        compare(archive({"a.pdf": b"%PDF"}), archive({"a.pdf": b"%PDF-1.7"}))


def tabbed(*paragraphs: tuple[str, list[tuple[float, WD_TAB_ALIGNMENT]]], margins: bool = True) -> bytes:
    document = docx.Document()
    for text, stops in paragraphs:
        paragraph = document.add_paragraph(text)
        for position, alignment in stops:
            paragraph.paragraph_format.tab_stops.add_tab_stop(Inches(position), alignment)
    if not margins:
        section = document.sections[0]._sectPr
        section.remove(section.find(docx.oxml.ns.qn("w:pgMar")))
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


RIGHT, LEFT = WD_TAB_ALIGNMENT.RIGHT, WD_TAB_ALIGNMENT.LEFT
LINES = ["Purchase the eBook\tfrom the library website", "Pay at the\tcounter before Friday"]


def test_tabstops_score_the_mean_position_error_over_the_text_width():
    check = METRICS["check_tabstops"]
    options = {"word_number_split_by_tabstop": 3, "index": 0}
    gold = tabbed(*[(line, [(6.0, RIGHT)]) for line in LINES])
    assert check(tabbed(*[(line, [(6.0, RIGHT), (0, LEFT)]) for line in LINES]), gold, **options) == 1.0
    # one stop half an inch off, in one of two paragraphs, on a 6-inch text width (8.5 - 1.25 - 1.25)
    near = tabbed((LINES[0], [(5.5, RIGHT)]), (LINES[1], [(6.0, RIGHT)]))
    assert check(near, gold, **options) == pytest.approx(1 - 0.5 / 6 / 2)
    assert check(tabbed(*[(line, [(6.0, LEFT)]) for line in LINES]), gold, **options) == 0.0
    four_words = tabbed(("Pay at the counter\tbefore Friday", [(6.0, RIGHT)]), (LINES[0], [(6.0, RIGHT)]))
    assert check(four_words, gold, **options) == 0.0
    assert check(four_words, gold) == 1.0  # without the option words are not counted
    assert check(tabbed((LINES[0], [(6.0, RIGHT)])), gold, **options) == 0.0
    assert check(None, gold) == 0.0
    with pytest.raises(ReferenceCrash, match="missing-file"):  # WAA divides by the number of paragraphs
        check(tabbed(("", [])), tabbed(("  ", [])))
    with pytest.raises(ReferenceCrash, match="missing-file"):  # and subtracts margins the gold does not set
        check(gold, tabbed(*[(line, [(6.0, RIGHT)]) for line in LINES], margins=False))


def odt(*parts, highlight: str | None = "#ffff00") -> bytes:
    """An .odt whose paragraph holds `parts`: text, or ("span", text) in the highlighted automatic style."""
    document = OpenDocumentText()
    style = Style(name="T1", family="text")
    style.addElement(TextProperties(backgroundcolor=highlight) if highlight else TextProperties(fontweight="bold"))
    document.automaticstyles.addElement(style)
    paragraph = P()
    for part in parts:
        if isinstance(part, tuple):
            span = Span(stylename=style, text=part[1])
            paragraph.addElement(span)
        else:
            paragraph.addText(part)
    document.text.addElement(paragraph)
    buffer = io.BytesIO()
    document.write(buffer)
    return buffer.getvalue()


def test_highlighted_words_need_the_same_text_and_no_yellow_span():
    check = METRICS["check_highlighted_words"]
    gold = odt("Hello ", ("span", "caller"), ", thanks.", highlight=None)
    assert check(odt("Hello ", ("span", "caller"), ", thanks."), gold) == 0.0
    assert check(odt("Hello ", ("span", "caller"), ", thanks.", highlight=None), gold) == 1.0
    assert check(odt("Hello ", ("span", "caller"), ", thanks.", highlight="#00ff00"), gold) == 1.0  # not yellow
    assert check(odt("Hello ", ("span", "callers"), ", thanks.", highlight=None), gold) == 0.0
    assert check(odt("Hello caller, thanks."), gold) == 1.0  # the same text in one run, no span
    linked = OpenDocumentText()
    paragraph = P(text="Hello ")
    paragraph.addElement(A(href="https://example.com", text="caller"))  # WAA reads no text inside a link
    paragraph.addText(", thanks.")
    linked.text.addElement(paragraph)
    buffer = io.BytesIO()
    linked.write(buffer)
    assert check(buffer.getvalue(), odt("Hello , thanks.", highlight=None)) == 1.0
    assert check(b"not an odt", gold) == 0.0
    assert check(None, gold) == 0.0
    mapped = OpenDocumentText()
    style = Style(name="T1", family="text")
    style.addElement(Map(condition="cell-content()>0", applystylename="T2"))  # a child with no background colour
    mapped.automaticstyles.addElement(style)
    paragraph = P()
    paragraph.addElement(Span(stylename=style, text="caller"))
    mapped.text.addElement(paragraph)
    buffer = io.BytesIO()
    mapped.write(buffer)
    with pytest.raises(ReferenceCrash, match="missing-file"):  # odfpy raises asking it for one, and so does WAA
        check(buffer.getvalue(), buffer.getvalue())
