"""Cases for the Writer checks: .docx files with runs, styles, tables, footers, tab stops, highlights,
subscripts, strike-through and italics as python-docx (and LibreOffice, by their XML) write them,
.odt files with spans and automatic styles, and the profile's registrymodifications.xcu."""

from __future__ import annotations

from typing import Any

from docx.enum.text import WD_ALIGN_PARAGRAPH, WD_COLOR_INDEX, WD_TAB_ALIGNMENT
from docx.shared import Pt

from tests import writer_files
from tests.suites.waa.corpus import Case, File
from tests.writer_files import (GREETING, TEXT, Build, highlighted_variants, odt as _odt, runs as _runs,
                                spacing as _spacing, table as _table, tabbed as _tabbed, xcu as _xcu)


def document(paragraphs: list[str] = TEXT, build: Build | None = None) -> bytes:
    """A .docx of one paragraph per text (the course outline's by default), then `build(document)`."""
    return writer_files.document(paragraphs, build)


def _pair(func: str, name: str, mine: bytes | None, gold: bytes | None, options: dict[str, Any] | None = None,
          suffix: str = ".docx") -> Case:
    return Case(func, f"{func}-{name}", None if mine is None else File(f"{func}-{name}/r{suffix}", mine),
                None if gold is None else File(f"{func}-{name}/g{suffix}", gold), options or {})


def _compare_docx_files() -> list[Case]:
    gold = document()
    broken = document(["Course outline", "Week 1: introduction to the", "field.", "Week 2: methods and sources."])
    soft = document(TEXT[:1], lambda d: d.add_paragraph().add_run("Week 1: introduction to the field.")
                    .add_break() or d.add_paragraph(TEXT[2]))
    pairs = {
        "same": (document(), gold), "extra-spaces": (document([t + "  " for t in TEXT]), gold),
        "line-broken": (broken, gold), "soft-break": (soft, gold), "case": (document([t.upper() for t in TEXT]), gold),
        "reordered": (document(TEXT[::-1]), gold), "empty-paragraph": (document(TEXT + [""]), gold),
        "other-word": (document(TEXT[:2] + ["Week 2: methods and source."]), gold),
        "not-docx": (b"PK\x03\x04 nope", gold), "odt-bytes": (_odt([(t, None) for t in TEXT]), gold),
        "missing": (None, gold), "gold-missing": (gold, None),
    }
    cases = []
    for options in ({}, {"ignore_blanks": False}, {"ignore_case": True}, {"ignore_order": True},
                    {"content_only": True}):
        label = "-".join(f"{k}={v}" for k, v in options.items()) or "defaults"
        cases += [_pair("compare_docx_files", f"{label}-{name}", *pair, options) for name, pair in pairs.items()]
    odt_gold = _odt([(t, None) for t in TEXT])
    cases.append(_pair("compare_docx_files", "odt-same", _odt([(t, None) for t in TEXT]), odt_gold, suffix=".odt"))
    return cases


def _line_spacing() -> list[Case]:
    gold = document(build=_spacing(1.5, 1.5, 1.5))
    return [_pair("compare_line_spacing", name, mine, gold) for name, mine in {
        "same": document(build=_spacing(1.5, 1.5, 1.5)), "one-differs": document(build=_spacing(1.5, 2.0, 1.5)),
        "unset": document(), "points": document(build=_spacing(Pt(18), Pt(18), Pt(18))),
        "other-text": document(TEXT[:2], _spacing(1.5, 1.5)), "missing": None, "not-docx": b"junk"}.items()] + [
        _pair("compare_line_spacing", "gold-missing", gold, None)]


def _tables() -> list[Case]:
    rows = [["Grapheme", "Sound"], ["ph", "/f/"]]
    gold = document(build=_table(rows))
    return [_pair("compare_docx_tables", name, mine, gold) for name, mine in {
        "same": document(build=_table(rows)), "padded": document(build=_table([[c + " " for c in r] for r in rows])),
        "other-cell": document(build=_table([rows[0], ["ph", "/v/"]])),
        "extra-row": document(build=_table(rows + [["gh", "/f/"]])), "no-table": document(),
        "two-tables": document(build=lambda d: (_table(rows)(d), _table(rows)(d))),
        "merged": document(build=lambda d: (_table(rows)(d), d.tables[0].cell(0, 0).merge(d.tables[0].cell(0, 1)))),
        "missing": None}.items()]


def _font_names() -> list[Case]:
    rule = {"font_name": "Times New Roman"}
    files = {
        "all-runs": _runs(("Dublin ", {"name": "Times New Roman"}), ("Zoo", {"name": "Times New Roman"})),
        "one-run-other": _runs(("Dublin ", {"name": "Times New Roman"}), ("Zoo", {"name": "Arial"})),
        "style-only": document(build=lambda d: setattr(d.styles["Normal"].font, "name", "Times New Roman")),
        "no-runs": document([]), "missing": None, "not-docx": b"junk",
    }
    return [Case("compare_font_names", f"font-{name}", None if data is None else File(f"font-{name}/r.docx", data),
                 rule) for name, data in files.items()]


def _highlight(*runs: tuple[str, Any]) -> bytes:
    return _runs(*((text, {"highlight_color": colour}) for text, colour in runs))


def _highlights() -> list[Case]:
    gold = _highlight(("Abstract", WD_COLOR_INDEX.YELLOW), (" text", None))
    return [_pair("compare_highlighted_text", name, mine, gold) for name, mine in {
        "same": _highlight(("Abstract", WD_COLOR_INDEX.YELLOW), (" text", None)),
        "green": _highlight(("Abstract", WD_COLOR_INDEX.BRIGHT_GREEN), (" text", None)),
        "none": _highlight(("Abstract", None), (" text", None)),
        "split-run": _highlight(("Abs", WD_COLOR_INDEX.YELLOW), ("tract", WD_COLOR_INDEX.YELLOW), (" text", None)),
        "two": _highlight(("Abstract", WD_COLOR_INDEX.YELLOW), (" text", WD_COLOR_INDEX.YELLOW)),
        "not-docx": b"junk", "missing": None}.items()]


def _subscripts() -> list[Case]:
    gold = _runs(("H", {}), ("2", {"subscript": True}), ("O", {}))
    return [_pair("compare_subscript_contains", name, mine, gold) for name, mine in {
        "same": _runs(("H", {}), ("2", {"subscript": True}), ("O", {})),
        "superscript": _runs(("H", {}), ("2", {"superscript": True}), ("O", {})),
        "one-run": _runs(("H2O", {"subscript": True})),
        "other-position": _runs(("H", {}), ("O", {}), ("2", {"subscript": True})),
        "none": document(["H2O"]), "missing": None}.items()]


def _single(func: str) -> list[Case]:
    centred = document(build=lambda d: setattr(d.paragraphs[0].paragraph_format, "alignment",
                                               WD_ALIGN_PARAGRAPH.CENTER))
    styled = document(build=lambda d: setattr(d.styles["Normal"].paragraph_format, "alignment",
                                              WD_ALIGN_PARAGRAPH.CENTER))

    def footer(text: str | None) -> Build:
        def build(written: Any) -> None:
            if text is not None:
                written.sections[0].footer.paragraphs[0].text = text
        return build

    files = {"centred": centred, "style-centred": styled, "plain": document(), "empty": document([]),
             "footer-page-1": document(build=footer("Page 1")), "footer-text": document(build=footer("Page")),
             "no-footer": document(build=footer(None)),
             "two-sections": document(build=lambda d: (footer("1")(d), d.add_section())),
             "missing": None, "not-docx": b"junk"}
    return [Case(func, f"{func}-{name}", None if data is None else File(f"{func}-{name}/r.docx", data))
            for name, data in files.items()]


def _formatted_last(func: str, font: dict[str, Any], other: dict[str, Any]) -> list[Case]:
    before = TEXT[:2]
    gold = document(TEXT)
    return [_pair(func, name, mine, gold) for name, mine in {
        "all": _runs(("Week 2: methods ", font), ("and sources.", font), before=before),
        "one-not": _runs(("Week 2: methods ", font), ("and sources.", other), before=before),
        "plain": document(TEXT), "other-text": _runs(("Week 3", font), before=before),
        "empty-last": _runs(("Week 2: methods and sources.", font), before=before, after=[""]),
        "missing": None}.items()] + [_pair(func, "gold-missing", document(TEXT), None)]


def _italics() -> list[Case]:
    before = TEXT[:2]
    gold = document(TEXT)
    return [_pair("check_italic_font_size_14", name, mine, gold) for name, mine in {
        "italic-14": _runs(("Week 2: ", {}), ("methods and sources.", {"italic": True, "size": Pt(14)}), before=before),
        "italic-12": _runs(("Week 2: ", {}), ("methods and sources.", {"italic": True, "size": Pt(12)}), before=before),
        "italic-unsized": _runs(("Week 2: ", {}), ("methods and sources.", {"italic": True}), before=before),
        "no-italic": document(TEXT), "missing": None}.items()]


def _default_font() -> list[Case]:
    files = {"set": _xcu("Times New Roman"), "other": _xcu("Liberation Serif"), "unset": _xcu(None),
             "not-xml": b"\x00\x01", "missing": None}
    return [Case("find_default_font", f"xcu-{name}", None if data is None else
                 File(f"xcu-{name}/registrymodifications.xcu", data), {"font_name": "Times New Roman"})
            for name, data in files.items()]


def _tabstops() -> list[Case]:
    right, left = WD_TAB_ALIGNMENT.RIGHT, WD_TAB_ALIGNMENT.LEFT
    lines = ["Ebook purchasing info\t2021", "Contact the library\tJanuary"]
    gold = _tabbed([(line, [(6.0, right)]) for line in lines])
    files = {
        "same": _tabbed([(line, [(6.0, right)]) for line in lines]),
        "near": _tabbed([(lines[0], [(5.5, right)]), (lines[1], [(6.0, right)])]),
        "left": _tabbed([(line, [(6.0, left)]) for line in lines]),
        "extra-left-zero": _tabbed([(line, [(6.0, right), (0, left)]) for line in lines]),
        "four-words": _tabbed([("Pay at the counter\t2021", [(6.0, right)]), (lines[1], [(6.0, right)])]),
        "no-tab": _tabbed([("Ebook purchasing info 2021", [(6.0, right)]), (lines[1], [(6.0, right)])]),
        "one-paragraph": _tabbed([(lines[0], [(6.0, right)])]),
        "missing": None,
    }
    options = {"word_number_split_by_tabstop": 3, "index": 0}
    return [_pair("check_tabstops", f"{name}-{bool(opts)}", data, gold, opts) for name, data in files.items()
            for opts in (options, {})] + [_pair("check_tabstops", "gold-missing", gold, None, options)]


def _highlighted_words() -> list[Case]:
    gold = _odt([(line, None) for line in GREETING])
    return [_pair("check_highlighted_words", name, mine, gold, suffix=".odt")
            for name, mine in highlighted_variants().items()] + [
        _pair("check_highlighted_words", "gold-missing", gold, None, suffix=".odt")]


def cases() -> list[Case]:
    return (_compare_docx_files() + _line_spacing() + _tables() + _font_names() + _highlights() + _subscripts()
            + _single("is_first_line_centered") + _single("has_page_numbers_in_footers")
            + _formatted_last("evaluate_strike_through_last_paragraph", {"strike": True}, {"strike": False})
            + _italics() + _default_font() + _tabstops() + _highlighted_words())
