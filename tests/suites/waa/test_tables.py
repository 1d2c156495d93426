"""compare_table on workbooks written here with openpyxl: each rule type in
both directions, sheet naming the schema's way, and malformed input, with
WAA's verdicts (tests/suites/waa/test_verdicts.py has the edge cases)."""

from __future__ import annotations

import io

import openpyxl
import pytest
from openpyxl.chart import BarChart, LineChart, Reference
from openpyxl.formatting.rule import FormulaRule
from openpyxl.pivot.cache import CacheDefinition, CacheField, CacheSource, SharedItems, WorksheetSource
from openpyxl.pivot.table import DataField, Location, PageField, PivotField, RowColField, TableDefinition
from openpyxl.styles import Font, PatternFill
from openpyxl.styles.differential import DifferentialStyle

from bench.suites.waa.metrics import MetricFailed, compare_table
from tests.suites.waa.workbooks import book


def xlsx(rows: list[list], *, sheets: tuple[str, ...] = ("Sheet1",), bold: bool = False, fill: str | None = None,
         chart: type | None = None, title: str | None = None) -> bytes:
    def build(first) -> None:
        first["A1"].font = Font(bold=bold, color="FFFFFFFF")
        if fill:
            first["A1"].fill = PatternFill("solid", fgColor=fill, bgColor=fill)  # both, as LibreOffice writes a fill
        if chart:
            plot = chart()
            plot.add_data(Reference(first, min_col=2, min_row=1, max_row=len(rows)), titles_from_data=True)
            plot.title = title
            first.add_chart(plot, "D2")
    return book(rows, build, sheets=sheets)


ROWS = [["Name", "Score"], ["ann", 3], ["bob", 4.5]]


def score(result, expected, *rules: dict) -> float:
    return compare_table(result, expected, rules=list(rules))


def data(first=0, second="EI0") -> dict:
    return {"type": "sheet_data", "sheet_idx0": first, "sheet_idx1": second}


def test_sheet_data_compares_values_and_ignores_trailing_blanks():
    assert score(xlsx(ROWS + [[None, None]]), xlsx(ROWS), data()) == 1.0
    assert score(xlsx(ROWS[:2] + [["bob", 4.6]]), xlsx(ROWS), data()) == 0.0
    assert score(xlsx(ROWS[:2]), xlsx(ROWS), data()) == 0.0


def test_formulas_compare_by_the_cached_value_not_the_formula_text():
    # openpyxl writes no cached value, as a program that never calculated would:
    # the formula cell reads as empty, so it cannot pass for the gold's number.
    assert score(xlsx(ROWS + [["sum", "=B2+B3"]]), xlsx(ROWS + [["sum", 7.5]]), data()) == 0.0


def test_sheets_by_result_index_result_name_and_expected_name():
    two = xlsx(ROWS, sheets=("First", "Second"))
    assert score(two, xlsx(ROWS), data(0, 1)) == 1.0
    assert score(two, xlsx(ROWS, sheets=("Second",)), data("RNSecond", "ENSecond")) == 1.0
    assert score(two, xlsx(ROWS), data("RNMissing", "EI0")) == 0.0
    assert score(two, xlsx(ROWS), data(5, "EI0")) == 0.0


def test_sheet_names_in_order():
    rule = {"type": "sheet_name"}
    assert score(xlsx(ROWS, sheets=("a", "b")), xlsx(ROWS, sheets=("a", "b")), rule) == 1.0
    assert score(xlsx(ROWS, sheets=("b", "a")), xlsx(ROWS, sheets=("a", "b")), rule) == 0.0


def test_style_compares_each_prop_on_every_cell():
    rule = {"type": "style", "sheet_idx0": 0, "sheet_idx1": "EI0", "props": ["font_bold", "bgcolor"]}
    assert score(xlsx(ROWS, bold=True, fill="FFFF0000"), xlsx(ROWS, bold=True, fill="FFFF0000"), rule) == 1.0
    assert score(xlsx(ROWS, bold=False, fill="FFFF0000"), xlsx(ROWS, bold=True, fill="FFFF0000"), rule) == 0.0
    assert score(xlsx(ROWS, bold=True), xlsx(ROWS, bold=True, fill="FFFF0000"), rule) == 0.0


def test_check_cell_tests_one_cell_against_refs():
    props = {"font_bold": {"method": "eq", "ref": True}, "font_color": {"method": "eq", "ref": "FFFFFFFF"},
             "bgcolor": {"method": "eq", "ref": "FF0000FF"}}
    rule = {"type": "check_cell", "sheet_idx": "RNSheet1", "coordinate": "A1", "props": props}
    gold = xlsx(ROWS)
    assert score(xlsx(ROWS, bold=True, fill="FF0000FF"), gold, rule) == 1.0
    assert score(xlsx(ROWS, bold=True, fill="FF00FF00"), gold, rule) == 0.0
    # openpyxl writes text as inline strings, whose value WAA's read_cell_value reads as nothing
    named = {**rule, "props": {"value": {"method": "eq", "ref": "Name"}}}
    assert score(xlsx(ROWS, bold=True, fill="FF0000FF"), gold, named) == 0.0
    bad = {**rule, "props": {"value": {"method": "like", "ref": "x"}}}
    with pytest.raises(MetricFailed, match="method 'like'"):
        score(xlsx(ROWS), gold, bad)


def test_chart_type_and_title():
    rule = {"type": "chart", "sheet_idx0": 0, "sheet_idx1": "EI0", "chart_props": ["type", "title"]}
    assert score(xlsx(ROWS, chart=BarChart, title="T"), xlsx(ROWS, chart=BarChart, title="T"), rule) == 1.0
    assert score(xlsx(ROWS, chart=LineChart, title="T"), xlsx(ROWS, chart=BarChart, title="T"), rule) == 0.0
    assert score(xlsx(ROWS, chart=BarChart, title="U"), xlsx(ROWS, chart=BarChart, title="T"), rule) == 0.0
    assert score(xlsx(ROWS), xlsx(ROWS, chart=BarChart, title="T"), rule) == 0.0


def pivoted(rows: list[int], page: list[int], summary: str = "sum") -> bytes:
    """ROWS with a pivot table over them: `rows` and `page` index the columns Name, Score."""
    book = openpyxl.load_workbook(io.BytesIO(xlsx(ROWS)))
    sheet = book.active
    source = CacheSource(type="worksheet", worksheetSource=WorksheetSource(ref="A1:B3", sheet=sheet.title))
    axes = {i: "axisRow" for i in rows} | {i: "axisPage" for i in page}
    pivot = TableDefinition(
        name="P", cacheId=1, dataCaption="Values", location=Location(ref="D1:E3", firstHeaderRow=1, firstDataRow=1,
                                                                     firstDataCol=1),
        pivotFields=[PivotField(axis=axes.get(i), dataField=i == 1) for i in range(2)],
        rowFields=[RowColField(x=i) for i in rows], pageFields=[PageField(fld=i) for i in page],
        dataFields=[DataField(name="Score", fld=1, subtotal=summary)])
    pivot.cache = CacheDefinition(cacheSource=source,
                                  cacheFields=[CacheField(name=n, sharedItems=SharedItems()) for n in ROWS[0]])
    sheet._pivots.append(pivot)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_pivot_tables_agree_on_fields_by_name_and_summary():
    rule = {"type": "pivot_table", "sheet_idx0": 0, "sheet_idx1": "EI0",
            "pivot_props": ["col_fields", "filter", "row_fields", "data_fields"]}
    assert score(pivoted([0], []), pivoted([0], []), rule) == 1.0
    assert score(pivoted([], [0]), pivoted([0], []), rule) == 0.0
    assert score(pivoted([0], [], "average"), pivoted([0], []), rule) == 0.0
    assert score(xlsx(ROWS), pivoted([0], []), rule) == 0.0
    assert score(pivoted([0], []), pivoted([0], []), {**rule, "pivot_props": ["layout"]}) == 1.0  # WAA passes over it


def test_every_rule_must_hold():
    assert score(xlsx(ROWS, sheets=("x",)), xlsx(ROWS), data(), {"type": "sheet_name"}) == 0.0


def test_a_missing_or_unreadable_result_scores_zero_and_malformed_rules_name_the_problem():
    assert score(None, xlsx(ROWS), data()) == 0.0
    assert score(b"not a zip", xlsx(ROWS), data()) == 0.0  # WAA: a result it cannot open scores 0
    with pytest.raises(MetricFailed, match="rule type 'freeze' is not supported"):
        score(xlsx(ROWS), xlsx(ROWS), {"type": "freeze"})
    with pytest.raises(MetricFailed, match="sheet_data rule misses the field 'sheet_idx1'"):
        score(xlsx(ROWS), xlsx(ROWS), {"type": "sheet_data", "sheet_idx0": 0})
    with pytest.raises(MetricFailed, match="sheet index 'X1'"):
        score(xlsx(ROWS), xlsx(ROWS), data("X1"))
    with pytest.raises(MetricFailed, match="unknown style props \\['glow'\\]"):
        score(xlsx(ROWS), xlsx(ROWS), {"type": "style", "sheet_idx0": 0, "sheet_idx1": "EI0", "props": ["glow"]})
    with pytest.raises(MetricFailed, match="need a `rules` list"):
        compare_table(xlsx(ROWS), xlsx(ROWS))


def _formatted(formula: str) -> bytes:
    def build(sheet) -> None:
        rule = FormulaRule(formula=[formula])
        rule.dxf = DifferentialStyle(font=Font(color="FFFF0000"))
        sheet.conditional_formatting.add("B2:B3", rule)
    return book(ROWS, build)


def test_conditional_formats_are_evaluated_per_cell_with_absolute_ranges_as_waa_does():
    rule = {"type": "style", "sheet_idx0": 0, "sheet_idx1": "EI0", "props": ["font_color"]}
    red_bob = book(ROWS, lambda sheet: setattr(sheet["B3"], "font", Font(color="FFFF0000")))
    assert score(_formatted("B2>AVERAGE($B$2:$B$3)"), red_bob, rule) == 1.0  # 4.5 is above the mean, 3 is not
    assert score(_formatted("B2>4"), red_bob, rule) == 1.0
    assert score(_formatted("B2>5"), red_bob, rule) == 0.0
    with pytest.raises(MetricFailed, match=r"'B2>\$B\$2': the formula names the absolute cell \$B\$2, which both "
                                           r"references read as the range B2:"):
        score(_formatted("B2>$B$2"), red_bob, rule)
