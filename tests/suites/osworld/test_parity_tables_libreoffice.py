"""troupe's compare_table agrees with OSWorld's own on workbooks as LibreOffice saves them, which is what
the calc tasks' results and gold files are: workbooks built here with openpyxl (conditional formats of
the kinds tasks use, a chart, a pivot table, number formats) are saved again by a headless LibreOffice
(its own XML: every cfRule attribute written out, its chart and pivot cache parts), and sheet_print reads
the CSV LibreOffice exports with the filter the tasks' postconfig names. One LibreOffice profile for the
module, two conversions. Prints the agreement per rule type. The 12 calc tasks scored by chart,
pivot_table or style run their own evaluator on such files: a solved workbook scores 1 and the untouched
one 0, in OSWorld's function and troupe's checker alike."""

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

from bench.formats.task_folder import read_task
from bench.suites.osworld.cached_file import CachedFile
from bench.suites.osworld.checker import OSWorldChecker
from protocols import Evaluate
from bench.suites.osworld.tables import compare_table

from tests.osworld_reference import EXAMPLES, FILE, REFERENCE, Case, assert_agrees, outcome, report_parity, table
from tests.sheet_objects import chart, pivot, workbook

pytestmark = [pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}"),
              pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed"),
              pytest.mark.timeout(180)]

CSV_FILTER = "csv:Text - txt - csv (StarCalc):44,34,UTF-8,,,,false,true,true,false,false,1"
"""The export the sheet_print tasks' postconfig asks LibreOffice for: the first sheet, values as shown."""
ROWS = [["Name", "Q1", "Q2"], ["ann", 3, 7], ["bob", 4.5, 1.125]]
RED = PatternFill(bgColor="FFFF0000")
GREEN_TEXT = Font(color="FF00FF00")


def on(name: str, build: Callable[[Any], None]) -> Callable[[Any], None]:
    """An edit of the workbook putting `build` on its sheet `name`."""
    return lambda made: build(made[name])


def _formats(sheet: Any) -> None:
    sheet.conditional_formatting.add("B2:C3", FormulaRule(formula=["B2>4"], fill=RED))
    sheet.conditional_formatting.add("A2:A3", Rule(type="containsText", operator="containsText", text="a",
                                                   formula=['NOT(ISERROR(SEARCH("a",A2)))'],
                                                   dxf=DifferentialStyle(fill=RED)))
    sheet.conditional_formatting.add("C2:C3", CellIsRule(operator="between", formula=["1", "5"], font=GREEN_TEXT))


def _weekend(sheet: Any) -> None:
    """Like the weekend-highlighting task: a formula on the row's date, over the whole table."""
    sheet.conditional_formatting.add("A2:C3", FormulaRule(formula=["$B2>4"], fill=RED))


def _red_text(sheet: Any) -> None:
    """Like the period-rate task: the numbers below a threshold in red."""
    sheet.conditional_formatting.add("B2:C3", CellIsRule(operator="lessThan", formula=["4"],
                                                         font=Font(color="FFFF0000")))


def _painted(sheet: Any) -> None:
    """What OSWorld makes of _weekend's rule, painted by hand: it calls the formula with each cell's own
    value (text is above any number, as in a spreadsheet), not with column B's."""
    for coordinate in ("A2", "A3", "C2", "B3"):
        sheet[coordinate].fill = PatternFill("solid", fgColor="FFFF0000")


def _titled(sheet: Any) -> None:
    """Like the demographic-profile task's title: white bold text on blue in A1."""
    sheet["A1"] = "Demographic Profile"
    sheet["A1"].fill = PatternFill("solid", fgColor="FF0000FF")
    sheet["A1"].font = Font(bold=True, color="FFFFFFFF")


def _two_decimals(sheet: Any) -> None:
    for (cell,) in sheet.iter_rows(min_row=2, min_col=2, max_col=2):
        cell.number_format = "0.00"


def _both(*edits: Callable[[Any], None]) -> Callable[[Any], None]:
    def edit(made: Any) -> None:
        for one in edits:
            one(made)
    return edit


BUILDS: dict[str, Callable[[Any], None] | None] = {
    "plain": None, "formats": on("Sheet1", _formats), "weekend": on("Sheet1", _weekend),
    "red_text": on("Sheet1", _red_text), "painted": on("Sheet1", _painted),
    "chart": on("Sheet1", chart(title="Sales")), "columns": on("Sheet1", chart(title="Sales", barDir="col")),
    "line": on("Sheet1", chart(LineChart, title="Sales", legend="b", x_title="Name")),
    "chart2": on("Sheet2", chart(title="Sales")),
    "pivot": on("Sheet1", pivot()), "pivot_columns": on("Sheet1", pivot(rows=(), columns=(0,))),
    "pivot2": on("Sheet2", pivot(source="Sheet1")),
    "pivot2_titled": _both(on("Sheet2", pivot(source="Sheet1")), on("Sheet2", _titled)),
    "decimals": on("Sheet1", _two_decimals),
}
"""Workbooks of two sheets holding ROWS, each edited so."""


def _convert(profile: Path, target: str, out: Path, files: list[Path]) -> None:
    subprocess.run(["soffice", f"-env:UserInstallation={profile.as_uri()}", "--headless", "--convert-to", target,
                    "--outdir", str(out), *map(str, files)], check=True, capture_output=True, timeout=150)


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> dict[str, bytes]:
    """Each BUILDS workbook as openpyxl wrote it ("<name>") and as LibreOffice saved it ("lo-<name>"), and
    LibreOffice's CSV export of the saved ones PRINTED compares ("lo-<name>.csv")."""
    folder = tmp_path_factory.mktemp("libreoffice")
    built, resaved, printed = folder / "built", folder / "saved", folder / "printed"
    built.mkdir()
    files = {name: workbook({"Sheet1": ROWS, "Sheet2": ROWS}, build) for name, build in BUILDS.items()}
    for name, data in files.items():
        (built / f"{name}.xlsx").write_bytes(data)
    _convert(folder / "profile", "xlsx", resaved, sorted(built.glob("*.xlsx")))
    exported = sorted({name.removeprefix("lo-") for case in PRINTED for name in case[:2]})
    _convert(folder / "profile", CSV_FILTER, printed, [resaved / f"{name}.xlsx" for name in exported])
    for name in BUILDS:
        files[f"lo-{name}"] = (resaved / f"{name}.xlsx").read_bytes()
    for name in exported:
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
                    for mine, gold in (("lo-pivot", "lo-pivot"), ("lo-pivot", "pivot"),
                                       ("lo-pivot_columns", "lo-pivot"), ("lo-pivot_columns", "pivot_columns"),
                                       ("lo-plain", "lo-pivot"))
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
    report_parity(capsys, "compare_table sheet_print (LibreOffice's CSVs)", len(PRINTED), differences)


SOLVED = {"51719eea": "pivot2", "1954cced": "pivot2", "535364ea": "pivot2", "1de60575": "pivot2",
          "30e3e107": "pivot2_titled", "12382c62": "chart2", "0326d92d": "chart", "0a2e43bf": "chart",
          "3a7c8185": "chart", "347ef137": "columns", "8b1ce5f2": "weekend", "21ab7b40": "red_text"}
"""Each calc task scored by chart, pivot_table or style, and the workbook standing for its solved state."""


def _task(prefix: str) -> Any:
    (path,) = (EXAMPLES / "libreoffice_calc").glob(f"{prefix}-*.json")
    return read_task(path, "libreoffice_calc")


async def _verdicts(task: Any, result: bytes, gold: bytes, folder: Path) -> tuple[Any, Any]:
    """OSWorld's compare_table on the files, and troupe's checker on them as the getters hand them over."""
    (folder / "result.xlsx").write_bytes(result)
    (folder / "gold.xlsx").write_bytes(gold)
    spec = task.evaluation_spec
    theirs = outcome(table().compare_table, [str(folder / "result.xlsx"), str(folder / "gold.xlsx")], spec["options"])
    try:
        verdict = await OSWorldChecker().check(Evaluate(task=task, episode_id="e", steps=(),
                                                        vm_state={"result": [result], "expected": [gold]}))
    except Exception:  # noqa: BLE001 - a raise is an outcome to agree on
        return theirs, "raises"
    return theirs, verdict.score


@pytest.mark.anyio
async def test_each_tasks_own_evaluator_scores_a_solved_workbook_1_and_the_untouched_one_0(saved, tmp_path,
                                                                                          reference_logging):
    found = {}
    for prefix, solved in SOLVED.items():
        task = _task(prefix)
        for state, result in (("solved", saved[f"lo-{solved}"]), ("untouched", saved["lo-plain"])):
            folder = tmp_path / prefix / state
            folder.mkdir(parents=True)
            found[prefix, state] = await _verdicts(task, result, saved[f"lo-{solved}"], folder)
    assert found == {(prefix, state): (score, score) for prefix in SOLVED
                     for state, score in (("solved", 1.0), ("untouched", 0.0))}
