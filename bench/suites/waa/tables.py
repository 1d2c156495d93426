"""`compare_table`: a spreadsheet the agent saved against the task's gold file,
with the reference semantics of WAA's own table.py and its readers.

The task's `options.rules` lists checks, run in order until one fails (score
1 if all hold, else 0). Sheets are named by `sheet_idx*` as the task schema
writes them: an int or "RI<n>" is the result's n-th sheet, "RN<name>" the
result's sheet by name, "EI<n>"/"EN<name>" the same in the expected workbook;
a sheet that is not there reads as nothing (WAA: the rule scores 0, or two
absent sheets agree). Rules, each as WAA reads it:

- `sheet_name`: both workbooks have the same sheet names in the same order;
- `sheet_data`: the sheets as pandas reads them (`read_excel`: the first row
  is the header, values are the cached ones), dates as day serials, rounded
  to `precision` decimals (default 4), then `DataFrame.equals` (which also
  compares the columns' types);
- `style`: for every cell of each sheet's used range, `props` as WAA reads
  them (`bgcolor` is the fill's `bgColor.rgb`, `font_color` the font
  colour's rgb, which WAA fails to read from a font without a colour (a
  `ReferenceCrash`), `fill_type` the fill's kind, ...), keyed by coordinate: two
  sheets of different extent differ. Conditional formatting, which WAA
  evaluates with a formula engine, is not evaluated here: a sheet that has
  some makes the rule an evaluation error instead of a verdict WAA might not give;
- `check_cell`: one cell meets each of `props`, a `{method, ref}` (eq, ne,
  lt, le, gt, ge, re[.FLAG...], approx:T, range.XY, str_list_eq,
  str_set_eq, spreadsheet_range); `value` is read from the sheet's XML as WAA
  reads it (numbers as floats, shared and inline strings, a boolean as
  nothing), the other props as in `style`;
- `chart`: the sheets' charts keyed by their series references
  (`numRef`/`strRef` of values and categories), each with `chart_props`
  (type, legend, title as the first run of the title, width, height,
  direction, x/y/ztitle, anchor); two charts over the same series count once;
- `pivot_table`: the pivot tables keyed by their source (cache type, range
  trimmed of unused columns, sheet), each with `pivot_props` (name,
  show_total, show_empty_row, show_empty_col, show_headers, location,
  filter and selection: which items each field shows, col_fields and
  row_fields as field indexes, data_fields as "index;name;subtotal;showDataAs").

A result that openpyxl or pandas cannot open scores 0; a gold file that
cannot be opened makes WAA raise (`ReferenceCrash`). A rule this module does
not know is a `MetricFailed` naming it.
"""

from __future__ import annotations

import builtins
import functools
import io
import itertools
import operator
import re
import zipfile
from contextvars import ContextVar
from typing import Any, Callable
from xml.etree import ElementTree

import openpyxl
from openpyxl.cell.cell import MergedCell
from openpyxl.utils import coordinate_to_tuple
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet.cell_range import MultiCellRange
from openpyxl.worksheet.worksheet import Worksheet

from bench.suites.waa.errors import MetricFailed, ReferenceCrash

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


def _frame_reader() -> Any:
    try:
        import pandas
    except ImportError:
        raise MetricFailed("compare_table sheet_data reads sheets with pandas, as WAA does: install pandas") from None
    return pandas


class Books:
    """The result and expected workbooks as WAA opens them: openpyxl (formulas as
    written, for styles and charts), pandas (for sheet data) and raw XML (cell values)."""

    def __init__(self, result: bytes, expected: bytes) -> None:
        self.raw = {"R": result, "E": expected}
        self.xl: dict[str, Workbook] = {}
        self.frames: dict[str, Any] = {}
        for side, which in (("R", "result"), ("E", "expected")):
            try:
                self.xl[side] = openpyxl.load_workbook(io.BytesIO(self.raw[side]))
                self.frames[side] = _frame_reader().ExcelFile(io.BytesIO(self.raw[side]))
            except MetricFailed:
                raise
            except Exception as exc:  # noqa: BLE001 - openpyxl and pandas raise many kinds on a broken file
                raise _Unreadable(which, exc) from None

    def names(self, side: str) -> list[str]:
        return list(self.frames[side].sheet_names)

    def locate(self, index: Any) -> tuple[str, str]:
        """(side, sheet name) for a sheet named the schema's way; "" for an index past the end."""
        if isinstance(index, int) and not isinstance(index, bool):
            side, how, key = "R", "I", str(index)
        elif isinstance(index, str) and index[:2] in ("RI", "RN", "EI", "EN"):
            side, how, key = index[0], index[1], index[2:]
        else:
            raise MetricFailed(f"compare_table: sheet index {index!r} is not an int, RI<n>, RN<name>, EI<n> or EN<name>")
        if how == "N":
            return side, key
        try:
            return side, self.names(side)[int(key)]
        except (IndexError, ValueError):
            return side, ""

    def sheet(self, index: Any) -> Worksheet | None:
        side, name = self.locate(index)
        try:
            return self.xl[side][name]
        except KeyError:
            return None

    def frame(self, index: Any) -> Any:
        side, name = self.locate(index)
        try:
            return _frame_reader().read_excel(self.frames[side], name)
        except MetricFailed:
            raise
        except Exception:  # noqa: BLE001 - WAA's _load_sheet reads any failure as "no sheet"
            return None

    def cell_value(self, index: Any, coordinate: str) -> Any:
        side, name = self.locate(index)
        return read_cell_value(self.raw[side], name, coordinate)


class _Unreadable(Exception):
    def __init__(self, which: str, exc: Exception) -> None:
        super().__init__(f"the {which} file is not an xlsx workbook ({type(exc).__name__}: {exc})")
        self.which = which


# --- cell values from the sheet's XML, as WAA's read_cell_value ----------------------------------

def read_cell_value(xlsx: bytes, sheet_name: str, coordinate: str) -> Any:
    try:
        with zipfile.ZipFile(io.BytesIO(xlsx)) as archive:
            try:
                shared = [
                    "".join(t.text or "" for t in item.iter(f"{_MAIN}t"))
                    for item in ElementTree.fromstring(archive.read("xl/sharedStrings.xml")).findall(f"{_MAIN}si")
                ]
            except (KeyError, ElementTree.ParseError):
                shared = []
            workbook = ElementTree.fromstring(archive.read("xl/workbook.xml"))
            ids = {s.get("name"): s.get("sheetId") for s in workbook.iter(f"{_MAIN}sheet")}
            sheet = ElementTree.fromstring(archive.read(f"xl/worksheets/sheet{ids[sheet_name]}.xml"))
    except (zipfile.BadZipFile, KeyError, ElementTree.ParseError):
        return None
    cell = next((c for row in sheet.iter(f"{_MAIN}row") for c in row.findall(f"{_MAIN}c")
                 if c.get("r") == coordinate), None)
    if cell is None:
        return None
    kind, value = cell.get("t"), cell.find(f"{_MAIN}v")
    try:
        if kind in (None, "n"):
            return float(value.text) if value is not None else None
        if kind == "s":
            return shared[int(value.text)] if value is not None else None
        if kind in ("str", "e"):
            return value.text if value is not None else None
        if kind == "inlineStr":
            inline = cell.find(f"{_MAIN}is/{_MAIN}t")
            return inline.text if inline is not None else None
    except (TypeError, ValueError):
        return None
    except IndexError:
        raise ReferenceCrash(f"compare_table: cell {coordinate} names shared string {value.text}, which is not there",
                             fix="missing-file", fixed=0.0) from None
    return None


# --- cell styles, as WAA's _read_cell_style ----------------------------------------------------------

def _if_value(cell: Any, read: Callable[[], Any]) -> Any:
    return read() if cell.value is not None else None


def _color_rgb(color: Any) -> Any:
    return None if color is None else color.rgb


class _NoFontColour(Exception):
    """WAA reads `cell.font.color.rgb`, which raises for a font without a colour."""


_LENIENT: ContextVar[bool] = ContextVar("waa_tables_lenient", default=False)
"""Set while scoring the `missing-file` fix: a font without a colour reads as no colour."""


def _font_colour(cell: Any) -> Any:
    if cell.font.color is None and not _LENIENT.get():
        raise _NoFontColour(f"cell {cell.coordinate} has a font without a colour")
    return _color_rgb(cell.font.color)


def _fill_kind(cell: Any) -> Any:
    return cell.fill.tagname


CELL_PROPS: dict[str, Callable[[Any], Any]] = {
    "number_format": lambda c: c.number_format if c.value is not None and c.data_type == "n" else None,
    "font_name": lambda c: _if_value(c, lambda: c.font.name),
    "font_family": lambda c: _if_value(c, lambda: c.font.family),
    "font_color": lambda c: _if_value(c, lambda: _font_colour(c)),
    "font_bold": lambda c: _if_value(c, lambda: c.font.bold),
    "font_italic": lambda c: _if_value(c, lambda: c.font.italic),
    "font_underline": lambda c: _if_value(c, lambda: c.font.underline),
    "font_size": lambda c: _if_value(c, lambda: c.font.size),
    "fill_type": _fill_kind,
    "bgcolor": lambda c: _color_rgb(c.fill.bgColor),
    "fgcolor": lambda c: _color_rgb(c.fill.bgColor),
    "hyperlink": lambda c: _if_value(c, lambda: c.hyperlink or ""),
    "merge": lambda c: isinstance(c, MergedCell),
}


def _known(names: Any, known: dict[str, Any] | frozenset[str], what: str) -> list[str]:
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise MetricFailed(f"compare_table: unknown {what} {unknown} (known: {sorted(known)})")
    return list(names)


def _styles(sheet: Worksheet | None, props: list[str]) -> dict[str, list[Any]]:
    if sheet is None:
        return {}
    if sheet.conditional_formatting:
        kinds = sorted({rule.type for fmt in sheet.conditional_formatting for rule in fmt.rules})
        raise MetricFailed(f"compare_table style: sheet {sheet.title!r} has conditional formatting ({kinds}), which "
                           "WAA evaluates with a formula engine and troupe does not evaluate")
    return {cell.coordinate: [CELL_PROPS[p](cell) for p in props] for column in sheet.iter_cols() for cell in column}


# --- value rules, as WAA's _match_value_to_rule -------------------------------------------------------

def _regex(value: Any, method: str, ref: Any) -> bool:
    flags = functools.reduce(operator.or_, (getattr(re, name) for name in method.split(".")[1:]), re.RegexFlag(0))
    return re.search(ref, value, flags) is not None


def _approx(value: Any, method: str, ref: Any) -> bool:
    try:
        return abs(float(value) - ref) <= float(method.split(":")[1])
    except (TypeError, ValueError):
        return False


def _range(value: Any, method: str, ref: Any) -> bool:
    return getattr(operator, "l" + method[6])(ref[0], value) and getattr(operator, "l" + method[7])(value, ref[1])


def _collection(value: Any, method: str, ref: Any) -> bool:
    kind = getattr(builtins, method[4:-3])
    return kind(value.strip("\"'").split(",")) == kind(ref)


def _within(value: Any, method: str, ref: Any) -> bool:
    low, high = MultiCellRange(ref[0]), MultiCellRange(ref[1])
    return all(r in value for r in low) and all(r in high for r in value)


def match_value(value: Any, rule: dict[str, Any]) -> bool:
    method, ref = rule["method"], rule.get("ref")
    if method.startswith("re"):
        test = _regex
    elif method in ("eq", "ne", "le", "lt", "ge", "gt"):
        test = lambda v, m, r: getattr(operator, m)(v, r)  # noqa: E731
    elif method.startswith("approx"):
        test = _approx
    elif method == "spreadsheet_range":
        test = _within
    elif method.startswith("range."):
        test = _range
    elif method in ("str_list_eq", "str_set_eq"):
        test = _collection
    else:
        raise MetricFailed(f"compare_table: check_cell method {method!r} is not one of eq, ne, lt, le, gt, ge, "
                           "re[.FLAG], approx:T, range.XY, str_list_eq, str_set_eq, spreadsheet_range")
    try:
        return bool(test(value, method, ref))
    except (TypeError, AttributeError) as exc:
        raise ReferenceCrash(f"compare_table: check_cell {method} cannot compare {value!r} with {ref!r} ({exc})",
                             fix="missing-file", fixed=0.0) from None


# --- charts and pivot tables, keyed as WAA keys them -------------------------------------------------

def _reference(source: Any) -> str:
    for kind in ("numRef", "strRef"):
        ref = getattr(source, kind, None)
        if ref is not None and getattr(ref, "f", None) is not None:
            return ref.f
    return ""


def _first_run(title: Any) -> Any:
    try:
        return title.tx.rich.p[0].r[0].t
    except (AttributeError, IndexError, TypeError):
        return None


CHART_PROPS: dict[str, Callable[[Any], Any]] = {
    "title": lambda ch: _first_run(ch.title),
    "legend": lambda ch: ch.legend.position if ch.legend is not None else None,
    "anchor": lambda ch: [ch.anchor.editAs, ch.anchor._from.col, ch.anchor.to.row, ch.anchor.to.col, ch.anchor.to.row],
    "width": lambda ch: ch.width,
    "height": lambda ch: ch.height,
    "type": lambda ch: ch.tagname,
    "direction": lambda ch: ch.barDir,
    "xtitle": lambda ch: _first_run(getattr(ch.x_axis, "title", None)),
    "ytitle": lambda ch: _first_run(getattr(ch.y_axis, "title", None)),
    "ztitle": lambda ch: _first_run(getattr(getattr(ch, "z_axis", None), "title", None)),
}


def _charts(sheet: Worksheet | None, props: list[str]) -> dict[str, dict[str, Any]]:
    if sheet is None:
        return {}
    return {";".join(f"{_reference(s.val)},{_reference(s.cat)}" for s in chart.series):
            {p: CHART_PROPS[p](chart) for p in props} for chart in sheet._charts}


PIVOT_PROPS = frozenset({"name", "show_total", "show_empty_row", "show_empty_col", "show_headers", "location",
                         "filter", "selection", "ordered", "col_fields", "row_fields", "data_fields",
                         "data_fields_name", "ignore_special_fields"})


def _pivot(pivot: Any, props: set[str]) -> tuple[str, dict[str, Any]]:
    raw = [[(item.h, item.x) for item in field.items if item.x is not None] for field in pivot.pivotFields]
    trimmed = list(itertools.dropwhile(lambda r: not r, raw))
    left = len(raw) - len(trimmed)
    selection = list(itertools.dropwhile(lambda r: not r, reversed(trimmed)))[::-1]
    right = len(trimmed) - len(selection)
    source = pivot.cache.cacheSource
    start, end = source.worksheetSource.ref.split(":")
    (r1, c1), (r2, c2) = coordinate_to_tuple(start), coordinate_to_tuple(end)
    key = f"{source.type};{(r1, c1 + left)}:{(r2, c2 - right)};{source.worksheetSource.sheet}"
    info: dict[str, Any] = {}
    simple = {"name": "name", "show_total": "visualTotals", "show_empty_row": "showEmptyRow",
              "show_empty_col": "showEmptyCol", "show_headers": "showHeaders", "location": "location"}
    for prop, attribute in simple.items():
        if prop in props:
            info[prop] = getattr(pivot, attribute)
    if props & {"filter", "selection"}:
        info["selection"] = selection if "ordered" in props else [set(r) for r in selection]
    if "filter" in props:
        info["filter_fields"] = {f.fld for f in pivot.pageFields}
    for prop, fields in (("col_fields", pivot.colFields), ("row_fields", pivot.rowFields)):
        if prop in props:
            indexes = [f.x - left for f in fields]
            info[prop] = [i for i in indexes if i >= 0] if "ignore_special_fields" in props else indexes
    if "data_fields" in props:
        info["data_fields"] = [f"{f.fld - left:d};{f.name if 'data_fields_name' in props else ''};"
                               f"{f.subtotal};{f.showDataAs}" for f in pivot.dataFields]
    return key, info


def _pivots(sheet: Worksheet | None, props: set[str]) -> dict[str, dict[str, Any]]:
    return {} if sheet is None else dict(_pivot(p, props) for p in sheet._pivots)


# --- the rules -----------------------------------------------------------------------------------------

def _sheet_name(books: Books, rule: dict[str, Any]) -> bool:
    return books.names("R") == books.names("E")


def _as_day_serials(frame: Any, pandas: Any) -> Any:
    frame = frame.copy()
    for column in frame.columns:
        if pandas.api.types.is_datetime64_any_dtype(frame[column]):
            frame[column] = (frame[column] - pandas.Timestamp("1899-12-30")).dt.days
    return frame


def _sheet_data(books: Books, rule: dict[str, Any]) -> bool:
    pandas = _frame_reader()
    first = books.frame(rule["sheet_idx0"])
    if first is None:
        return False
    second = books.frame(rule["sheet_idx1"])
    if second is None:
        raise ReferenceCrash(f"compare_table sheet_data: sheet {rule['sheet_idx1']!r} is not there",
                             fix="missing-file", fixed=0.0)
    precision = rule.get("precision", 4)
    first, second = (_as_day_serials(f, pandas).round(precision) for f in (first, second))
    return bool(first.equals(second))


def _style(books: Books, rule: dict[str, Any]) -> bool:
    props = _known(rule.get("props", []), CELL_PROPS, "style props")
    return _styles(books.sheet(rule["sheet_idx0"]), props) == _styles(books.sheet(rule["sheet_idx1"]), props)


def _check_cell(books: Books, rule: dict[str, Any]) -> bool:
    wanted = rule["props"]
    _known([p for p in wanted if p != "value"], CELL_PROPS, "cell props")
    sheet = books.sheet(rule["sheet_idx"])
    if sheet is None:
        return False
    cell = sheet[rule["coordinate"]]
    for prop, test in wanted.items():
        value = books.cell_value(rule["sheet_idx"], rule["coordinate"]) if prop == "value" else CELL_PROPS[prop](cell)
        if not match_value(value, test):
            return False
    return True


def _chart(books: Books, rule: dict[str, Any]) -> bool:
    props = _known(rule.get("chart_props", []), CHART_PROPS, "chart props")
    return _charts(books.sheet(rule["sheet_idx0"]), props) == _charts(books.sheet(rule["sheet_idx1"]), props)


def _pivot_table(books: Books, rule: dict[str, Any]) -> bool:
    props = set(_known(rule.get("pivot_props", []), PIVOT_PROPS, "pivot props"))
    return _pivots(books.sheet(rule["sheet_idx0"]), props) == _pivots(books.sheet(rule["sheet_idx1"]), props)


RULES: dict[str, Callable[[Books, dict[str, Any]], bool]] = {
    "sheet_name": _sheet_name,
    "sheet_data": _sheet_data,
    "style": _style,
    "check_cell": _check_cell,
    "chart": _chart,
    "pivot_table": _pivot_table,
}


def compare_table(result: bytes | None, expected: bytes | None, *, rules: list[dict[str, Any]] | None = None,
                  **options: Any) -> float:
    if not rules:
        raise MetricFailed("compare_table: options need a non-empty `rules` list")
    for rule in rules:
        if rule.get("type") not in RULES:
            raise MetricFailed(f"compare_table: rule type {rule.get('type')!r} is not supported (supported: {sorted(RULES)})")
    if result is None:
        return 0.0
    if expected is None:
        raise MetricFailed("compare_table: the expected workbook could not be read")
    try:
        books = Books(result, expected)
    except _Unreadable as exc:
        if exc.which == "result":
            return 0.0
        raise ReferenceCrash(f"compare_table: {exc}", fix="missing-file", fixed=0.0) from None
    try:
        return _passes(books, rules)
    except _NoFontColour as exc:
        token = _LENIENT.set(True)
        try:
            fixed = _passes(books, rules)
        finally:
            _LENIENT.reset(token)
        raise ReferenceCrash(f"compare_table font_color: {exc}", fix="missing-file", fixed=fixed) from None


def _passes(books: Books, rules: list[dict[str, Any]]) -> float:
    for rule in rules:
        try:
            if not RULES[rule["type"]](books, rule):
                return 0.0
        except KeyError as exc:
            raise MetricFailed(f"compare_table: a {rule['type']} rule misses the field {exc}") from None
    return 1.0
