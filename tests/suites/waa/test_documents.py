"""The Writer metrics on .docx files written here with python-docx (and one
registrymodifications.xcu): each in the passing and the failing direction,
with WAA's verdicts on the edge cases (tests/suites/waa/test_verdicts.py has more)."""

from __future__ import annotations

import io

import docx
import pytest
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Pt

from bench.suites.waa.errors import ReferenceCrash
from bench.suites.waa.metrics import METRICS, MetricFailed


def saved(document) -> bytes:
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def text(*paragraphs: str, spacing: float | None = None) -> bytes:
    document = docx.Document()
    for paragraph in paragraphs:
        document.add_paragraph(paragraph).paragraph_format.line_spacing = spacing
    return saved(document)


def styled(**run_style) -> bytes:
    """One paragraph: "H", "2" with `run_style` set on it, "O"."""
    document = docx.Document()
    paragraph = document.add_paragraph("H")
    marked = paragraph.add_run("2")
    for name, value in run_style.items():
        setattr(marked.font, name, value)
    paragraph.add_run("O")
    return saved(document)


def score(func: str, result, expected=None, **options) -> float:
    return METRICS[func](result, expected, **options)


def test_compare_docx_files_blanks_and_case():
    assert score("compare_docx_files", text("One.  Two."), text("One. Two.")) == 1.0
    assert score("compare_docx_files", text("One.", "", "Two."), text("One.", "Two.")) == 1.0
    assert score("compare_docx_files", text("One.", "", "Two."), text("One.", "Two."), ignore_blanks=False) == 0.0
    assert score("compare_docx_files", text("One.", "", "Two."), text("One.", "", "Two."), ignore_blanks=False) == 1.0
    assert score("compare_docx_files", text("ONE."), text("one.")) == 0.0
    assert score("compare_docx_files", text("ONE."), text("one."), ignore_case=True) == 1.0
    assert score("compare_docx_files", text("One two"), text("One too"), content_only=True) == pytest.approx(6 / 7)


def test_line_spacing_per_paragraph():
    assert score("compare_line_spacing", text("a", "b", spacing=2.0), text("a", "b", spacing=2.0)) == 1.0
    assert score("compare_line_spacing", text("a", "b", spacing=1.0), text("a", "b", spacing=2.0)) == 0.0
    assert score("compare_line_spacing", text("a", "c", spacing=2.0), text("a", "b", spacing=2.0)) == 0.0


def test_tables_cell_by_cell():
    def table(*rows: tuple[str, ...]) -> bytes:
        document = docx.Document()
        grid = document.add_table(rows=len(rows), cols=len(rows[0]))
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                grid.cell(r, c).text = value
        return saved(document)

    assert score("compare_docx_tables", table(("a", "b"), ("1", "2")), table(("a", "b"), ("1", "2"))) == 1.0
    assert score("compare_docx_tables", table(("a", "b"), ("1", "3")), table(("a", "b"), ("1", "2"))) == 0.0
    assert score("compare_docx_tables", text("a,b"), table(("a", "b"),)) == 0.0


def test_font_names_count_only_each_runs_own_font_as_waa_does():
    rule = {"font_name": "Times New Roman"}
    document = docx.Document()
    document.styles["Normal"].font.name = "Times New Roman"
    document.add_paragraph("by style").add_run(" and by run").font.name = "Times New Roman"
    assert score("compare_font_names", saved(document), rule) == 0.0
    document.paragraphs[0].runs[0].font.name = "Times New Roman"
    assert score("compare_font_names", saved(document), rule) == 1.0
    assert score("compare_font_names", styled(name="Arial"), rule) == 0.0
    with pytest.raises(MetricFailed, match="compare_font_names: expected a rule with `font_name`"):
        score("compare_font_names", saved(document), {"font": "x"})


def test_highlight_subscript_and_strike_through():
    yellow = styled(highlight_color=7)
    assert score("compare_highlighted_text", yellow, yellow) == 1.0
    assert score("compare_highlighted_text", styled(), yellow) == 0.0
    assert score("compare_subscript_contains", styled(subscript=True), styled(subscript=True)) == 1.0
    assert score("compare_subscript_contains", styled(superscript=True), styled(subscript=True)) == 0.0
    struck = docx.Document()
    struck.add_paragraph("keep")
    struck.add_paragraph().add_run("drop this").font.strike = True
    assert score("evaluate_strike_through_last_paragraph", saved(struck), text("keep", "drop this")) == 1.0
    assert score("evaluate_strike_through_last_paragraph", text("keep", "drop this"), text("keep", "drop this")) == 0.0


def test_italic_runs_at_14_pt():
    assert score("check_italic_font_size_14", styled(italic=True, size=Pt(14)), text("H2O")) == 1.0
    assert score("check_italic_font_size_14", styled(italic=True, size=Pt(12)), text("H2O")) == 0.0
    assert score("check_italic_font_size_14", styled(italic=True, size=Pt(14)), text("H2O!")) == 0.0


def test_first_line_centred_and_page_numbers():
    document = docx.Document()
    document.add_paragraph("Title").alignment = WD_ALIGN_PARAGRAPH.CENTER
    document.add_paragraph("body")
    assert score("is_first_line_centered", saved(document)) == 1.0
    assert score("is_first_line_centered", text("Title", "body")) == 0.0
    assert score("has_page_numbers_in_footers", saved(document)) == 0.0
    field = OxmlElement("w:fldSimple")
    field.set(qn("w:instr"), " PAGE ")
    document.sections[0].footer.paragraphs[0]._p.append(field)
    assert score("has_page_numbers_in_footers", saved(document)) == 0.0  # WAA looks for a digit, not a field
    document.sections[0].footer.paragraphs[0].add_run("Page 1")
    assert score("has_page_numbers_in_footers", saved(document)) == 1.0


def test_writer_default_font_in_the_profile():
    xcu = ('<oor:items xmlns:oor="http://openoffice.org/2001/registry">'
           '<item oor:path="/org.openoffice.Office.Writer/DefaultFont"><prop oor:name="Standard" oor:op="fuse">'
           '<value>{}</value></prop></item></oor:items>')
    rule = {"font_name": "Times New Roman"}
    assert score("find_default_font", xcu.format("Times New Roman").encode(), rule) == 1.0
    assert score("find_default_font", xcu.format("Liberation Serif").encode(), rule) == 0.0
    assert score("find_default_font", b"<oor:items", rule) == 0.0


def test_a_missing_or_unreadable_file_scores_zero_as_in_waa():
    assert score("compare_docx_files", None, text("a")) == 0.0
    assert score("is_first_line_centered", None) == 0.0
    assert score("compare_docx_files", b"plain text", text("a")) == 0.0
    assert score("compare_line_spacing", text("a"), b"PK\x03\x04 truncated") == 0.0
    with pytest.raises(ReferenceCrash, match="gold file could not be read"):  # WAA calls it without one
        score("compare_docx_tables", text("a"), None)
