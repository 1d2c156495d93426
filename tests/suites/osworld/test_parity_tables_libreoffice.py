"""troupe's compare_table agrees with OSWorld's own on workbooks as LibreOffice saves them, which is what
the calc tasks' results and gold files are: workbooks built here with openpyxl (conditional formats of
the kinds tasks use, a chart, a pivot table, number formats) are saved again by a headless LibreOffice
(its own XML: every cfRule attribute written out, its chart and pivot cache parts), and sheet_print reads
the CSV LibreOffice exports with the filter the tasks' postconfig names. One LibreOffice profile for the
module, two conversions. Prints the agreement per rule type."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from openpyxl.chart import LineChart
from openpyxl.formatting.rule import CellIsRule, FormulaRule, Rule
from openpyxl.styles import Font, PatternFill
from openpyxl.styles.differential import DifferentialStyle

from bench.suites.osworld.cached_file import CachedFile
from bench.suites.osworld.tables import compare_table

from tests.osworld_reference import FILE, REFERENCE, Case, assert_agrees, outcome, table
from tests.sheet_objects import chart, pivot, workbook

pytestmark = [pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}"),
              pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed"),
              pytest.mark.timeout(180)]

CSV_FILTER = "csv:Text - txt - csv (StarCalc):44,34,UTF-8,,,,false,true,true,false,false,1"
"""The export the sheet_print tasks' postconfig asks LibreOffice for: the first sheet, values as shown."""
ROWS = [["Name", "Q1", "Q2"], ["ann", 3, 7], ["bob", 4.5, 1.125]]
RED = PatternFill(bgColor="FFFF0000")
GREEN_TEXT = Font(color="FF00FF00")


def _formats(sheet: Any) -> None:
    sheet.conditional_formatting.add("B2:C3", FormulaRule(formula=["B2>4"], fill=RED))
    sheet.conditional_formatting.add("A2:A3", Rule(type="containsText", operator="containsText", text="a",
                                                   formula=['NOT(ISERROR(SEARCH("a",A2)))'],
                                                   dxf=DifferentialStyle(fill=RED)))
    sheet.conditional_formatting.add("C2:C3", CellIsRule(operator="between", formula=["1", "5"], font=GREEN_TEXT))


def _weekend(sheet: Any) -> None:
    """Like the weekend-highlighting task: a formula on the row's date, over the whole table."""
    sheet.conditional_formatting.add("A2:C3", FormulaRule(formula=["$B2>4"], fill=RED))


def _painted(sheet: Any) -> None:
    """What OSWorld makes of _weekend's rule, painted by hand: it calls the formula with each cell's own
    value (text is above any number, as in a spreadsheet), not with column B's."""
    for coordinate in ("A2", "A3", "C2", "B3"):
        sheet[coordinate].fill = PatternFill("solid", fgColor="FFFF0000")


def _two_decimals(sheet: Any) -> None:
    for (cell,) in sheet.iter_rows(min_row=2, min_col=2, max_col=2):
        cell.number_format = "0.00"


BUILDS: dict[str, Callable[[Any], None] | None] = {
    "plain": None, "formats": _formats, "weekend": _weekend, "painted": _painted,
    "chart": chart(title="Sales"), "line": chart(LineChart, title="Sales", legend="b", x_title="Name"),
    "pivot": pivot(), "pivot_columns": pivot(rows=(), columns=(0,)), "decimals": _two_decimals,
}


def _convert(profile: Path, target: str, out: Path, files: list[Path]) -> None:
    subprocess.run(["soffice", f"-env:UserInstallation={profile.as_uri()}", "--headless", "--convert-to", target,
                    "--outdir", str(out), *map(str, files)], check=True, capture_output=True, timeout=150)


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> dict[str, bytes]:
    """Each BUILDS workbook as openpyxl wrote it ("<name>") and as LibreOffice saved it ("lo-<name>"), and
    LibreOffice's CSV export of each saved one ("lo-<name>.csv")."""
    folder = tmp_path_factory.mktemp("libreoffice")
    built, resaved, printed = folder / "built", folder / "saved", folder / "printed"
    built.mkdir()
    files = {name: workbook({"Sheet1": ROWS}, build and (lambda made, build=build: build(made["Sheet1"])))
             for name, build in BUILDS.items()}
    for name, data in files.items():
        (built / f"{name}.xlsx").write_bytes(data)
    _convert(folder / "profile", "xlsx", resaved, sorted(built.glob("*.xlsx")))
    _convert(folder / "profile", CSV_FILTER, printed, sorted(resaved.glob("*.xlsx")))
    for name in BUILDS:
        files[f"lo-{name}"] = (resaved / f"{name}.xlsx").read_bytes()
        files[f"lo-{name}.csv"] = (printed / f"{name}-Sheet1.csv").read_bytes()
    return files


def pair(kind: str, **more: Any) -> dict[str, Any]:
    return {"rules": [{"type": kind, "sheet_idx0": 0, "sheet_idx1": "EI0", **more}]}


TASK_PIVOT = ["col_fields", "filter", "row_fields", "data_fields"]
COMPARED: dict[str, list[tuple[str, str, dict[str, Any]]]] = {
    "style": [(mine, gold, pair("style", props=props))
              for mine, gold in (("lo-formats", "lo-formats"), ("lo-formats", "formats"), ("lo-formats", "lo-plain"),
                                 ("lo-weekend", "lo-weekend"), ("lo-weekend", "lo-painted"), ("lo-weekend", "lo-plain"),
                                 ("lo-painted", "painted"))
              for props in (["bgcolor"], ["font_color"])],
    "chart": [(mine, gold, pair("chart", chart_props=props))
              for mine, gold in (("lo-chart", "lo-chart"), ("lo-chart", "chart"), ("lo-line", "lo-chart"),
                                 ("lo-line", "line"), ("lo-plain", "lo-chart"))
              for props in (["type", "title"], ["legend", "xtitle", "ytitle"])],
    "pivot_table": [(mine, gold, pair("pivot_table", pivot_props=props))
                    for mine, gold in (("lo-pivot", "lo-pivot"), ("lo-pivot", "pivot"), ("lo-pivot_columns", "lo-pivot"),
                                       ("lo-pivot_columns", "pivot_columns"), ("lo-plain", "lo-pivot"))
                    for props in (TASK_PIVOT, ["selection", "ordered", "name", "location"])],
    "sheet_data": [(mine, gold, pair("sheet_data"))
                   for mine, gold in (("lo-decimals", "lo-plain"), ("lo-decimals", "decimals"), ("lo-plain", "plain"))],
}


@pytest.mark.parametrize("rule", COMPARED)
def test_compare_table_agrees_with_osworlds_own_on_workbooks_libreoffice_saved(rule, saved, tmp_path, capsys,
                                                                                reference_logging):
    cases = [Case(FILE, saved[mine], FILE, saved[gold], **options) for mine, gold, options in COMPARED[rule]]
    assert_agrees(f"compare_table {rule} (LibreOffice's files)", table().compare_table, compare_table, cases,
                  tmp_path, capsys, suffix=".xlsx")


PRINTED = [("lo-decimals", "lo-decimals", {}), ("lo-decimals", "lo-plain", {}), ("lo-plain", "lo-formats", {}),
           ("lo-decimals", "lo-plain", {"ignore_case": True})]


def test_sheet_print_agrees_with_osworlds_own_on_libreoffices_csv_exports(saved, tmp_path, capsys):
    """The CSVs are LibreOffice's own exports, as the tasks' postconfig makes them."""
    reference, differences = table().compare_table, []
    for index, (mine, gold, more) in enumerate(PRINTED):
        options = pair("sheet_print", **more)
        options["rules"][0].update(sheet_idx0="RNSheet1", sheet_idx1="ENSheet1")
        folder = tmp_path / f"case{index}"
        folder.mkdir()
        cache = {f"{side}-Sheet1.csv": saved[f"{name}.csv"] for side, name in (("result", mine), ("gold", gold))}
        for name, data in cache.items():
            (folder / name).write_bytes(data)
        for side, name in (("result", mine), ("gold", gold)):
            (folder / f"{side}.xlsx").write_bytes(saved[name])
        theirs = outcome(reference, [str(folder / "result.xlsx"), str(folder / "gold.xlsx")], options)
        ours = outcome(compare_table, [CachedFile(saved[mine], "result.xlsx", cache),
                                       CachedFile(saved[gold], "gold.xlsx", cache)], options)
        if theirs != ours:
            differences.append((mine, gold, more, theirs, ours))
    assert saved["lo-decimals.csv"].splitlines()[1:] == [b"ann,3.00,7", b"bob,4.50,1.125"]
    with capsys.disabled():
        print(f"\nparity compare_table sheet_print (LibreOffice's CSVs): {len(PRINTED) - len(differences)}/"
              f"{len(PRINTED)} cases agree with OSWorld's function")
    assert not differences
