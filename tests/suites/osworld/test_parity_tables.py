"""troupe's compare_table agrees with OSWorld's own (metrics/table.py and its utils.py, imported from
../shared/osworld/reference for tests only) on workbooks built to sit on the edges of every rule type a
runnable task uses: sheet_name, sheet_data (precision, column types, sheets by index, name and past the
end), sheet_fuzzy (each match type and normalization), check_cell (values, styles, merged cells, methods
that fail), freeze, zoom, row_props and data_validation; results and gold files that are no workbook, a
missing gold file, rules missing. Prints the agreement per rule type."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from openpyxl import Workbook
from openpyxl.chart import LineChart, PieChart
from openpyxl.formatting.rule import CellIsRule, FormulaRule, Rule
from openpyxl.styles import Font, PatternFill
from openpyxl.styles.differential import DifferentialStyle
from openpyxl.worksheet.datavalidation import DataValidation

from bench.suites.osworld.cached_file import CachedFile
from bench.suites.osworld.tables import compare_table

from tests.osworld_reference import FILE, REFERENCE, Case, assert_agrees, outcome, report_parity, table
from tests.sheet_objects import chart, pivot, workbook

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

ROWS = [["Name", "Score"], ["Ann", 1.5], ["Bob", 2.25]]


def book(sheets: dict[str, list[list[Any]]] | None = None, edit: Callable[[Workbook], None] | None = None) -> bytes:
    """An xlsx workbook, its sheets' rows by name (ROWS in "Sheet1" by default), then `edit` applied."""
    return workbook(sheets or {"Sheet1": ROWS}, edit)


def rules(*items: dict[str, Any]) -> dict[str, Any]:
    return {"rules": list(items)}


def data(first: Any = 0, second: Any = "EI0", **more: Any) -> dict[str, Any]:
    return {"type": "sheet_data", "sheet_idx0": first, "sheet_idx1": second, **more}


def cell(coordinate: str, sheet: Any = 0, **props: Any) -> dict[str, Any]:
    return {"type": "check_cell", "sheet_idx": sheet, "coordinate": coordinate, "props": props}


def fuzzy(range_: list[str], kind: str, **more: Any) -> dict[str, Any]:
    return {"type": "sheet_fuzzy", "sheet_idx0": 0, "sheet_idx1": "EI0",
            "rules": [{"range": range_, "type": kind, **more}]}


def pair(kind: str, first: Any = 0, second: Any = "EI0", **more: Any) -> dict[str, Any]:
    return {"type": kind, "sheet_idx0": first, "sheet_idx1": second, **more}


def eq(ref: Any, method: str = "eq") -> dict[str, Any]:
    return {"method": method, "ref": ref}


def styled(workbook: Workbook) -> None:
    sheet = workbook["Sheet1"]
    sheet["A2"].font = Font(bold=True, color="FFFF0000")
    sheet["B2"].fill = PatternFill("solid", fgColor="FFFFFF00")
    sheet["C1"] = "=B2*2"
    sheet["D1"] = True
    sheet.merge_cells("A5:C5")
    sheet["A5"] = "Merged"


def frozen(where: str | None) -> Callable[[Workbook], None]:
    def edit(workbook: Workbook) -> None:
        workbook["Sheet1"].freeze_panes = where
    return edit


def zoomed(scale: int | None) -> Callable[[Workbook], None]:
    def edit(workbook: Workbook) -> None:
        workbook["Sheet1"].sheet_view.zoomScale = scale
    return edit


def hidden(*rows: int) -> Callable[[Workbook], None]:
    def edit(workbook: Workbook) -> None:
        for row in rows:
            workbook["Sheet1"].row_dimensions[row].hidden = True
    return edit


def validated(kind: str = "list", formula: str = '"Pass,Fail,Held"', where: str = "D2:D29") -> Callable[[Workbook], None]:
    def edit(workbook: Workbook) -> None:
        validation = DataValidation(type=kind, formula1=formula)
        validation.add(where)
        workbook["Sheet1"].add_data_validation(validation)
    return edit


def on_sheet(*builds: Callable[[Any], None]) -> Callable[[Workbook], None]:
    """An edit putting each of `builds` (charts, pivot tables) on Sheet1."""
    def edit(workbook: Workbook) -> None:
        for build in builds:
            build(workbook["Sheet1"])
    return edit


def formatted(*rules_: Any, where: str = "B2:B3") -> Callable[[Workbook], None]:
    """Conditional format rules over `where` on Sheet1, in order."""
    def edit(workbook: Workbook) -> None:
        for rule in rules_:
            workbook["Sheet1"].conditional_formatting.add(where, rule)
    return edit


def painted(edit: Callable[[Workbook], None] | None = None, **cells: str) -> Callable[[Workbook], None]:
    """Sheet1's `cells` (coordinate: ARGB) filled solid in that colour and their font in it, then `edit`."""
    def paint(workbook: Workbook) -> None:
        for coordinate, color in cells.items():
            workbook["Sheet1"][coordinate].fill = PatternFill("solid", fgColor=color)
            workbook["Sheet1"][coordinate].font = Font(color=color)
        if edit is not None:
            edit(workbook)
    return paint


RED = PatternFill(bgColor="FFFF0000")
GREEN = DifferentialStyle(fill=PatternFill(bgColor="FF00FF00"))


def text_rule(kind: str, formula: str) -> Rule:
    return Rule(type=kind, operator=kind if kind.endswith("Text") else None, text="A",
                formula=[formula], dxf=DifferentialStyle(fill=RED))


def charted(*builds: Callable[[Any], None]) -> bytes:
    return book(edit=on_sheet(*builds))


def chart_rule(*props: str, first: Any = 0, second: Any = "EI0") -> dict[str, Any]:
    return rules(pair("chart", first, second, chart_props=list(props)))


def pivot_rule(*props: str, first: Any = 0, second: Any = "EI0") -> dict[str, Any]:
    return rules(pair("pivot_table", first, second, pivot_props=list(props)))


def style_rule(*props: str, first: Any = 0, second: Any = "EI0") -> dict[str, Any]:
    return rules(pair("style", first, second, props=list(props)))


TASK_PIVOT = ("col_fields", "filter", "row_fields", "data_fields")
"""The pivot_props the calc tasks ask for."""
BAR = charted(chart(title="Sales"))
PIVOT = charted(pivot())
LONG = {"Sheet1": [["Name", "Score"], *([None, None] for _ in range(60)), ["Zed", 9]]}

PASSFAIL = {"ranges": eq(["D2:D29", "D2:D1048576"], "spreadsheet_range"), "type": eq("list"),
            "formula1": eq(["Pass", "Fail", "Held"], "str_set_eq")}
GOLD = book()
C = Case
NAMES = {"Sheet1": ROWS, "Sheet2": [["x"]]}
TEXTS = {"Sheet1": [["Main St", " Ann "], ["+1 (555) 010", "ROAD"]]}
CASES: dict[str, list[Case]] = {
    "sheet_name": [
        C(FILE, book(NAMES), FILE, book(NAMES), **rules({"type": "sheet_name"})),
        C(FILE, book(NAMES), FILE, book(dict(reversed(NAMES.items()))), **rules({"type": "sheet_name"})),
        C(FILE, book(NAMES), None, **rules({"type": "sheet_name"})),
    ],
    "sheet_data": [
        C(FILE, GOLD, FILE, GOLD, **rules(data())),
        C(FILE, book({"Sheet1": [["Name", "Score"], ["Ann", 1.5], ["Bob", 2.5]]}), FILE, GOLD, **rules(data())),
        C(FILE, book({"Sheet1": [["v"], [1.00001]]}), FILE, book({"Sheet1": [["v"], [1.00002]]}), **rules(data())),
        C(FILE, book({"Sheet1": [["v"], [1.001]]}), FILE, book({"Sheet1": [["v"], [1.004]]}),
          **rules(data(precision=2))),
        C(FILE, book({"Sheet1": [["v"], [1.001]]}), FILE, book({"Sheet1": [["v"], [1.006]]}),
          **rules(data(precision=2))),
        C(FILE, book({"Sheet1": [["v"], [1]]}), FILE, book({"Sheet1": [["v"], [1.0]]}), **rules(data())),
        C(FILE, book({"Sheet1": [["v"], ["1"]]}), FILE, book({"Sheet1": [["v"], [1]]}), **rules(data())),
        C(FILE, GOLD, FILE, GOLD, **rules(data(5))),
        C(FILE, GOLD, FILE, GOLD, **rules(data(0, "EI5"))),
        C(FILE, GOLD, FILE, GOLD, **rules(data("RNSheet1", "ENSheet1"))),
        C(FILE, GOLD, FILE, GOLD, **rules(data("RNNope", "ENSheet1"))),
        C(FILE, GOLD, FILE, GOLD, **rules(data("RI0", "ENNope"))),
        C(FILE, GOLD, FILE, GOLD, **rules(data(-1, "EI-1"))),
        C(FILE, GOLD, FILE, GOLD, **rules(data("Sheet1", "EI0"))),
        C(FILE, GOLD, FILE, GOLD, **rules(data("RIx", "EI0"))),
        C(FILE, GOLD, None, **rules(data())),
        C(FILE, b"not a workbook", FILE, GOLD, **rules(data())),
        C(FILE, GOLD, FILE, b"not a workbook", **rules(data())),
        C(None, FILE, GOLD, **rules(data())),
        C(FILE, GOLD, FILE, GOLD),
        C(FILE, GOLD, FILE, GOLD, **rules()),
        C(FILE, GOLD, FILE, GOLD, **rules(data(), data("RNNope"))),
        C(FILE, book({"Sheet1": ROWS, "Sheet2": [["a"], [2]]}), FILE, book({"Sheet1": ROWS, "Sheet2": [["a"], [3]]}),
          **rules(data(), data(1, "EI1"))),
    ],
    "check_cell": [
        C(FILE, GOLD, None, **rules(cell("A2", value=eq("Ann")))),
        C(FILE, GOLD, None, **rules(cell("B2", value=eq(1.55, "approx:0.1")))),
        C(FILE, GOLD, None, **rules(cell("B2", value=eq(1.7, "approx:0.1")))),
        C(FILE, GOLD, None, **rules(cell("B3", value=eq(2.25)))),
        C(FILE, GOLD, None, **rules(cell("B3", "RNSheet1", value=eq(2.0, "gt")))),
        C(FILE, GOLD, None, **rules(cell("A2", value=eq("^A", "re")))),
        C(FILE, GOLD, None, **rules(cell("A2", value=eq("^a", "re.IGNORECASE")))),
        C(FILE, GOLD, None, **rules(cell("Z9", value=eq("^a", "re")))),
        C(FILE, GOLD, None, **rules(cell("Z9", value=eq(None)))),
        C(FILE, GOLD, None, **rules(cell("A2", value=eq("Ann", "nonsense")))),
        C(FILE, GOLD, None, **rules(cell("A2", "RNNope", value=eq("Ann")))),
        C(FILE, GOLD, None, **rules(cell("A2", "EI0", value=eq("Ann")))),
        C(FILE, GOLD, FILE, GOLD, **rules(cell("A2", "EI0", value=eq("Ann")))),
        C(FILE, GOLD, None, **rules(cell("not a cell", value=eq("Ann")))),
        C(FILE, GOLD, None, **rules(cell("B2", value=eq([1, 2], "range.te")))),
        C(FILE, GOLD, None, **rules(cell("B2", value=eq([1.5, 2], "range.et")))),
        C(FILE, book(edit=styled), None, **rules(cell("A2", font_bold=eq(True), font_color=eq("FFFF0000")))),
        C(FILE, book(edit=styled), None, **rules(cell("A3", font_bold=eq(True)))),
        C(FILE, book(edit=styled), None, **rules(cell("B2", bgcolor=eq("FFFFFF00")))),
        C(FILE, book(edit=styled), None, **rules(cell("A3", bgcolor=eq("00000000"), fill_type=eq("patternFill")))),
        C(FILE, book(edit=styled), None, **rules(cell("B5", merge=eq(True)), cell("A5", merge=eq(False)))),
        C(FILE, book(edit=styled), None, **rules(cell("A5", merge=eq(True)))),
        C(FILE, book(edit=styled), None, **rules(cell("C1", value=eq("=B2*2")))),
        C(FILE, book(edit=styled), None, **rules(cell("C1", value=eq(None)))),
        C(FILE, book(edit=styled), None, **rules(cell("D1", value=eq(None)))),
        C(FILE, book(edit=styled), None, **rules(cell("A2", no_such_style=eq(None)))),
        C(FILE, book(edit=styled), None, **rules(cell("A1", number_format=eq(None), hyperlink=eq("")))),
        C(FILE, GOLD, None, **rules(cell("A2", value=eq("Bob"), font_bold=eq(True, "nonsense")))),
    ],
    "sheet_fuzzy": [
        C(FILE, book(TEXTS), FILE, book(TEXTS), **rules(fuzzy(["A1:B2"], "exact_match"))),
        C(FILE, book({"Sheet1": [["Main St", "ann"]]}), FILE, book(TEXTS),
          **rules(fuzzy(["A1:B1"], "exact_match", trim_leadings=" ", trim_trailings=" ", ignore_case=True))),
        C(FILE, book({"Sheet1": [["Main St", "ann"]]}), FILE, book(TEXTS), **rules(fuzzy(["A1:B1"], "exact_match"))),
        C(FILE, book({"Sheet1": [["Main Street", "x"]]}), FILE, book(TEXTS),
          **rules(fuzzy(["A1"], "fuzzy_match", threshold=85, normalization=[["St", "Street"]], ignore_case=True))),
        C(FILE, book({"Sheet1": [["Mian Sreet"]]}), FILE, book(TEXTS), **rules(fuzzy(["A1"], "fuzzy_match"))),
        C(FILE, book({"Sheet1": [["Main Stree"]]}), FILE, book(TEXTS), **rules(fuzzy(["A1"], "fuzzy_match",
                                                                                     threshold=90))),
        C(FILE, book({"Sheet1": [[None], ["15550100 extra"]]}), FILE, book(TEXTS),
          **rules(fuzzy(["A2"], "includes", trim_leadings="+ ", ignore_chars=" ()-"))),
        C(FILE, book({"Sheet1": [[None], ["road"]]}), FILE, book(TEXTS),
          **rules(fuzzy(["B2"], "includes", ignore_case=True))),
        C(FILE, book({"Sheet1": [[None], ["ROA"]]}), FILE, book(TEXTS), **rules(fuzzy(["B2"], "included_by"))),
        C(FILE, book({"Sheet1": [[None], ["ROAD!"]]}), FILE, book(TEXTS), **rules(fuzzy(["B2"], "included_by"))),
        C(FILE, book({"Sheet1": [[1.5]]}), FILE, book({"Sheet1": [["1.5"]]}), **rules(fuzzy(["A1"], "exact_match"))),
        C(FILE, book(TEXTS), FILE, book(TEXTS), **rules(fuzzy(["C7:D8"], "exact_match"))),
        C(FILE, book(TEXTS), None, **rules(fuzzy(["A1"], "exact_match"))),
        C(FILE, book({"Sheet1": [[" Ann ", "  ", ""]]}), FILE, book({"Sheet1": [["Ann", None, None]]}),
          **rules(fuzzy(["A1:C1"], "exact_match", trim_leadings=" "))),
        C(FILE, book({"Sheet1": [["  ", ""]]}), FILE, book({"Sheet1": [["  ", None]]}),
          **rules(fuzzy(["A1:B1"], "exact_match"))),
    ],
    "freeze": [
        C(FILE, book(edit=frozen("A2")), FILE, book(edit=frozen("A2")), **rules(pair("freeze"))),
        C(FILE, book(edit=frozen("B2")), FILE, book(edit=frozen("A2")), **rules(pair("freeze"))),
        C(FILE, GOLD, FILE, GOLD, **rules(pair("freeze"))),
        C(FILE, GOLD, FILE, GOLD, **rules(pair("freeze", 3))),
        C(FILE, GOLD, FILE, GOLD, **rules(pair("freeze", 0, "EI3"))),
    ],
    "zoom": [
        C(FILE, book(edit=zoomed(200)), None, **rules({"type": "zoom", "sheet_idx": 0, "method": "lt", "ref": 260})),
        C(FILE, book(edit=zoomed(300)), None, **rules({"type": "zoom", "sheet_idx": 0, "method": "lt", "ref": 260})),
        C(FILE, GOLD, None, **rules({"type": "zoom", "sheet_idx": 0, "method": "lt", "ref": 260})),
        C(FILE, GOLD, None, **rules({"type": "zoom", "sheet_idx": 4, "method": "lt", "ref": 260})),
        C(FILE, GOLD, None, **rules({"type": "zoom", "sheet_idx": 0, "method": "nonsense", "ref": 260})),
    ],
    "row_props": [
        C(FILE, book(edit=hidden(2)), FILE, book(edit=hidden(2)), **rules(pair("row_props", props=["hidden"]))),
        C(FILE, book(edit=hidden(3)), FILE, book(edit=hidden(2)), **rules(pair("row_props", props=["hidden"]))),
        C(FILE, GOLD, FILE, book(edit=hidden(2)), **rules(pair("row_props", props=["hidden"]))),
        C(FILE, GOLD, FILE, GOLD, **rules(pair("row_props", 5, "EI5", props=["hidden"]))),
        C(FILE, book(edit=hidden(2)), FILE, book(edit=hidden(2)), **rules(pair("row_props", props=["nonsense"]))),
    ],
    "data_validation": [
        C(FILE, book(edit=validated()), None, **rules({"type": "data_validation", "sheet_idx": 0,
                                                       "dv_props": [PASSFAIL]})),
        C(FILE, book(edit=validated(where="D2:D40")), None, **rules({"type": "data_validation", "sheet_idx": 0,
                                                                      "dv_props": [PASSFAIL]})),
        C(FILE, book(edit=validated(formula='"Pass,Fail"')), None,
          **rules({"type": "data_validation", "sheet_idx": 0, "dv_props": [PASSFAIL]})),
        C(FILE, book(edit=validated("whole", "5")), None, **rules({"type": "data_validation", "sheet_idx": 0,
                                                                   "dv_props": [PASSFAIL]})),
        C(FILE, GOLD, None, **rules({"type": "data_validation", "sheet_idx": 0, "dv_props": [PASSFAIL]})),
        C(FILE, GOLD, None, **rules({"type": "data_validation", "sheet_idx": 0, "dv_props": []})),
        C(FILE, book(edit=validated()), None, **rules({"type": "data_validation", "sheet_idx": 0,
                                                       "dv_props": [{"nonsense": eq(1)}]})),
    ],
    "chart": [
        C(FILE, BAR, FILE, BAR, **chart_rule("type", "title")),
        C(FILE, charted(chart(LineChart, title="Sales")), FILE, BAR, **chart_rule("type", "title")),
        C(FILE, charted(chart(LineChart, title="Sales")), FILE, BAR, **chart_rule("title")),
        C(FILE, charted(chart(title="Costs")), FILE, BAR, **chart_rule("type", "title")),
        C(FILE, charted(chart()), FILE, BAR, **chart_rule("type", "title")),
        C(FILE, charted(chart()), FILE, charted(chart()), **chart_rule("type", "title")),
        C(FILE, charted(chart(columns=(1,), title="Sales")), FILE, BAR, **chart_rule("type")),
        C(FILE, charted(chart(columns=(2, 2), title="Sales")), FILE, BAR, **chart_rule("type", "title")),
        C(FILE, charted(chart(columns=(2, 1), title="Sales")), FILE, BAR, **chart_rule("type", "title")),
        C(FILE, GOLD, FILE, BAR, **chart_rule("type")),
        C(FILE, GOLD, FILE, GOLD, **chart_rule("type")),
        C(FILE, charted(chart(barDir="bar")), FILE, charted(chart(barDir="col")), **chart_rule("type", "direction")),
        C(FILE, charted(chart(barDir="col")), FILE, charted(chart(barDir="col")), **chart_rule("type", "direction")),
        C(FILE, charted(chart(PieChart)), FILE, charted(chart(PieChart)), **chart_rule("type", "direction")),
        C(FILE, charted(chart(PieChart)), FILE, charted(chart(PieChart)), **chart_rule("xtitle", "ztitle")),
        C(FILE, charted(chart(x_title="Week")), FILE, charted(chart(x_title="Week")), **chart_rule("xtitle")),
        C(FILE, charted(chart(x_title="Week")), FILE, charted(chart(x_title="Day")), **chart_rule("xtitle")),
        C(FILE, charted(chart(legend="b")), FILE, charted(chart()), **chart_rule("legend")),
        C(FILE, charted(chart(legend=None)), FILE, charted(chart(legend=None)), **chart_rule("legend")),
        C(FILE, charted(chart(width=20)), FILE, charted(chart()), **chart_rule("width", "height")),
        C(FILE, BAR, FILE, BAR, **chart_rule("anchor")),
        C(FILE, BAR, FILE, BAR, **chart_rule("type", "glow")),
        C(FILE, BAR, FILE, charted(chart(LineChart)), **rules(pair("chart", 0, "EI0"))),
        C(FILE, BAR, FILE, BAR, **chart_rule("type", first="RNSheet1", second="ENSheet1")),
        C(FILE, BAR, FILE, BAR, **chart_rule("type", first="RNNope", second="ENNope")),
        C(FILE, BAR, FILE, BAR, **chart_rule("type", first=3)),
        C(FILE, BAR, None, **chart_rule("type")),
        C(FILE, BAR, FILE, BAR, **rules(data(), pair("chart", 0, "EI0", chart_props=["type"]))),
    ],
    "pivot_table": [
        C(FILE, PIVOT, FILE, PIVOT, **pivot_rule(*TASK_PIVOT)),
        C(FILE, charted(pivot(rows=(), page=(0,))), FILE, PIVOT, **pivot_rule(*TASK_PIVOT)),
        C(FILE, charted(pivot(rows=(), columns=(0,))), FILE, PIVOT, **pivot_rule(*TASK_PIVOT)),
        C(FILE, charted(pivot(rows=(), columns=(0,))), FILE, PIVOT, **pivot_rule("filter", "data_fields")),
        C(FILE, charted(pivot(subtotal="average")), FILE, PIVOT, **pivot_rule(*TASK_PIVOT)),
        C(FILE, charted(pivot(data_name="Sum - Q1")), FILE, PIVOT, **pivot_rule(*TASK_PIVOT)),
        C(FILE, charted(pivot(data_name="Sum - Q1")), FILE, PIVOT, **pivot_rule(*TASK_PIVOT, "data_fields_name")),
        C(FILE, charted(pivot(ref="A1:C2")), FILE, PIVOT, **pivot_rule(*TASK_PIVOT)),
        C(FILE, charted(pivot(ref="A1:D3", fields=("Name", "Q1", "Q2", "Q3"))), FILE, PIVOT,
          **pivot_rule(*TASK_PIVOT)),
        C(FILE, charted(pivot(unused_first=True)), FILE, charted(pivot(unused_first=True)),
          **pivot_rule(*TASK_PIVOT, "location")),
        C(FILE, charted(pivot(unused_first=True, rows=(1,))), FILE, PIVOT, **pivot_rule(*TASK_PIVOT)),
        C(FILE, charted(pivot(hidden=True)), FILE, PIVOT, **pivot_rule(*TASK_PIVOT)),
        C(FILE, charted(pivot(hidden=True)), FILE, PIVOT, **pivot_rule("row_fields", "data_fields")),
        C(FILE, charted(pivot(hidden=True)), FILE, PIVOT, **pivot_rule("selection", "ordered")),
        C(FILE, PIVOT, FILE, PIVOT, **pivot_rule("name", "show_total", "show_empty_row", "show_empty_col",
                                                 "show_headers", "location")),
        C(FILE, GOLD, FILE, PIVOT, **pivot_rule(*TASK_PIVOT)),
        C(FILE, GOLD, FILE, GOLD, **pivot_rule(*TASK_PIVOT)),
        C(FILE, PIVOT, FILE, PIVOT, **pivot_rule(*TASK_PIVOT, first="RNSheet2", second="ENSheet2")),
        C(FILE, PIVOT, FILE, charted(pivot(ref="A1")), **pivot_rule("row_fields")),
        C(FILE, PIVOT, FILE, PIVOT, **pivot_rule("row_fields", "ignore_special_fields")),
        C(FILE, PIVOT, None, **pivot_rule(*TASK_PIVOT)),
        C(FILE, PIVOT, FILE, PIVOT, **pivot_rule(*TASK_PIVOT), ),
    ],
    "style": [
        C(FILE, book(edit=painted(B2="FF00FF00")), FILE, book(edit=painted(B2="FF00FF00")), **style_rule("bgcolor")),
        C(FILE, book(edit=painted(B2="FF00FF00")), FILE, book(edit=painted(B2="FFFF0000")), **style_rule("bgcolor")),
        C(FILE, book(edit=painted(B2="FF00FF00")), FILE, GOLD, **style_rule("bgcolor")),
        C(FILE, book(edit=painted(B2="FF00FF00")), FILE, book(edit=painted(B2="FF00FF00")),
          **style_rule("font_color", "fill_type", "fgcolor")),
        C(FILE, book(edit=painted(D9="FF00FF00")), FILE, book(edit=painted(D9="FF00FF00")), **style_rule("bgcolor")),
        C(FILE, book(edit=painted(D9="FF00FF00")), FILE, GOLD, **style_rule("font_name")),
        C(FILE, book(edit=styled), FILE, book(edit=styled), **style_rule("font_bold", "number_format", "hyperlink",
                                                                          "merge", "font_size", "font_italic")),
        C(FILE, GOLD, FILE, GOLD, **style_rule("font_color")),
        C(FILE, GOLD, FILE, GOLD, **style_rule("glow")),
        C(FILE, GOLD, FILE, GOLD, **style_rule()),
        C(FILE, GOLD, FILE, GOLD, **style_rule("bgcolor", first="RNNope", second="ENNope")),
        C(FILE, GOLD, None, **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(FormulaRule(formula=["B2>2"], fill=RED))), FILE, GOLD, **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(FormulaRule(formula=["B2>2"], fill=RED))),
          FILE, book(edit=formatted(FormulaRule(formula=["B2>2"], fill=RED))), **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(FormulaRule(formula=["B2>2"], fill=RED))),
          FILE, book(edit=formatted(FormulaRule(formula=["B2>1"], fill=RED))), **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(FormulaRule(formula=["B2>2"], fill=RED))),
          FILE, book(edit=painted(B3="FFFF0000")), **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(FormulaRule(formula=["B2>2"], font=Font(color="FFFF0000")))),
          FILE, book(edit=formatted(FormulaRule(formula=["B2>2"], font=Font(color="FFFF0000")))),
          **style_rule("font_color")),
        C(FILE, book(edit=formatted(FormulaRule(formula=["B2>2"], fill=RED))),
          FILE, book(edit=formatted(FormulaRule(formula=["B2>2"], fill=RED))), **style_rule("font_color")),
        C(FILE, book(edit=formatted(FormulaRule(formula=["B2>2"], fill=RED))),
          FILE, book(edit=formatted(FormulaRule(formula=["B2>2"], fill=RED))), **style_rule("number_format")),
        C(FILE, book(edit=formatted(CellIsRule(operator="greaterThan", formula=["2"], fill=RED))),
          FILE, book(edit=formatted(FormulaRule(formula=["B2>2"], fill=RED))), **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(CellIsRule(operator="between", formula=["1", "2"], fill=RED))),
          FILE, book(edit=formatted(FormulaRule(formula=["B2<2"], fill=RED))), **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(CellIsRule(operator="notBetween", formula=["1", "2"], fill=RED))),
          FILE, book(edit=formatted(FormulaRule(formula=["B2>2"], fill=RED))), **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(CellIsRule(operator="equal", formula=["1.5"], fill=RED))),
          FILE, book(edit=painted(B2="FFFF0000")), **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(CellIsRule(operator="containsText", formula=["1.5"], fill=RED))),
          FILE, GOLD, **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(CellIsRule(operator="greaterThan", formula=["B3"], fill=RED))),
          FILE, GOLD, **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(CellIsRule(operator="lessThan", formula=["\"Ann\""], fill=RED))),
          FILE, GOLD, **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(text_rule("containsText", 'NOT(ISERROR(SEARCH("A",A2)))'), where="A2:A3")),
          FILE, book(edit=painted(A2="FFFF0000")), **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(text_rule("beginsWith", 'LEFT(A2,1)="B"'), where="A2:A3")),
          FILE, book(edit=painted(A3="FFFF0000")), **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(FormulaRule(formula=["B2>AVERAGE($B$2:$B$3)"], fill=RED))),
          FILE, book(edit=painted(B3="FFFF0000")), **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(FormulaRule(formula=["B2>$B$2"], fill=RED))), FILE, GOLD, **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(FormulaRule(formula=["B2>>>(("], fill=RED))), FILE, GOLD, **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(Rule(type="expression", dxf=DifferentialStyle(fill=RED)))), FILE, GOLD,
          **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(Rule(type="duplicateValues", dxf=DifferentialStyle(fill=RED)))), FILE, GOLD,
          **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(FormulaRule(formula=["B2>2"], fill=RED),
                                    Rule(type="top10", rank=1, formula=["B2<2"], dxf=GREEN))),
          FILE, book(edit=painted(B3="FF00FF00")), **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(CellIsRule(operator="lessThan", formula=["2"], fill=RED),
                                    Rule(type="aboveAverage", dxf=GREEN))),
          FILE, book(edit=painted(B2="FF00FF00")), **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(FormulaRule(formula=["B2>2"], fill=RED))),
          FILE, book(edit=formatted(FormulaRule(formula=["B2>2"], fill=RED))), **style_rule("bgcolor", "font_color")),
        C(FILE, book(LONG, formatted(FormulaRule(formula=["B2>2"], fill=RED), where="B2:B70")),
          FILE, book(LONG, formatted(FormulaRule(formula=["B2>2"], fill=RED), where="B2:B70")),
          **style_rule("bgcolor")),
        C(FILE, book(LONG, formatted(FormulaRule(formula=["B2>2"], fill=RED), where="B2:B70")),
          FILE, book(LONG, painted(B62="FFFF0000")), **style_rule("bgcolor")),
        C(FILE, book(LONG, formatted(FormulaRule(formula=["B2>2"], fill=RED), where="B2:B61 B62")),
          FILE, book(LONG, painted(B62="FFFF0000")), **style_rule("bgcolor")),
        C(FILE, book(edit=formatted(FormulaRule(formula=["B2>2"], fill=RED))), FILE, GOLD,
          **rules(pair("style", 0, "EI0", props=["bgcolor"]), pair("style", 0, "EI0", props=["bgcolor"]))),
    ],
}


@pytest.mark.parametrize("rule", CASES)
def test_compare_table_agrees_with_osworlds_own(rule, tmp_path, capsys, reference_logging):
    assert_agrees(f"compare_table {rule}", table().compare_table, compare_table, CASES[rule], tmp_path, capsys,
                  suffix=".xlsx")


class Printed:
    """A sheet_print case: each workbook with the CSVs beside it (sheet name -> bytes), as the task's
    postconfig leaves them: OSWorld's function gets the workbooks' paths in a folder holding the CSVs,
    troupe's the workbooks as CachedFiles in a cache folder holding them."""

    def __init__(self, result: bytes, printed: dict[str, bytes], expected: bytes | None,
                 gold_printed: dict[str, bytes] | None = None, **options: Any) -> None:
        self.sides = [("result", result, printed), ("gold", expected, gold_printed or {})]
        self.options = options

    def __repr__(self) -> str:
        return f"Printed{self.sides!r} {self.options!r}"

    def calls(self, folder: Path, index: int) -> tuple[list[Any], list[Any]]:
        cache = {f"case{index}-{side}-{sheet}.csv": data
                 for side, _, csvs in self.sides for sheet, data in csvs.items()}
        for name, data in cache.items():
            (folder / name).write_bytes(data)
        theirs, ours = [], []
        for side, book, _ in self.sides:
            if book is None:
                continue
            name = f"case{index}-{side}.xlsx"
            (folder / name).write_bytes(book)
            theirs.append(str(folder / name))
            ours.append(CachedFile(book, name, cache))
        return theirs, ours


def printed(*options: Any, first: Any = "RNSheet1", second: Any = "ENSheet1", **more: Any) -> dict[str, Any]:
    return rules(*options, pair("sheet_print", first, second, **more))


CSV = b"Name,Score\nAnn,1.50\nBob,2.25\n"
P = Printed
PRINTED = [
    P(GOLD, {"Sheet1": CSV}, GOLD, {"Sheet1": CSV}, **printed()),
    P(GOLD, {"Sheet1": b"Name,Score\nAnn,1.5\nBob,2.25\n"}, GOLD, {"Sheet1": CSV}, **printed()),
    P(GOLD, {"Sheet1": b"Name,Score  \r\n  Ann,1.50\r\nBob,2.25\r\n\r\n \n"}, GOLD, {"Sheet1": CSV}, **printed()),
    P(GOLD, {"Sheet1": b"\nName,Score\nAnn,1.50\nBob,2.25\n"}, GOLD, {"Sheet1": CSV}, **printed()),
    P(GOLD, {"Sheet1": CSV.upper()}, GOLD, {"Sheet1": CSV}, **printed()),
    P(GOLD, {"Sheet1": CSV.upper()}, GOLD, {"Sheet1": CSV}, **printed(ignore_case=True)),
    P(GOLD, {"Sheet1": "Näme,Score\n".encode("latin-1")}, GOLD, {"Sheet1": "Näme,Score\n".encode()}, **printed()),
    P(GOLD, {"Sheet1": "Näme,Score\n".encode("latin-1")}, GOLD, {"Sheet1": "NÃ¤me,Score\n".encode()}, **printed()),
    P(GOLD, {"Sheet1": b"\xef\xbb\xbfName,Score\n"}, GOLD, {"Sheet1": b"Name,Score\n"}, **printed()),
    P(GOLD, {}, GOLD, {"Sheet1": CSV}, **printed()),
    P(GOLD, {"Sheet1": CSV}, GOLD, {}, **printed()),
    P(GOLD, {"Sheet1": CSV}, GOLD, {}, **printed(ignore_case=True)),
    P(GOLD, {"Sheet1": b""}, GOLD, {"Sheet1": b"\n\n"}, **printed()),
    P(GOLD, {"Sheet1": CSV}, GOLD, {"Sheet1": CSV}, **printed(first=0, second="EI0")),
    P(GOLD, {"Sheet1": CSV}, GOLD, {"Sheet1": CSV}, **printed(first="RI0", second="EI3")),
    P(GOLD, {"": CSV}, GOLD, {"": CSV}, **printed(first=4, second="EI4")),
    P(GOLD, {"Sheet1": CSV}, None, **printed()),
    P(GOLD, {"Sheet1": CSV}, None, **printed(second="RNSheet1")),
    P(book(NAMES), {"Sheet2": b"x\n"}, book(NAMES), {"Sheet2": b"x\n"}, **printed(first=1, second="EI1")),
    P(b"not a workbook", {"Sheet1": CSV}, GOLD, {"Sheet1": CSV}, **printed()),
    P(GOLD, {"Sheet1": CSV}, GOLD, {"Sheet1": CSV}, **printed(first="Sheet1")),
    P(GOLD, {"Sheet1": CSV}, GOLD, {"Sheet1": b"other\n"}, **printed(data())),
]


def test_sheet_print_agrees_with_osworlds_own_on_the_csvs_beside_the_workbooks(tmp_path, capsys):
    reference, differences = table().compare_table, []
    for index, case in enumerate(PRINTED):
        theirs, ours = case.calls(tmp_path, index)
        outcomes = outcome(reference, theirs, case.options), outcome(compare_table, ours, case.options)
        if outcomes[0] != outcomes[1]:
            differences.append((case, *outcomes))
    report_parity(capsys, "compare_table sheet_print", len(PRINTED), differences)
