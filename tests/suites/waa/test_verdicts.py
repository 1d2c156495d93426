"""The WAA verdict equals WAA's own evaluator's for the same final state.

Each test builds the files (or the server answers) that sit exactly on a
place where troupe once scored differently from WAA's client and metric
functions, and asserts WAA's verdict: a setup step the server refuses, a
download on a VM without internet, the action prefix, an empty file in a
folder, line endings, JSON comments, and the inputs on which WAA's own
metric raises (an evaluation error unless the run names the fix).
"""

from __future__ import annotations

import email.parser
import email.policy
import io
import json
import re
import subprocess
import sys
import zipfile
from typing import Any, Callable

import docx
import docx.document
import pytest
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Pt
import openpyxl
from openpyxl.chart import BarChart, Reference
from openpyxl.drawing.text import RegularTextRun
from openpyxl.formatting.rule import CellIsRule, FormulaRule
from openpyxl.pivot.cache import CacheDefinition, CacheField, CacheSource, SharedItems, WorksheetSource
from openpyxl.pivot.table import DataField, FieldItem, Location, PivotField, RowColField, TableDefinition
from openpyxl.styles import Font, PatternFill
from openpyxl.styles.differential import DifferentialStyle

from actors.backends.waa.client import Retry, WAAClient
from actors.backends.waa.commands import command
from actors.backends.waa.server.pyautogui_script import parse
from bench.suites.waa.checker import WAAChecker
from bench.suites.waa.errors import MetricFailed, ReferenceCrash
from bench.suites.waa.getters import resolve
from bench.suites.waa.metrics import (
    METRICS, check_json_keybindings, check_json_settings, compare_table, compare_text_file,
)
from bench.suites.waa.node import WAATaskSteps
from protocols import Click, Evaluate, Point, StepRecord, Task
from runtime.errors import Refused

from tests.loop_watch import LoopWatch
from tests.waa_servers import ROOT, Behaviour, StandIn, start_linux_server, stop

WAA = ROOT.parent / "shared" / "waa" / "evaluation_examples_windows"


def evaluate(spec: dict, state: dict) -> Evaluate:
    task = Task(task_id="d/t", instruction="-", evaluation_spec=spec)
    steps = (StepRecord(episode_id="e", step=1, action=Click(point=Point(1, 1))),)
    return Evaluate(task=task, episode_id="e", steps=steps, vm_state=state)


def client_for(server: StandIn) -> WAAClient:
    return WAAClient(server.url, retry=Retry(attempts=2, backoff=0.01))


# --- setup and postconfig: WAA logs a refused step and goes on ------------------------------------

@pytest.mark.anyio
async def test_a_postconfig_step_the_server_refuses_is_recorded_and_the_metric_still_judges_the_file():
    """notepad/366de66e: the agent never created draft.txt, so postconfig's open_file answers 404.
    WAA logs it and scores the missing file 0; troupe used to raise and file an environment error."""
    behaviour = Behaviour(refusing={"/setup/open_file": (404, b'{"error": "File not found"}'),
                                    "/setup/activate_window": (404, b'{"error": "Window not found"}')})
    spec = {"postconfig": [{"type": "open", "parameters": {"path": "C:\\Users\\Docker\\draft.txt"}},
                           {"type": "activate_window", "parameters": {"window_name": "draft - Notepad"}}],
            "func": "compare_text_file",
            "result": {"type": "vm_file", "path": "C:\\Users\\Docker\\draft.txt"},
            "expected": {"type": "rule", "rules": "hello"}}
    with StandIn(behaviour) as server:
        client = client_for(server)
        state = await WAATaskSteps().inspect(client, spec)
        await client.aclose()
    assert state["result"] == [None] and state["errors"] == []
    assert state["setup_errors"] == [
        'postconfig[0] (open) failed: /setup/open_file: HTTP 404: {"error": "File not found"}',
        'postconfig[1] (activate_window) failed: /setup/activate_window: HTTP 404: {"error": "Window not found"}',
    ]
    verdict = await WAAChecker().check(evaluate(spec, state))
    assert verdict.score == 0.0 and not verdict.success
    assert verdict.reason.startswith("compare_text_file=0; setup steps that failed (WAA logs these and goes on): "
                                     "postconfig[0] (open) failed")


@pytest.mark.anyio
async def test_a_config_step_failure_is_kept_until_evaluation_and_a_later_episode_starts_clean():
    behaviour = Behaviour(refusing={"/setup/launch": (400, b'{"message": "no such program"}')})
    task = Task(task_id="d/t", instruction="-", raw_config={"config": [
        {"type": "launch", "parameters": {"command": ["nothing.exe"]}}]})
    steps = WAATaskSteps()
    with StandIn(behaviour) as server:
        client = client_for(server)
        await steps.prepare(client, task)
        first = await steps.inspect(client, {})
        await steps.prepare(client, Task(task_id="d/u", instruction="-", raw_config={"config": []}))
        second = await steps.inspect(client, {})
        await client.aclose()
    assert first["setup_errors"] == ['config[0] (launch) failed: /setup/launch: HTTP 400: {"message": "no such program"}']
    assert second["setup_errors"] == []


# --- downloads: the host fetches, the VM receives a multipart /setup/upload ----------------------

def _multipart(body: bytes) -> dict[str, bytes | str]:
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: multipart/form-data; boundary=" + body.split(b"\r\n", 1)[0][2:] + b"\r\n\r\n" + body)
    return {part.get_param("name", header="content-disposition"):
            part.get_payload(decode=True) if part.get_filename() else part.get_content()
            for part in message.iter_parts()}


@pytest.mark.anyio
async def test_a_download_is_fetched_by_the_host_once_per_run_and_uploaded_to_the_vm():
    behaviour = Behaviour(files={"report.docx": b"PK\x03\x04 the gold"})
    with StandIn(behaviour) as server:
        url = f"{server.url}/files/report.docx"
        task = Task(task_id="d/t", instruction="-", raw_config={"config": [
            {"type": "download", "parameters": {"files": [{"url": url, "path": "C:\\Users\\Docker\\report.docx"}]}}]})
        steps, client = WAATaskSteps(), client_for(server)
        await steps.prepare(client, task)
        await steps.prepare(client, task)
        await client.aclose()
    assert "POST /setup/download_file" not in " ".join(behaviour.requests)
    assert behaviour.requests.count("GET /files/report.docx") == 1
    assert len(behaviour.uploads) == 2
    form = _multipart(behaviour.uploads[0])
    assert form == {"file_path": "C:\\Users\\Docker\\report.docx", "file_data": b"PK\x03\x04 the gold"}


# --- the action prefix ------------------------------------------------------------------------------

def test_actions_carry_waas_failsafe_off_prefix_and_the_linux_server_reads_it():
    line = command("pyautogui.click(button='left', clicks=1)")
    assert line[:2] == ["python", "-c"]
    assert line[2].startswith("import pyautogui; import time; pyautogui.FAILSAFE = False; ")
    assert parse(line[2]) == [("click", "left", 1)]


# --- vm_file_exists_in_vm_folder reads the file's content -------------------------------------------

@pytest.mark.anyio
async def test_an_empty_file_in_the_folder_scores_0_as_in_waa():
    behaviour = Behaviour(files={"C:\\Users\\Docker\\Desktop\\notes.txt": b"",
                                 "C:\\Users\\Docker\\Desktop\\full.txt": b"x"})
    with StandIn(behaviour) as server:
        client = client_for(server)
        empty = await resolve(client, {"type": "vm_file_exists_in_vm_folder",
                                       "folder_name": "C:\\Users\\Docker\\Desktop", "file_name": "notes.txt"})
        full = await resolve(client, {"type": "vm_file_exists_in_vm_folder",
                                      "folder_name": "C:\\Users\\Docker\\Desktop", "file_name": "full.txt"})
        absent = await resolve(client, {"type": "vm_file_exists_in_vm_folder",
                                        "folder_name": "C:\\Users\\Docker\\Desktop", "file_name": "none.txt"})
        await client.aclose()
    assert (empty, full, absent) == (0.0, 1.0, 0.0)


# --- compare_text_file: text mode ------------------------------------------------------------------

def test_compare_text_file_reads_line_endings_as_text_mode_does():
    assert compare_text_file(b"one\r\ntwo\r\n", b"one\ntwo\n") == 1.0
    assert compare_text_file(b"one\rtwo", b"one\ntwo") == 1.0
    assert compare_text_file(b"", b"") == 1.0
    assert compare_text_file(b"one\ttwo", b"one two", ignore_blanks=True) == 1.0


@pytest.mark.anyio
async def test_a_latin1_text_file_is_an_evaluation_error_as_in_waa_unless_the_fix_is_named():
    spec = {"func": "compare_text_file", "result": {}, "expected": {}}
    state = {"result": [b"caf\xe9\r\n"], "expected": [b"caf\xe9\n"], "errors": []}
    with pytest.raises(ReferenceCrash, match="not UTF-8"):
        compare_text_file(*state["result"], *state["expected"])
    with pytest.raises(Refused, match="WAA's evaluator raises here too; the fix 'text-encoding' would score 1"):
        await WAAChecker().check(evaluate(spec, state))
    fixed = await WAAChecker(fixes=["text-encoding"]).check(evaluate(spec, state))
    assert fixed.success and "fix 'text-encoding' used" in fixed.reason


def test_an_unknown_fix_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="unknown WAA fixes \\['lenient'\\] \\(known: \\["):
        WAAChecker(fixes=["lenient"])


# --- VS Code's JSON files ----------------------------------------------------------------------------

def test_check_json_settings_raises_where_waas_json_load_does_and_the_fix_reads_jsonc():
    rule = {"expected": {"editor.fontSize": 14}}
    assert check_json_settings(b'{"editor.fontSize": 14}', rule) == 1.0
    for text, fixed in [(b'{\n  // size\n  "editor.fontSize": 14\n}', 1.0),
                        (b'{"editor.fontSize": 14,}', 1.0), (b"", 0.0)]:
        with pytest.raises(ReferenceCrash) as caught:
            check_json_settings(text, rule)
        assert caught.value.fix == "jsonc" and caught.value.fixed == fixed


def test_check_json_keybindings_wants_the_whole_entry_and_skips_only_the_first_line():
    wanted = {"expected": {"key": "ctrl+j", "command": "workbench.action.togglePanel"}}
    entry = '{"key": "ctrl+j", "command": "workbench.action.togglePanel"'
    assert check_json_keybindings(f"// first line\n[{entry}}}]".encode(), wanted) == 1.0
    assert check_json_keybindings(f'[{entry}, "when": "editorFocus"}}]'.encode(), wanted) == 0.0
    assert check_json_keybindings(f'[{entry}, "args": {{"x": 1}}}}]'.encode(), wanted) == 0.0
    assert check_json_keybindings(f"// first\n// second\n[{entry}}}]".encode(), wanted) == 0.0
    assert check_json_keybindings(json.dumps([wanted["expected"]]).encode(), wanted) == 1.0


# --- Writer ------------------------------------------------------------------------------------------

def _saved(document) -> bytes:
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _paragraphs(*texts: str) -> docx.document.Document:
    document = docx.Document()
    for text in texts:
        document.add_paragraph(text)
    return document


def test_compare_docx_files_on_line_breaks_order_and_corrupt_files():
    soft = _paragraphs("one")
    soft.paragraphs[0].add_run().add_break()
    soft.paragraphs[0].add_run("two")
    two = _saved(_paragraphs("one", "two"))
    assert METRICS["compare_docx_files"](_saved(soft), two, ignore_blanks=False) == 0.0
    assert METRICS["compare_docx_files"](_saved(soft), two) == 1.0
    assert METRICS["compare_docx_files"](_saved(_paragraphs("two", "one")), two, ignore_order=True) == 1.0
    assert METRICS["compare_docx_files"](b"PK\x03\x04 broken", two) == 0.0


def test_writer_checks_follow_waas_reading_of_each_property():
    metric = METRICS
    gold = _paragraphs("H")
    for text, sub in [("2", True), ("O and CH", False), ("4", True)]:
        gold.paragraphs[0].add_run(text).font.subscript = sub
    mine = _paragraphs("H")
    mine.paragraphs[0].add_run("2").font.subscript = True
    mine.paragraphs[0].add_run("O and CH4")
    assert metric["compare_subscript_contains"](_saved(mine), _saved(gold)) == 1.0  # one aligned pair is enough

    struck = _paragraphs("changed", "")
    struck.paragraphs[1].add_run("drop").font.strike = True
    assert metric["evaluate_strike_through_last_paragraph"](_saved(struck), _saved(_paragraphs("kept", "drop"))) == 0.0

    centred_by_style = docx.Document()
    centred_by_style.styles["Title"].paragraph_format.alignment = WD_ALIGN_PARAGRAPH.CENTER
    centred_by_style.add_paragraph("Heading", style="Title")
    assert metric["is_first_line_centered"](_saved(centred_by_style)) == 0.0

    spaced = _paragraphs("x")
    spaced.paragraphs[0].runs[0].font.size = Pt(14)
    spaced.paragraphs[0].runs[0].italic = True
    spaced.paragraphs[0].add_run(" ").italic = True
    assert metric["check_italic_font_size_14"](_saved(spaced), _saved(_paragraphs("x "))) == 0.0

    def table(value: str) -> bytes:
        document = docx.Document()
        document.add_table(rows=1, cols=1).cell(0, 0).text = value
        return _saved(document)

    assert metric["compare_docx_tables"](table("  42 "), table("42")) == 1.0


def _highlighted(*runs: tuple[str, str | None]) -> bytes:
    """A .docx whose runs carry `w:highlight w:val=...` (None: no highlight element)."""
    document = _paragraphs("")
    for text, value in runs:
        run = document.paragraphs[0].add_run(text)
        if value is not None:
            mark = OxmlElement("w:highlight")
            mark.set(qn("w:val"), value)
            run._r.get_or_add_rPr().append(mark)
    return _saved(document)


def test_highlight_none_scores_as_waa_instead_of_crashing_the_checker():
    gold = _highlighted(("plain ", None), ("marked", "yellow"))
    assert METRICS["compare_highlighted_text"](_highlighted(("plain ", "none"), ("marked", "yellow")), gold) == 1.0
    assert METRICS["compare_highlighted_text"](_highlighted(("plain ", "yellow"), ("marked", "none")), gold) == 0.0
    twice = _highlighted(("marked", "yellow"), ("marked", "green"))
    assert METRICS["compare_highlighted_text"](twice, gold) == 1.0  # a set of texts, as WAA compares them


@pytest.mark.anyio
async def test_no_metric_exception_escapes_the_checker():
    spec = {"func": "compare_highlighted_text", "result": {}, "expected": {}}
    state = {"result": [b"not a zip"], "expected": [_highlighted(("a", "yellow"))], "errors": []}
    with pytest.raises(Refused, match="the result file is not a .docx"):
        await WAAChecker().check(evaluate(spec, state))
    fixed = await WAAChecker(fixes=["missing-file"]).check(evaluate(spec, state))
    assert fixed.score == 0.0 and "fix 'missing-file' used" in fixed.reason
    broken = {"func": "exact_match", "result": {}, "expected": {}}
    with pytest.raises(Refused, match="harness error: metric exact_match raised"):
        await WAAChecker().check(evaluate(broken, {"result": [1], "expected": [Unequal()], "errors": []}))


class Unequal(dict):
    """A rule whose comparison raises, standing for any bug a metric may hit."""

    def __getitem__(self, key):
        raise RuntimeError("boom")

    def __contains__(self, key):
        return True


# --- compare_table -----------------------------------------------------------------------------------

def _book(rows: list[list], build: Callable[[Any], None] | None = None) -> bytes:
    book = openpyxl.Workbook()
    for row in rows:
        book.active.append(row)
    if build is not None:
        build(book.active)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


TABLE = [["Name", "Q1", "Q2"], ["ann", 3, 7], ["bob", 4.5, 1]]


def _table(result: bytes, expected: bytes, **rule) -> float:
    return compare_table(result, expected, rules=[{"sheet_idx0": 0, "sheet_idx1": "EI0", **rule}])


def test_sheet_data_rounds_to_four_decimals_as_waa_does():
    close = [TABLE[0], ["ann", 3.00001, 7], TABLE[2]]
    assert _table(_book(close), _book(TABLE), type="sheet_data") == 1.0
    apart = [TABLE[0], ["ann", 3.001, 7], TABLE[2]]
    assert _table(_book(apart), _book(TABLE), type="sheet_data") == 0.0
    assert _table(_book(apart), _book(TABLE), type="sheet_data", precision=2) == 1.0


def _bars(*columns: int, title: list[str] | None = None) -> Callable[[Any], None]:
    def build(sheet: Any) -> None:
        for column in columns:
            chart = BarChart()
            chart.add_data(Reference(sheet, min_col=column, min_row=1, max_row=3), titles_from_data=True)
            if title is not None:
                chart.title = "".join(title)
                chart.title.tx.rich.p[0].r = [RegularTextRun(t=t) for t in title]
            sheet.add_chart(chart, "E2")
    return build


def test_charts_are_keyed_by_their_series_references():
    props = {"type": "chart", "chart_props": ["type"]}
    assert _table(_book(TABLE, _bars(2)), _book(TABLE, _bars(3)), **props) == 0.0
    assert _table(_book(TABLE, _bars(2, 3)), _book(TABLE, _bars(3, 2)), **props) == 1.0  # swapped
    assert _table(_book(TABLE, _bars(2, 2)), _book(TABLE, _bars(2)), **props) == 1.0  # duplicated
    titled = {"type": "chart", "chart_props": ["title"]}
    assert _table(_book(TABLE, _bars(2, title=["Sales", " 2024"])), _book(TABLE, _bars(2, title=["Sales"])),
                  **titled) == 1.0  # only the title's first run


def _pivot(ref: str = "A1:C3", show_as: str = "normal", hidden: bool = False, row: int = 0) -> Callable[[Any], None]:
    def build(sheet: Any) -> None:
        items = [FieldItem(x=0), FieldItem(x=1, h=hidden or None)]
        pivot = TableDefinition(
            name="P", cacheId=1, dataCaption="Values",
            location=Location(ref="E1:F3", firstHeaderRow=1, firstDataRow=1, firstDataCol=1),
            pivotFields=[PivotField(axis="axisRow", items=items), PivotField(dataField=True), PivotField()],
            rowFields=[RowColField(x=row)], dataFields=[DataField(name="Q1", fld=1, subtotal="sum", showDataAs=show_as)])
        pivot.cache = CacheDefinition(
            cacheSource=CacheSource(type="worksheet", worksheetSource=WorksheetSource(ref=ref, sheet=sheet.title)),
            cacheFields=[CacheField(name=n, sharedItems=SharedItems()) for n in TABLE[0]])
        sheet._pivots.append(pivot)
    return build


def test_pivot_tables_keep_waas_source_range_show_data_as_and_item_selection():
    rule = {"type": "pivot_table", "pivot_props": ["col_fields", "filter", "row_fields", "data_fields"]}
    gold = _book(TABLE, _pivot())
    assert _table(_book(TABLE, _pivot()), gold, **rule) == 1.0
    assert _table(_book(TABLE, _pivot(show_as="percentOfTotal")), gold, **rule) == 0.0
    assert _table(_book(TABLE, _pivot(ref="A1:C2")), gold, **rule) == 0.0
    assert _table(_book(TABLE, _pivot(hidden=True)), gold, **rule) == 0.0
    assert _table(_book(TABLE, _pivot(row=2)), gold, **rule) == 0.0  # fields by index: reordered columns differ


def _filled(fg: str | None = None, bg: str | None = None, width: int = 3) -> Callable[[Any], None]:
    def build(sheet: Any) -> None:
        sheet["B2"].fill = PatternFill("solid", fgColor=fg or "00000000", bgColor=bg or "00000000")
        if width > 3:
            sheet.cell(row=1, column=width).font = Font(bold=True)
    return build


def test_style_reads_bgcolor_from_bg_color_and_compares_the_used_range():
    rule = {"type": "style", "props": ["bgcolor"]}
    assert _table(_book(TABLE, _filled(fg="FFFF0000")), _book(TABLE), **rule) == 1.0  # bgcolor never sees fgColor
    assert _table(_book(TABLE, _filled(fg="FFFF0000")), _book(TABLE), type="style", props=["fgcolor"]) == 0.0
    assert _table(_book(TABLE, _filled(bg="FFFF0000")), _book(TABLE), **rule) == 0.0
    assert _table(_book(TABLE, _filled(width=5)), _book(TABLE, _filled()), **rule) == 0.0  # an extra column


def test_style_evaluates_expression_conditional_formats_as_waa_and_refuses_other_kinds():
    def formatted(rule: Any) -> Callable[[Any], None]:
        return lambda sheet: sheet.conditional_formatting.add("B2:B3", rule)

    green = DifferentialStyle(font=Font(color="FF00FF00"))
    expression = FormulaRule(formula=["B2>4"])
    expression.dxf = green
    direct = _book(TABLE, lambda sheet: setattr(sheet["B3"], "font", Font(color="FF00FF00")))
    assert _table(_book(TABLE, formatted(expression)), direct, type="style", props=["font_color"]) == 1.0
    assert _table(_book(TABLE, formatted(expression)), _book(TABLE), type="style", props=["font_color"]) == 0.0
    cell_is = CellIsRule(operator="greaterThan", formula=["4"], font=Font(color="FF00FF00"))
    with pytest.raises(MetricFailed, match="conditional format of type 'cellIs'"):
        _table(_book(TABLE, formatted(cell_is)), _book(TABLE), type="style", props=["font_color"])


def test_check_cell_reads_values_from_the_xml_and_knows_approx():
    def cell(props: dict, build: Callable[[Any], None] | None = None, rows: list[list] = TABLE) -> float:
        return compare_table(_book(rows, build), _book(TABLE), rules=[
            {"type": "check_cell", "sheet_idx": "RNSheet", "coordinate": "B2", "props": props}])

    assert cell({"value": {"method": "approx:0.01", "ref": 3.005}}) == 1.0
    assert cell({"value": {"method": "eq", "ref": 3.0}}) == 1.0
    assert cell({"bgcolor": {"method": "eq", "ref": "FFFF0000"}}, _filled(fg="FFFF0000")) == 0.0
    assert cell({"value": {"method": "eq", "ref": True}}, rows=[TABLE[0], ["ann", True, 7]]) == 0.0  # no bool
    inline = _with_cell(_book(TABLE), '<c r="B2" t="inlineStr"><is><t>ann</t></is></c>')
    rule = {"type": "check_cell", "sheet_idx": "RNSheet", "coordinate": "B2"}
    # WAA's read_cell_value reads an inline string as nothing
    assert compare_table(inline, _book(TABLE), rules=[{**rule, "props": {"value": {"method": "eq", "ref": None}}}]) == 1.0
    rich = _with_cell(_book(TABLE), '<c r="B2" t="inlineStr"><is><r><t>ann</t></r></is></c>')
    assert compare_table(rich, _book(TABLE), rules=[{**rule, "props": {"value": {"method": "eq", "ref": "ann"}}}]) == 0.0
    with pytest.raises(ReferenceCrash, match="re.I cannot compare None"):  # WAA's re.search(None) raises
        compare_table(rich, _book(TABLE), rules=[{**rule, "props": {"value": {"method": "re.I", "ref": "ann"}}}])


def _with_cell(xlsx: bytes, cell: str) -> bytes:
    """The workbook with its first sheet's B2 written as `cell` (XML openpyxl does not write itself)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(xlsx)) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = re.sub(rb'<c r="B2"[^>]*>.*?</c>', cell.encode(), data, count=1)
            target.writestr(item, data)
    return out.getvalue()


def test_the_cli_names_an_unknown_fix_with_the_known_ones(tmp_path):
    (tmp_path / "examples").mkdir()
    (tmp_path / "test_all.json").write_text("{}")
    out = subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", "waa", "--waa-tasks", str(tmp_path),
                          "--waa-fix", "lenient", "--list"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert "waa fix lenient: unknown (known: text-encoding, jsonc, missing-file" in out.stderr


@pytest.mark.anyio
async def test_the_linux_server_takes_the_multipart_upload_of_a_host_side_download():
    server = start_linux_server()
    client = WAAClient(server.url, token=server.token)
    try:
        with StandIn(Behaviour(files={"notes.txt": b"line one\r\nline two\r\n"})) as web:
            task = Task(task_id="d/t", instruction="-", raw_config={"config": [{"type": "download", "parameters": {
                "files": [{"url": f"{web.url}/files/notes.txt", "path": "~/Desktop/notes.txt"}]}}]})
            steps = WAATaskSteps()
            await steps.prepare(client, task)
        state = await steps.inspect(client, {"func": "compare_text_file",
                                             "result": {"type": "vm_file", "path": "~/Desktop/notes.txt"},
                                             "expected": {"type": "rule", "rules": b"line one\nline two\n"}})
    finally:
        await client.aclose()
        stop(server)
    assert state["setup_errors"] == [] and state["result"] == [b"line one\r\nline two\r\n"]
    assert compare_text_file(state["result"][0], state["expected"][0]) == 1.0


@pytest.mark.anyio
async def test_a_file_the_server_fails_to_send_reads_as_no_file_as_in_waa():
    behaviour = Behaviour(refusing={"/file": (500, b'{"error": "disk on fire"}')})
    with StandIn(behaviour) as server:
        client = client_for(server)
        value = await resolve(client, {"type": "vm_file", "path": "C:\\Users\\Docker\\a.txt"})
        await client.aclose()
    assert value is None
    assert behaviour.requests.count("POST /file C:\\Users\\Docker\\a.txt") == 2  # retried, then answered


def test_a_font_without_a_colour_fails_waas_font_color_read_and_the_fix_reads_none():
    rule = {"type": "style", "props": ["font_color"]}
    coloured = _book(TABLE, lambda sheet: [setattr(c, "font", Font(color="FF000000")) for row in sheet for c in row])
    assert _table(coloured, coloured, **rule) == 1.0
    plain = _book(TABLE, lambda sheet: [setattr(c, "font", Font(name="Calibri")) for row in sheet for c in row])
    with pytest.raises(ReferenceCrash, match="font without a colour") as caught:
        _table(plain, coloured, **rule)
    assert caught.value.fix == "missing-file" and caught.value.fixed == 0.0


@pytest.mark.anyio
async def test_functions_stop_where_waa_stops_so_a_later_unreadable_value_does_not_matter():
    spec = {"func": ["exact_match", "compare_text_file"], "result": [{}, {}], "expected": [{}, {}]}
    state = {"result": [1, b"caf\xe9"], "expected": [{"expected": 0}, b"x"], "errors": []}
    first_fails = await WAAChecker().check(evaluate(spec, state))
    assert first_fails.score == 0.0 and first_fails.reason == "exact_match=0"
    unread = {**state, "errors": ["result[1]: vm_file: HTTP 403"]}
    assert (await WAAChecker().check(evaluate(spec, unread))).score == 0.0
    either = {**spec, "conj": "or"}
    assert (await WAAChecker().check(evaluate(either, {**unread, "expected": [{"expected": 1}, b"x"]}))).success
    with pytest.raises(Refused, match="could not read the VM state: result\\[1\\]"):
        await WAAChecker().check(evaluate(spec, {**unread, "expected": [{"expected": 1}, b"x"]}))


@pytest.mark.anyio
async def test_launch_sends_a_one_string_command_split_at_spaces_as_waas_client_does():
    behaviour = Behaviour()
    task = Task(task_id="d/t", instruction="-", raw_config={"config": [
        {"type": "launch", "parameters": {"command": "notepad.exe C:\\notes.txt"}},
        {"type": "launch", "parameters": {"command": "start notepad", "shell": True}}]})
    with StandIn(behaviour) as server:
        client = client_for(server)
        await WAATaskSteps().prepare(client, task)
        await client.aclose()
    assert behaviour.requests == ['POST /setup/launch ["notepad.exe", "C:\\\\notes.txt"]',
                                  'POST /setup/launch "start notepad"']


@pytest.mark.anyio
async def test_metrics_run_off_the_event_loop_so_other_episodes_go_on(monkeypatch):
    watch = LoopWatch()
    monkeypatch.setitem(METRICS, "exact_match", watch.metric)
    spec = {"func": "exact_match", "result": {"type": "vm_command_line"}, "expected": {"type": "rule", "rules": {}}}
    state = {"result": ["yes"], "expected": [{"expected": "yes"}], "errors": []}
    assert (await watch.score(lambda: WAAChecker().check(evaluate(spec, state)))).score == 1.0
