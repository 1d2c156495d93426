"""troupe's compare_table agrees with OSWorld's own (metrics/table.py and its utils.py, imported from
../shared/osworld/reference for tests only) on workbooks built to sit on the edges of every rule type a
runnable task uses: sheet_name, sheet_data (precision, column types, sheets by index, name and past the
end), sheet_fuzzy (each match type and normalization), check_cell (values, styles, merged cells, methods
that fail), freeze, zoom, row_props and data_validation; results and gold files that are no workbook, a
missing gold file, rules missing. Prints the agreement per rule type."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest
from openpyxl import Workbook
from openpyxl.styles import Font, PatternFill
from openpyxl.worksheet.datavalidation import DataValidation

from bench.suites.osworld.tables import compare_table

from tests.osworld_reference import FILE, REFERENCE, Case, assert_agrees, table

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

ROWS = [["Name", "Score"], ["Ann", 1.5], ["Bob", 2.25]]


def book(sheets: dict[str, list[list[Any]]] | None = None, edit: Callable[[Workbook], None] | None = None) -> bytes:
    """An xlsx workbook, its sheets' rows by name (ROWS in "Sheet1" by default), then `edit` applied."""
    workbook = Workbook()
    workbook.remove(workbook.active)
    for name, rows in (sheets or {"Sheet1": ROWS}).items():
        sheet = workbook.create_sheet(name)
        for row in rows:
            sheet.append(row)
    if edit is not None:
        edit(workbook)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


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
}


@pytest.mark.parametrize("rule", CASES)
def test_compare_table_agrees_with_osworlds_own(rule, tmp_path, capsys):
    assert_agrees(f"compare_table {rule}", table().compare_table, compare_table, CASES[rule], tmp_path, capsys,
                  suffix=".xlsx")
