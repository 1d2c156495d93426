"""troupe's Writer checks beyond compare_docx_files agree with OSWorld's own (metrics/docs.py, imported from
../shared/osworld/reference for tests only) on .docx, .odt and .xcu files built to sit on each function's
edges: a missing or unreadable file on either side, documents without paragraphs or tables, differing
counts (paragraphs, tables, rows, tab stops, images, references, page breaks), each option a task uses and
its default, rules without their key, and the inputs OSWorld's function raises on. Prints the agreement
per function."""

from __future__ import annotations

import json
from typing import Any

import pytest
from docx.enum.text import WD_ALIGN_PARAGRAPH, WD_BREAK, WD_COLOR_INDEX, WD_TAB_ALIGNMENT
from docx.shared import Pt, RGBColor

from bench.suites.osworld.metrics import METRICS
from tests.osworld_reference import FILE, REFERENCE, Case, Named, assert_agrees, docs
from tests.writer_files import (GREETING, REFERENCES, TEXT, TRAIN_RECORDS, breaks, coloured, document, first_aligned,
                                footer, highlighted_variants, mapped_style_odt, odt, pictures, png, replaced, runs,
                                spacing, table, tabbed, xcu)

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

NOT_A_DOCUMENT = b"PK\x03\x04 not a document"


def pairs(gold: bytes, results: dict[str, bytes | None], **options: Any) -> list[Case]:
    """A case per result against `gold`, then the gold missing and unreadable."""
    cases = [Case(None, FILE, gold, **options) if data is None else Case(FILE, data, FILE, gold, **options)
             for data in results.values()]
    return cases + [Case(FILE, gold, None, **options), Case(FILE, gold, FILE, NOT_A_DOCUMENT, **options)]


def singles(files: list[bytes | None], *rule: Any) -> list[Case]:
    return [Case(None, *rule) if data is None else Case(FILE, data, *rule) for data in files]


def line_spacing() -> list[Case]:
    gold = document(TEXT, spacing(1.5, 1.5, 1.5))
    return pairs(gold, {"same": document(TEXT, spacing(1.5, 1.5, 1.5)),
                        "one-differs": document(TEXT, spacing(1.5, 2.0, 1.5)), "unset": document(TEXT),
                        "points": document(TEXT, spacing(Pt(18), Pt(18), Pt(18))),
                        "other-text": document(TEXT[:2], spacing(1.5, 1.5)),
                        "extra-empty-paragraph": document(TEXT + [""], spacing(1.5, 1.5, 1.5)),
                        "missing": None, "not-docx": NOT_A_DOCUMENT}) + [
        Case(FILE, document([]), FILE, document([]))]


def tables() -> list[Case]:
    rows = [["Grapheme", "Sound"], ["ph", "/f/"]]
    gold = document(TEXT, table(rows))
    return pairs(gold, {
        "same": document(TEXT, table(rows)), "padded": document(TEXT, table([[c + " " for c in r] for r in rows])),
        "other-text-around": document(TEXT[:1], table(rows)),
        "other-cell": document(TEXT, table([rows[0], ["ph", "/v/"]])),
        "extra-row": document(TEXT, table(rows + [["gh", "/f/"]])),
        "extra-column": document(TEXT, table([r + ["x"] for r in rows])), "no-table": document(TEXT),
        "two-tables": document(TEXT, lambda d: (table(rows)(d), table(rows)(d))),
        "merged": document(TEXT, lambda d: (table(rows)(d), d.tables[0].cell(0, 0).merge(d.tables[0].cell(0, 1)))),
        "missing": None, "not-docx": NOT_A_DOCUMENT}) + [Case(FILE, document(TEXT), FILE, document([]))]


def font_names() -> list[Case]:
    rule = {"font_name": "Times New Roman"}
    files = [runs(("Dublin ", {"name": "Times New Roman"}), ("Zoo", {"name": "Times New Roman"})),
             runs(("Dublin ", {"name": "Times New Roman"}), ("Zoo", {"name": "Arial"})),
             runs(("Dublin ", {"name": "Times New Roman"}), ("Zoo", {})),
             document(TEXT, lambda d: setattr(d.styles["Normal"].font, "name", "Times New Roman")),
             document([]), document([""]), None, NOT_A_DOCUMENT, b""]
    sample = runs(("Dublin", {"name": "Times New Roman"}))
    return singles(files, rule) + singles([sample, None, NOT_A_DOCUMENT], {"font": "x"}) + singles([sample], None)


def _highlight(*parts: tuple[str, Any]) -> bytes:
    return runs(*((text, {"highlight_color": colour}) for text, colour in parts))


def highlighted_text() -> list[Case]:
    gold = _highlight(("Abstract", WD_COLOR_INDEX.YELLOW), (" text", None))
    without_body = replaced(gold, "word/document.xml", b"<not xml")
    return pairs(gold, {
        "same": _highlight(("Abstract", WD_COLOR_INDEX.YELLOW), (" text", None)),
        "green": _highlight(("Abstract", WD_COLOR_INDEX.BRIGHT_GREEN), (" text", None)),
        "none": _highlight(("Abstract", None), (" text", None)),
        "split-run": _highlight(("Abs", WD_COLOR_INDEX.YELLOW), ("tract", WD_COLOR_INDEX.YELLOW), (" text", None)),
        "two": _highlight(("Abstract", WD_COLOR_INDEX.YELLOW), (" text", WD_COLOR_INDEX.YELLOW)),
        "not-xml-body": without_body, "not-zip": b"junk", "missing": None})


def subscripts() -> list[Case]:
    gold = runs(("H", {}), ("2", {"subscript": True}), ("O", {}))
    return pairs(gold, {
        "same": runs(("H", {}), ("2", {"subscript": True}), ("O", {})),
        "superscript": runs(("H", {}), ("2", {"superscript": True}), ("O", {})),
        "one-run": runs(("H2O", {"subscript": True})),
        "other-position": runs(("H", {}), ("O", {}), ("2", {"subscript": True})),
        "other-paragraph": runs(("H", {}), ("2", {"subscript": True}), ("O", {}), before=["Water"]),
        "none": document(["H2O"]), "empty": document([]), "missing": None, "not-docx": NOT_A_DOCUMENT})


def first_line_centered() -> list[Case]:
    return singles([first_aligned(WD_ALIGN_PARAGRAPH.CENTER), first_aligned(WD_ALIGN_PARAGRAPH.CENTER, style=True),
                    first_aligned(WD_ALIGN_PARAGRAPH.RIGHT), first_aligned(WD_ALIGN_PARAGRAPH.JUSTIFY),
                    document(TEXT, lambda d: setattr(d.paragraphs[1].paragraph_format, "alignment",
                                                     WD_ALIGN_PARAGRAPH.CENTER)),
                    document(TEXT), document([]), None, NOT_A_DOCUMENT])


def page_numbers() -> list[Case]:
    return singles([footer("Page 1"), footer("Page"), footer(None), footer("1", None), footer("1", "two"),
                    footer("1", "2"), footer(""), document([]), None, NOT_A_DOCUMENT])


def _last_formatted(font: dict[str, Any], other: dict[str, Any]) -> dict[str, bytes | None]:
    before = TEXT[:2]
    return {"all": runs(("Week 2: methods ", font), ("and sources.", font), before=before),
            "one-not": runs(("Week 2: methods ", font), ("and sources.", other), before=before),
            "plain": document(TEXT), "other-text": runs(("Week 3", font), before=before),
            "empty-last": runs(("Week 2: methods and sources.", font), before=before, after=[""]),
            "missing": None, "not-docx": NOT_A_DOCUMENT}


def strike_through() -> list[Case]:
    return (pairs(document(TEXT), _last_formatted({"strike": True}, {"strike": False}))
            + [Case(FILE, document([]), FILE, document([])), Case(FILE, document([""]), FILE, document([]))])


def italic_14() -> list[Case]:
    before = TEXT[:2]
    return pairs(document(TEXT), {
        "italic-14": runs(("Week 2: ", {}), ("methods and sources.", {"italic": True, "size": Pt(14)}), before=before),
        "italic-12": runs(("Week 2: ", {}), ("methods and sources.", {"italic": True, "size": Pt(12)}), before=before),
        "italic-unsized": runs(("Week 2: ", {}), ("methods and sources.", {"italic": True}), before=before),
        "bold-12": runs(("Week 2: ", {}), ("methods and sources.", {"bold": True, "size": Pt(12)}), before=before),
        "no-italic": document(TEXT), "other-text": document(TEXT[:2]), "missing": None})


def default_font() -> list[Case]:
    rule = {"font_name": "Times New Roman"}
    twice = xcu("Liberation Serif").replace(b"</oor:items>", xcu("Times New Roman").split(b"xmlns:xs=")[1]
                                            .split(b">", 1)[1])
    root_item = (b'<item xmlns:oor="http://openoffice.org/2001/registry" '
                 b'oor:path="/org.openoffice.Office.Writer/DefaultFont"><prop oor:name="Standard">'
                 b"<value>Times New Roman</value></prop></item>")
    files = [xcu("Times New Roman"), xcu("Liberation Serif"), xcu(None), twice, root_item, b"\x00\x01", b"", None]
    return (singles(files, rule) + singles([b"not xml", xcu(None), None], {"font_name": None})
            + singles([xcu("Times New Roman"), None], {"font": "x"}))


def tab_stops() -> list[Case]:
    right, left, center = WD_TAB_ALIGNMENT.RIGHT, WD_TAB_ALIGNMENT.LEFT, WD_TAB_ALIGNMENT.CENTER
    lines = ["Ebook purchasing info\t2021", "Contact the library\tJanuary"]
    gold = tabbed([(line, [(6.0, right)]) for line in lines])
    files = {
        "same": tabbed([(line, [(6.0, right)]) for line in lines]),
        "near": tabbed([(lines[0], [(5.5, right)]), (lines[1], [(6.0, right)])]),
        "left": tabbed([(line, [(6.0, left)]) for line in lines]),
        "center": tabbed([(line, [(6.0, center)]) for line in lines]),
        "extra-left-zero": tabbed([(line, [(6.0, right), (0, left)]) for line in lines]),
        "two-stops": tabbed([(line, [(3.0, left), (6.0, right)]) for line in lines]),
        "four-words": tabbed([("Pay at the counter\t2021", [(6.0, right)]), (lines[1], [(6.0, right)])]),
        "no-tab": tabbed([("Ebook purchasing info 2021", [(6.0, right)]), (lines[1], [(6.0, right)])]),
        "one-paragraph": tabbed([(lines[0], [(6.0, right)])]),
        "blank-between": tabbed([(lines[0], [(6.0, right)]), ("  ", []), (lines[1], [(6.0, right)])]),
        "missing": None, "not-docx": NOT_A_DOCUMENT,
    }
    others = {name: files[name] for name in ("same", "near", "four-words", "no-tab")}
    options = [{"word_number_split_by_tabstop": 1, "index": 1}, {"word_number_split_by_tabstop": 3}]
    return (pairs(gold, files, word_number_split_by_tabstop=3, index=0) + pairs(gold, files)
            + [case for option in options for case in pairs(gold, others, **option)]
            + [Case(FILE, document([]), FILE, document([])), Case(FILE, document([" "]), FILE, document([]))])


def highlighted_words() -> list[Case]:
    gold = odt([(line, None) for line in GREETING])
    return pairs(gold, {**highlighted_variants(), "docx": document(GREETING)}) + [
        Case(FILE, mapped_style_odt("Hello"), FILE, odt([("Hello", None)]))]


def page_breaks() -> list[Case]:
    page = WD_BREAK.PAGE
    five, four = breaks(*[page] * 5), breaks(*[page] * 4)
    files = [five, four, breaks(page), breaks(), breaks(WD_BREAK.COLUMN), breaks(None),
             breaks(page, in_table=True), document([]), None, NOT_A_DOCUMENT]
    rules = [{"page_break_count": 1}, {}, {"page_break_count": None}, {"page_break_count": "5"}, None,
             ["page_break_count"]]
    return singles(files, {"page_break_count": 5}) + [case for rule in rules for case in singles(files[:3], rule)]


def images() -> list[Case]:
    red, blue = png((255, 0, 0)), png((0, 0, 255))
    gold = pictures(red, blue)
    broken = replaced(pictures(red, blue), "word/media/image1.png", b"\x89PNG not really")
    return pairs(gold, {
        "same": pictures(red, blue), "swapped": pictures(blue, red), "one": pictures(red),
        "larger": pictures(red, png((0, 0, 255), (9, 8))), "same-picture-twice": pictures(red, red),
        "none": document(TEXT), "not-an-image": broken, "missing": None, "not-docx": NOT_A_DOCUMENT}) + [
        Case(FILE, document(TEXT), FILE, document([]))]


def coloured_words() -> list[Case]:
    red, blue = RGBColor(255, 0, 0), RGBColor(0, 0, 255)
    gold = document(TEXT)
    right = [("apple", red), ("Egg", red), ("bread", blue), (" owl", blue), ("", None)]
    results = {
        "right": coloured(right), "vowel-blue": coloured([("apple", blue)]), "other-red": coloured([("tree", red)]),
        "near-red": coloured([("apple", RGBColor(250, 5, 0))]), "far-red": coloured([("apple", RGBColor(200, 40, 40))]),
        "uncoloured": coloured([("apple", None)]), "other-text": coloured(right, TEXT[:2]), "no-table": gold,
        "missing": None, "not-docx": NOT_A_DOCUMENT}
    others = {name: results[name] for name in ("right", "near-red")}
    return (pairs(gold, results) + [case for options in ({"threshold": 0.5}, {"threshold": 40})
                                    for case in pairs(gold, others, **options)])


def ignore_new_lines() -> list[Case]:
    gold = document(TEXT)
    results = {"same": document(TEXT), "empty-paragraphs": document(["", TEXT[0], "", "", TEXT[1], TEXT[2], ""]),
               "space-paragraph": document([TEXT[0], " ", TEXT[1], TEXT[2]]),
               "joined": document([" ".join(TEXT)]),
               "split": document([TEXT[0], "Week 1:", "introduction to the field.", TEXT[2]]),
               "other": document(TEXT[:2]), "empty": document([]), "missing": None, "not-docx": NOT_A_DOCUMENT}
    return pairs(gold, results) + pairs(gold, results, ignore_blanks=False)


def references() -> list[Case]:
    body = ["Case study", "Some text."]
    gold = document(body + ["References"] + REFERENCES)
    results = {
        "same": document(body + ["References"] + REFERENCES),
        "blank-lines": document(body + ["References", ""] + [REFERENCES[0], " ", REFERENCES[1]]),
        "typo": document(body + ["References", REFERENCES[0].replace("Cocoa", "Cacao"), REFERENCES[1]]),
        "other": document(body + ["References", "Nobody (1900). Nothing.", "Anon. Untitled."]),
        "reordered": document(body + ["References"] + REFERENCES[::-1]),
        "one-reference": document(body + ["References", REFERENCES[0]]),
        "no-heading": document(body + REFERENCES), "heading-twice": document(["References"] + body + ["References"]
                                                                             + REFERENCES),
        "missing": None, "not-docx": NOT_A_DOCUMENT}
    others = {name: results[name] for name in ("same", "typo", "no-heading")}
    options = [{}, {"reference_base_result": 0.2}, {"reference_indicator": "Case study"}]
    return (pairs(gold, results, content_only=True, reference_base_result=0.6)
            + [case for option in options for case in pairs(gold, others, **option)]
            + [Case(FILE, document(body), FILE, document(body)),
               Case(FILE, document(body + ["References"]), FILE, document(body + ["References", " "]))])


def train_records() -> list[Case]:
    first, second, again, heading = TRAIN_RECORDS
    original = document(TRAIN_RECORDS)
    gold = document([first, second, heading])
    results = [gold, document([second, "", first, heading + "  "]), original, document([first, second]),
               document([first, heading]), document([first, "08:05:00, T999, S2, 2", heading]), document([]),
               NOT_A_DOCUMENT]
    gold_file, original_file = Named(gold, ".docx"), Named(original, ".docx")
    expected = [gold_file, original_file]
    return ([Case(FILE, data, expected) for data in results]
            + [Case(None, expected), Case(FILE, gold, [gold_file]), Case(FILE, gold, FILE, gold),
               Case(FILE, gold, [gold_file, None]), Case(FILE, gold, [None, original_file]),
               Case(FILE, gold, [gold_file, Named(NOT_A_DOCUMENT, ".docx")]),
               Case(FILE, gold, [gold_file, original_file, gold_file])])


CASES = {
    "compare_line_spacing": line_spacing, "compare_docx_tables": tables, "compare_font_names": font_names,
    "compare_highlighted_text": highlighted_text, "compare_subscript_contains": subscripts,
    "is_first_line_centered": first_line_centered, "has_page_numbers_in_footers": page_numbers,
    "evaluate_strike_through_last_paragraph": strike_through, "check_italic_font_size_14": italic_14,
    "find_default_font": default_font, "check_tabstops": tab_stops, "check_highlighted_words": highlighted_words,
    "contains_page_break": page_breaks, "compare_docx_images": images, "evaluate_colored_words_in_tables":
    coloured_words, "compare_docx_files_and_ignore_new_lines": ignore_new_lines, "compare_references": references,
    "compare_unique_train_records": train_records,
}
SUFFIX = {"check_highlighted_words": ".odt", "find_default_font": ".xcu"}


@pytest.fixture(scope="module")
def reference() -> Any:
    return docs()


@pytest.mark.parametrize("func", sorted(CASES))
def test_agrees_with_osworlds_own(func, reference, tmp_path, capsys):
    outcomes = assert_agrees(func, getattr(reference, func), METRICS[func], CASES[func](), tmp_path, capsys,
                             suffix=SUFFIX.get(func, ".docx"))
    assert {0.0, 1.0} <= outcomes, f"{func}: OSWorld's function gives only {outcomes} on these cases"


def test_a_missing_rule_or_a_document_osworld_raises_on_is_an_evaluation_error():
    from bench.suites.osworld.errors import MetricFailed

    with pytest.raises(MetricFailed, match="is_first_line_centered: the document has no paragraph .*OSWorld"):
        METRICS["is_first_line_centered"](document([]))
    with pytest.raises(MetricFailed, match="compare_font_names: expected a rule with `font_name`"):
        METRICS["compare_font_names"](document(TEXT), {"font": "x"})
    with pytest.raises(MetricFailed, match="has no RGB colour of its own"):
        METRICS["evaluate_colored_words_in_tables"](coloured([("apple", None)]), document(TEXT))


def test_every_writer_metric_a_task_names_is_compared_here_or_beside(reference):
    """The libreoffice_writer tasks' metrics (and the multi_apps ones read from a Writer document) each have
    cases here, or compare_docx_files' in test_parity_writer.py; compare_pdfs reads PDFs, not documents."""
    tasks = REFERENCE.parent / "evaluation_examples" / "examples"
    named = set()
    for path in [*(tasks / "libreoffice_writer").glob("*.json"), *(tasks / "multi_apps").glob("*.json")]:
        func = json.loads(path.read_text())["evaluator"]["func"]
        named |= {f for f in ([func] if isinstance(func, str) else func) if hasattr(reference, f)}
    assert named - {"compare_docx_files", "compare_pdfs", "compare_image_text"} <= set(CASES)
    assert set(CASES) <= set(METRICS)
