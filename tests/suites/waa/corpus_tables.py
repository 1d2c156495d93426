"""compare_table cases: the rules the calc tasks use (sheet_name, sheet_data, style with bgcolor and
font_color, check_cell, chart type/legend/title, pivot_table), and the cell kinds, styles and
conditional formats real workbooks carry."""

from __future__ import annotations

import datetime as dt
from typing import Any, Callable

from openpyxl.chart import LineChart, PieChart
from openpyxl.formatting.rule import CellIsRule, FormulaRule
from openpyxl.styles import Font, GradientFill, PatternFill
from openpyxl.styles.differential import DifferentialStyle

from tests.sheet_objects import chart, pivot
from tests.suites.waa.corpus import Case, File
from tests.suites.waa.workbooks import book, cell, package, row, with_cell, with_part

ROWS = [["Name", "Q1", "Q2"], ["ann", 3, 7], ["bob", 4.5, 1]]


def _x(name: str, data: bytes) -> File:
    return File(f"{name}.xlsx", data)


def data(first: Any = 0, second: Any = "EI0", **more: Any) -> dict[str, Any]:
    return {"rules": [{"type": "sheet_data", "sheet_idx0": first, "sheet_idx1": second, **more}]}


def _case(name: str, result: bytes | None, expected: bytes | None, options: dict[str, Any]) -> Case:
    return Case("compare_table", name, None if result is None else _x(f"{name}-result", result),
                None if expected is None else _x(f"{name}-gold", expected), options)


def _sheet_data_cases() -> list[Case]:
    gold = book(ROWS)
    dated = [["When", "n"], [dt.datetime(2024, 3, 1), 1], [dt.datetime(2024, 3, 2), 2]]
    timed = [["When", "n"], [dt.datetime(2024, 3, 1, 9, 30), 1], [dt.datetime(2024, 3, 2), 2]]
    serials = [["When", "n"], [45352, 1], [45353, 2]]
    clock = [["At", "n"], [dt.time(9, 30), 1], [dt.time(17, 0), 2]]
    clock_later = [["At", "n"], [dt.time(9, 31), 1], [dt.time(17, 0), 2]]
    lo_dates = package({"Sheet1": [
        row(1, cell("A1", 0, kind="s"), cell("B1", 1, kind="s")),
        row(2, cell("A2", 45352, style="date"), cell("B2", 1)),
        row(3, cell("A3", 45353.5, style="datetime"), cell("B3", 2)),
    ]}, ["When", "n"])
    lo_cells = package({"Sheet1": [
        row(1, *(cell(f"{c}1", i, kind="s") for i, c in enumerate("ABCDEF"))),
        row(2, cell("A2", 0.375, style="time"), cell("B2", "#DIV/0!", kind="e", formula="1/0"),
            cell("C2", 1, kind="b"), cell("D2", "annx", kind="str", formula='A3&"x"'),
            cell("E2", kind="inlineStr", inline="ann"), cell("F2", 7, formula="3+4")),
    ]}, ["t", "err", "flag", "text", "inline", "sum"])
    lo_values = package({"Sheet1": [
        row(1, *(cell(f"{c}1", i, kind="s") for i, c in enumerate("ABCDEF"))),
        row(2, cell("A2", 0.375, style="time"), cell("B2", "#DIV/0!", kind="e"), cell("C2", 1, kind="b"),
            cell("D2", 6, kind="s"), cell("E2", 7, kind="s"), cell("F2", 7)),
    ]}, ["t", "err", "flag", "text", "inline", "sum", "annx", "ann"])
    return [
        _case("sheet_data-equal", book(ROWS), gold, data()),
        _case("sheet_data-5th-decimal", book([ROWS[0], ["ann", 3.00001, 7], ROWS[2]]), gold, data()),
        _case("sheet_data-3rd-decimal", book([ROWS[0], ["ann", 3.001, 7], ROWS[2]]), gold, data()),
        _case("sheet_data-precision-2", book([ROWS[0], ["ann", 3.001, 7], ROWS[2]]), gold, data(precision=2)),
        _case("sheet_data-int-vs-float", book([ROWS[0], ["ann", 3.0, 7], ["bob", 4.0, 1]]),
              book([ROWS[0], ["ann", 3, 7], ["bob", 4, 1]]), data()),
        _case("sheet_data-trailing-blank-row", book(ROWS + [[None, None, None]]), gold, data()),
        _case("sheet_data-extra-column", book([r + ["x"] for r in ROWS]), gold, data()),
        _case("sheet_data-row-missing", book(ROWS[:2]), gold, data()),
        _case("sheet_data-same-dates", book(dated), book(dated), data()),
        _case("sheet_data-time-of-day-differs", book(timed), book(dated), data()),
        _case("sheet_data-day-serials-vs-dates", book(serials), book(dated), data()),
        _case("sheet_data-dates-vs-day-serials", book(dated), book(serials), data()),
        _case("sheet_data-lo-dates-vs-openpyxl-dates", lo_dates, book(
            [["When", "n"], [dt.datetime(2024, 3, 1), 1], [dt.datetime(2024, 3, 2, 12), 2]]), data()),
        _case("sheet_data-times-of-day", book(clock), book(clock), data()),
        _case("sheet_data-times-of-day-differ", book(clock_later), book(clock), data()),
        _case("sheet_data-lo-time-vs-openpyxl-time", lo_values, book([["t"], [dt.time(9, 0)]]), data()),
        _case("sheet_data-lo-formulas-vs-values", lo_cells, lo_values, data()),
        _case("sheet_data-uncached-formula", book(ROWS + [["sum", "=B2+B3", 8]]), book(ROWS + [["sum", 7.5, 8]]),
              data()),
        _case("sheet_data-merged-cells", book(ROWS, lambda s: s.merge_cells("A2:A3")), gold, data()),
        _case("sheet_data-by-names", book(ROWS, sheets=("Sheet1", "Sheet2")), book(ROWS, sheets=("Sheet1", "Sheet2")),
              {"rules": [{"type": "sheet_data", "sheet_idx0": "RNSheet1", "sheet_idx1": "ENSheet1"},
                         {"type": "sheet_data", "sheet_idx0": "RNSheet2", "sheet_idx1": "ENSheet2"}]}),
        _case("sheet_data-result-sheet-missing", book(ROWS), book(ROWS, sheets=("Sheet1", "Sheet2")),
              data("RNSheet2", "ENSheet2")),
        _case("sheet_data-gold-sheet-missing", book(ROWS, sheets=("Sheet1", "Sheet2")), book(ROWS),
              data("RNSheet2", "ENSheet2")),
        _case("sheet_data-index-past-the-end", book(ROWS), gold, data(3, "EI0")),
        _case("sheet_data-two-result-sheets", book(ROWS, sheets=("a", "b")), gold, data(0, 1)),
        _case("sheet_data-result-missing", None, gold, data()),
        _case("sheet_data-result-not-xlsx", b"PK\x03\x04 not really", gold, data()),
        _case("sheet_data-gold-not-xlsx", book(ROWS), b"not a zip", data()),
        _case("sheet_data-empty-sheets", book([]), book([]), data()),
        _case("sheet_name-same", book(ROWS, sheets=("a", "b")), book(ROWS, sheets=("a", "b")),
              {"rules": [{"type": "sheet_name"}, {"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}]}),
        _case("sheet_name-reordered", book(ROWS, sheets=("b", "a")), book(ROWS, sheets=("a", "b")),
              {"rules": [{"type": "sheet_name"}]}),
    ]


def _filled(fg: str | None = None, bg: str | None = None, *, at: str = "B2") -> Callable[[Any], None]:
    def build(sheet: Any) -> None:
        sheet[at].fill = PatternFill("solid", fgColor=fg or "00000000", bgColor=bg or "00000000")
    return build


def _font(color: str | None, *, at: str = "B2", bold: bool = False) -> Callable[[Any], None]:
    def build(sheet: Any) -> None:
        sheet[at].font = Font(color=color, bold=bold)
    return build


def _style(*props: str) -> dict[str, Any]:
    return {"rules": [{"type": "style", "sheet_idx0": 0, "sheet_idx1": "EI0", "props": list(props)}]}


def _formatted(rule: Any, at: str = "B2:C3") -> Callable[[Any], None]:
    def build(sheet: Any) -> None:
        sheet.conditional_formatting.add(at, rule)
    return build


_RED = DifferentialStyle(font=Font(color="FFFF0000"), fill=PatternFill(bgColor="FFFFC7CE"))


def _expression(formula: str) -> FormulaRule:
    rule = FormulaRule(formula=[formula])
    rule.dxf = _RED
    return rule


def _style_cases() -> list[Case]:
    gold = book(ROWS)
    red = book(ROWS, _font("FFFF0000"))
    lo_red = package({"Sheet1": [row(1, cell("A1", 0, kind="s")),
                                 row(2, cell("A2", 1, style="bold_red_on_blue"))]}, ["x"])
    return [
        _case("style-bgcolor-equal", book(ROWS, _filled(bg="FFFF0000")), book(ROWS, _filled(bg="FFFF0000")),
              _style("bgcolor")),
        _case("style-bgcolor-only-fg-set", book(ROWS, _filled(fg="FFFF0000")), gold, _style("bgcolor")),
        _case("style-bgcolor-differs", book(ROWS, _filled(bg="FFFF0000")), gold, _style("bgcolor")),
        _case("style-fgcolor-only-fg-set", book(ROWS, _filled(fg="FFFF0000")), gold, _style("fgcolor")),
        _case("style-fgcolor-only-bg-set", book(ROWS, _filled(bg="FFFF0000")), gold, _style("fgcolor")),
        _case("style-fill-type-gradient", book(ROWS, lambda s: setattr(s["B2"], "fill", GradientFill(
            stop=("FF0000", "0000FF")))), gold, _style("fill_type", "bgcolor", "fgcolor")),
        _case("style-font-color-equal", red, book(ROWS, _font("FFFF0000")), _style("font_color")),
        _case("style-font-color-differs", red, book(ROWS, _font("FF00FF00")), _style("font_color")),
        _case("style-font-without-colour", book(ROWS, _font(None, bold=True)), gold, _style("font_color")),
        _case("style-font-color-on-empty-cell", book(ROWS, _font(None, at="E5")), gold, _style("font_color")),
        _case("style-extra-column", book(ROWS, _filled(at="E1")), gold, _style("bgcolor")),
        _case("style-number-format", book(ROWS, lambda s: setattr(s["B2"], "number_format", "0.00")), gold,
              _style("number_format")),
        _case("style-bold-italic-size-name", book(ROWS, _font("FF000000", bold=True)), gold,
              _style("font_bold", "font_italic", "font_size", "font_name", "font_underline")),
        _case("style-hyperlink-on-empty-cell", book(ROWS, lambda s: setattr(s["E5"], "hyperlink", "http://x.org")),
              book(ROWS, lambda s: setattr(s["E5"], "hyperlink", "http://x.org")), _style("hyperlink")),
        _case("style-libreoffice-red-on-blue", lo_red, lo_red, _style("font_color", "bgcolor", "fgcolor")),
        _case("style-merged-cells", book(ROWS, lambda s: (s.merge_cells("A2:C2"), _font("FFFF0000", at="A2")(s))),
              book(ROWS, _font("FFFF0000", at="A2")), _style("font_color", "bgcolor", "fill_type")),
        _case("style-date-number-format", book([["When"], [dt.datetime(2024, 3, 1)]]),
              book([["When"], [dt.date(2024, 3, 1)]]), _style("number_format")),
        _case("style-cf-expression-relative", book(ROWS, _formatted(_expression("B2>4"))),
              book(ROWS, _font("FFFF0000", at="C2")), _style("font_color")),
        _case("style-cf-expression-relative-same", book(ROWS, _formatted(_expression("B2>4"))),
              book(ROWS, _formatted(_expression("B2>4"))), _style("font_color", "bgcolor")),
        _case("style-cf-expression-vs-direct", book(ROWS, _formatted(_expression("B2>4"))),
              book(ROWS, lambda s: [setattr(s[c], "font", Font(color="FFFF0000")) for c in ("C2", "B3")]),
              _style("font_color")),
        _case("style-cf-expression-absolute-range", book(ROWS, _formatted(_expression("B2>AVERAGE($B$2:$B$3)"))),
              book(ROWS, _formatted(_expression("B2>AVERAGE($B$2:$B$3)"))), _style("font_color")),
        _case("style-cf-expression-absolute-cell", book(ROWS, _formatted(_expression("B2>$B$2"))), gold,
              _style("font_color")),
        _case("style-cf-expression-text", book(ROWS, _formatted(_expression('A2="bob"'), "A2:A3")),
              book(ROWS, _font("FFFF0000", at="A3")), _style("font_color")),
        _case("style-cf-cell-is", book(ROWS, _formatted(CellIsRule(operator="greaterThan", formula=["4"],
                                                                   font=Font(color="FF00FF00")))),
              gold, _style("font_color")),
        _case("style-cf-number-format-dxf", book(ROWS, _formatted(_expression("B2>4"))), gold,
              _style("number_format")),
    ]


def _check(props: dict[str, Any], *, sheet: str = "RNSheet1", at: str = "B2") -> dict[str, Any]:
    return {"rules": [{"type": "check_cell", "sheet_idx": sheet, "coordinate": at, "props": props}]}


def _eq(ref: Any) -> dict[str, Any]:
    return {"method": "eq", "ref": ref}


def _check_cell_cases() -> list[Case]:
    gold = book(ROWS)
    task = {"bgcolor": _eq("FF0000FF"), "font_color": _eq("FFFFFFFF"), "font_bold": _eq(True),
            "value": _eq("Demographic Profile")}
    header = book([["Demographic Profile"]], lambda s: (setattr(s["A1"], "font", Font(color="FFFFFFFF", bold=True)),
                                                       setattr(s["A1"], "fill", PatternFill("solid", fgColor="FF0000FF",
                                                                                            bgColor="FF0000FF"))),
                  sheets=("Sheet1", "Sheet2"))
    lo_header = package({"Sheet1": [], "Sheet2": [row(1, cell("A1", 0, kind="s", style="bold_red_on_blue"))]},
                        ["Demographic Profile"])
    values = package({"Sheet1": [row(1, cell("A1", 0, kind="s"), cell("B1", 1.5), cell("C1", "x", kind="str"),
                                     cell("D1", "#N/A", kind="e"), cell("E1", 1, kind="b"),
                                     cell("F1", kind="inlineStr", inline="ann"), cell("G1", "  padded ", kind="str"),
                                     cell("H1", formula="1+1"), cell("I1", "2024-03-01T00:00:00", kind="d"))]},
                     ["ann"])
    moved = package({"Sheet1": [row(1, cell("A1", 0, kind="s"))]}, ["ann"], sheet_ids=[3])
    no_shared = with_part(values, "xl/sharedStrings.xml", lambda d: d.replace(b'<t xml:space="preserve">ann</t>',
                                                                               b"<t/>"))
    cases = [
        _case("check_cell-task-header", header, gold, _check(task, sheet="RNSheet2", at="A1")),
        _case("check_cell-libreoffice-header", lo_header, gold,
              _check({**task, "bgcolor": _eq("FF0000FF")}, sheet="RNSheet2", at="A1")),
        _case("check_cell-libreoffice-header-font-and-value", lo_header, gold,
              _check({k: task[k] for k in ("font_color", "font_bold", "value")}, sheet="RNSheet2", at="A1")),
        _case("check_cell-bgcolor-mismatch-then-font-without-colour", book(ROWS, _font(None)), gold,
              _check({"bgcolor": _eq("FF0000FF"), "font_color": _eq("FFFFFFFF")})),
        _case("check_cell-shared-string-unreadable", no_shared, gold, _check({"value": _eq("ann")}, at="A1")),
        _case("check_cell-fill-fg-only", book(ROWS, _filled(fg="FF0000FF")), gold,
              _check({"bgcolor": _eq("FF0000FF")})),
        _case("check_cell-fgcolor", book(ROWS, _filled(fg="FF0000FF")), gold, _check({"fgcolor": _eq("FF0000FF")})),
        _case("check_cell-font-without-colour", book(ROWS, _font(None, bold=True)), gold,
              _check({"font_color": _eq("FFFFFFFF")})),
        _case("check_cell-approx", book(ROWS), gold, _check({"value": {"method": "approx:0.01", "ref": 3.005}})),
        _case("check_cell-regex-flags", book(ROWS), gold,
              _check({"value": {"method": "re.I", "ref": "ANN"}}, at="A2")),
        _case("check_cell-range", book(ROWS), gold, _check({"value": {"method": "range.te", "ref": [2, 3]}})),
        _case("check_cell-str-set", book([["b,a"]]), gold,
              _check({"value": {"method": "str_set_eq", "ref": ["a", "b"]}}, at="A1")),
        _case("check_cell-missing-sheet", book(ROWS), gold, _check({"value": _eq(3.0)}, sheet="RNNope")),
        _case("check_cell-empty-cell", book(ROWS), gold, _check({"value": _eq(None)}, at="Z9")),
        _case("check_cell-empty-cell-regex", book(ROWS), gold, _check({"value": {"method": "re", "ref": "x"}},
                                                                      at="Z9")),
        _case("check_cell-bool-cell", book([[True]]), gold, _check({"value": _eq(True)}, at="A1")),
        _case("check_cell-sheet-ids-not-part-names", moved, gold, _check({"value": _eq("ann")}, at="A1")),
        _case("check_cell-shared-strings-unreadable", no_shared, gold, _check({"value": _eq(1.5)}, at="B1")),
        *(_case(f"check_cell-date-serial-format-{fmt}", package({"Sheet1": [row(1, cell("A1", 45352, style="date"))]}),
                gold, _check({"value": _eq(45352.0), "number_format": _eq(fmt)}, at="A1"))
          for fmt in ("mm-dd-yy", None)),  # openpyxl types a date cell "d", whose number format WAA reads as None
        _case("check_cell-expected-missing", book(ROWS), None, _check({"value": _eq(3.0)})),
    ]
    for ref, wanted in (("A1", "ann"), ("B1", 1.5), ("C1", "x"), ("D1", "#N/A"), ("E1", True), ("F1", "ann"),
                        ("G1", "  padded "), ("G1", "padded"), ("H1", None), ("I1", None)):
        cases.append(_case(f"check_cell-value-{ref}-{wanted}", values, gold, _check({"value": _eq(wanted)}, at=ref)))
    cases.append(_case("check_cell-inline-rich", with_cell(gold, "B2", '<c r="B2" t="inlineStr"><is><r><t>ann</t></r>'
                                                                       "</is></c>"), gold,
                       _check({"value": _eq("ann")})))
    return cases


def _chart_and_pivot_cases() -> list[Case]:
    task_charts = {"rules": [{"type": "chart", "sheet_idx0": 0, "sheet_idx1": "EI0",
                              "chart_props": ["type", "legend", "title"]}]}
    task_pivots = {"rules": [{"type": "pivot_table", "sheet_idx0": 0, "sheet_idx1": "EI0",
                              "pivot_props": ["col_fields", "filter", "row_fields", "data_fields"]}]}
    gold_chart = book(ROWS, chart(title="Sales"))
    gold_pivot = book(ROWS, pivot())
    return [
        _case("chart-same", book(ROWS, chart(title="Sales")), gold_chart, task_charts),
        _case("chart-line-vs-bar", book(ROWS, chart(LineChart, title="Sales")), gold_chart, task_charts),
        _case("chart-pie", book(ROWS, chart(PieChart, title="Sales")), book(ROWS, chart(PieChart, title="Sales")),
              task_charts),
        _case("chart-other-title", book(ROWS, chart(title="Costs")), gold_chart, task_charts),
        _case("chart-no-title", book(ROWS, chart()), gold_chart, task_charts),
        _case("chart-legend-bottom", book(ROWS, chart(title="Sales", legend="b")), gold_chart, task_charts),
        _case("chart-no-legend", book(ROWS, chart(title="Sales", legend=None)), gold_chart, task_charts),
        _case("chart-other-series", book(ROWS, chart(columns=(3,), title="Sales")), gold_chart, task_charts),
        _case("chart-two-vs-one", book(ROWS, chart(columns=(2, 2), title="Sales")), gold_chart, task_charts),
        _case("chart-none", book(ROWS), gold_chart, task_charts),
        _case("chart-unknown-prop", gold_chart, gold_chart,
              {"rules": [{"type": "chart", "sheet_idx0": 0, "sheet_idx1": "EI0", "chart_props": ["type", "glow"]}]}),
        _case("pivot-same", book(ROWS, pivot()), gold_pivot, task_pivots),
        _case("pivot-page-field", book(ROWS, pivot(rows=(), page=(0,))), gold_pivot, task_pivots),
        _case("pivot-average", book(ROWS, pivot(subtotal="average")), gold_pivot, task_pivots),
        _case("pivot-smaller-source", book(ROWS, pivot(ref="A1:C2")), gold_pivot, task_pivots),
        _case("pivot-hidden-item", book(ROWS, pivot(hidden=True)), gold_pivot, task_pivots),
        _case("pivot-none", book(ROWS), gold_pivot, task_pivots),
        _case("pivot-unknown-prop", gold_pivot, gold_pivot,
              {"rules": [{"type": "pivot_table", "sheet_idx0": 0, "sheet_idx1": "EI0",
                          "pivot_props": ["row_fields", "ignore_special_fields"]}]}),
        _case("rules-stop-at-the-first-failure", book(ROWS, sheets=("x",)), gold_pivot,
              {"rules": [{"type": "sheet_name"}, {"type": "freeze", "sheet_idx0": 0, "sheet_idx1": "EI0"}]}),
    ]


def cases() -> list[Case]:
    return _sheet_data_cases() + _style_cases() + _check_cell_cases() + _chart_and_pivot_cases()
