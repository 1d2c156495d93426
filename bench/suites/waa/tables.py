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
  is the header, values are the cached ones, dates and times as pandas types
  them, so a day serial number is not its date and a time of day counts),
  rounded to `precision` decimals (default 4), then `DataFrame.equals` (which
  also compares the columns' types);
- `style`: for every cell of each sheet's used range, `props` as WAA reads
  them (`bgcolor` is the fill's `bgColor.rgb`, `fgcolor` its `fgColor.rgb`,
  None for a fill without one; `font_color` the font colour's rgb, which WAA
  fails to read from a font without a colour (a `ReferenceCrash`), `fill_type`
  the fill's kind, ...), keyed by coordinate: two sheets of different extent
  differ. Then each conditional format of type "expression" restyles the
  cells its formula holds for with its differential style, evaluated as WAA
  evaluates it with the `formulas` library (conditional_formats.py); another
  type makes WAA raise, so it is an evaluation error here;
- `check_cell`: one cell meets each of `props`, a `{method, ref}` (eq, ne,
  lt, le, gt, ge, re[.FLAG...], approx:T, range.XY, str_list_eq,
  str_set_eq, spreadsheet_range); every prop is read, and matched while all
  before it matched; `value` is read from the sheet's XML as WAA's
  read_cell_value reads it (a number as a float, a shared string, a formula's
  text; an inline string, a boolean, an error or an empty cell as nothing),
  the other props as in `style`;
- `chart`: the sheets' charts with their `chart_props`, and `pivot_table`:
  the sheets' pivot tables with their `pivot_props`, both as WAA and
  OSWorld read them (bench.formats.sheet_charts, bench.formats.pivot_tables).

A missing result, or one that openpyxl or pandas cannot open, scores 0; a
gold file that cannot be opened makes WAA raise (`ReferenceCrash`); without a
gold file only rules on the result's sheets can hold. A rule type this module
does not know is a `MetricFailed` naming it when a task's rules reach it.
"""

from __future__ import annotations

import zipfile
from contextvars import ContextVar
from typing import Any, Callable
from xml.etree import ElementTree

from bench.formats.pivot_tables import same_pivot_tables
from bench.formats.sheet_charts import same_charts
from bench.formats.spreadsheet import (FONT_STYLES, MAIN, SheetIndexError, UnknownMethod, UnreadableWorkbook, Workbooks,
                                       sheet_cells, value_matches)
from bench.suites.waa.conditional_formats import conditional_cells
from bench.suites.waa.errors import MetricFailed, ReferenceCrash

class Books(Workbooks):
    """The workbooks as WAA opens them (spreadsheet.Workbooks), and cell values as WAA reads them."""

    def locate(self, index: Any) -> tuple[str, str]:
        if isinstance(index, bool):
            raise MetricFailed(f"compare_table: sheet index {index!r} is not an int, RI<n>, RN<name>, EI<n> or EN<name>")
        try:
            return super().locate(index)
        except SheetIndexError as exc:
            raise MetricFailed(f"compare_table: {exc} (WAA raises reading it)") from None

    def cell_value(self, index: Any, coordinate: str) -> Any:
        side, name = self.locate(index)
        return read_cell_value(self.raw[side], name, coordinate)


# --- cell values from the sheet's XML, as WAA's read_cell_value ----------------------------------

def _sheet_cells(xlsx: bytes, sheet_name: str) -> tuple[Any, dict[str, ElementTree.Element]] | None:
    """The shared strings and the sheet's cells (spreadsheet.sheet_cells); None for a file that is not
    a zip. WAA reads the shared strings in one try, and a cell that names one when there are none raises."""
    try:
        return sheet_cells(xlsx, sheet_name)
    except zipfile.BadZipFile:
        return None
    except (KeyError, ElementTree.ParseError) as exc:
        raise ReferenceCrash(f"compare_table: reading sheet {sheet_name!r}'s cells as WAA does fails "
                             f"({type(exc).__name__}: {exc})", fix="missing-file", fixed=0.0) from None


def read_cell_value(xlsx: bytes, sheet_name: str, coordinate: str) -> Any:
    """A number as a float, a shared string, a formula's text result (`t="str"`, stripped of
    surrounding whitespace as xmltodict reads it); anything else (inline strings, booleans,
    errors, ISO dates, an empty cell) is None, as in WAA's read_cell_value."""
    parts = _sheet_cells(xlsx, sheet_name)
    if parts is None:
        return None
    shared, cells = parts
    cell = cells.get(coordinate)
    if cell is None:
        return None
    kind, value = cell.get("t"), cell.find(f"{MAIN}v")
    if value is None or kind not in (None, "n", "s", "str"):
        return None
    text = (value.text or "").strip() or None
    if kind == "str":
        return text
    if text is None:
        raise ReferenceCrash(f"compare_table: cell {coordinate} has an empty value, which WAA's float() or int() "
                             "rejects", fix="missing-file", fixed=0.0)
    if kind in (None, "n"):
        try:
            return float(text)
        except ValueError:
            return None
    if shared is None:
        raise ReferenceCrash(f"compare_table: cell {coordinate} names a shared string, but WAA could not read "
                             "the workbook's shared strings", fix="missing-file", fixed=0.0)
    try:
        return shared[int(text)]
    except ValueError:
        return None
    except IndexError:
        raise ReferenceCrash(f"compare_table: cell {coordinate} names shared string {text}, which is not there",
                             fix="missing-file", fixed=0.0) from None


# --- cell styles, as WAA's _read_cell_style ----------------------------------------------------------

class _Unread(Exception):
    """WAA reads an attribute of something that is not there (`cell.font.color.rgb` of a font
    without a colour, the font or number format of a conditional format that sets none) and raises."""


_LENIENT: ContextVar[bool] = ContextVar("waa_tables_lenient", default=False)
"""Set while scoring the `missing-file` fix: what WAA fails to read reads as nothing."""


def _part(owner: Any, name: str, what: str) -> Any:
    value = getattr(owner, name)
    if value is None and not _LENIENT.get():
        raise _Unread(what)
    return value


def _or_none(read: Callable[[], Any]) -> Any:
    """WAA's `try: ... except: return None` around the fill's reads."""
    try:
        return read()
    except Exception:  # noqa: BLE001 - WAA catches everything here
        return None


def _number_format(cell: Any, dxf: Any) -> Any:
    if cell.value is None or cell.data_type != "n":
        return None
    if dxf is None:
        return cell.number_format
    number_format = _part(dxf, "numFmt", f"the conditional format over {cell.coordinate} sets no number format")
    return None if number_format is None else number_format.formatCode


def _font(attribute: str) -> Callable[[Any, Any], Any]:
    def read(cell: Any, dxf: Any) -> Any:
        if cell.value is None:
            return None
        font = _part(dxf or cell, "font", f"the conditional format over {cell.coordinate} sets no font")
        if font is None:
            return None
        if attribute != "color":
            return getattr(font, attribute)
        color = _part(font, "color", f"cell {cell.coordinate} has a font without a colour")
        return None if color is None else color.rgb
    return read


def _hyperlink(cell: Any, dxf: Any) -> Any:
    return cell.hyperlink or ("" if cell.value is not None else None)


CELL_PROPS: dict[str, Callable[[Any, Any], Any]] = {
    "number_format": _number_format,
    **{prop: _font(attribute) for prop, attribute in FONT_STYLES.items()},
    "fill_type": lambda c, dxf: _or_none(lambda: (dxf or c).fill.tagname),
    "bgcolor": lambda c, dxf: _or_none(lambda: (dxf or c).fill.bgColor.rgb),
    "fgcolor": lambda c, dxf: _or_none(lambda: (dxf or c).fill.fgColor.rgb),
    "hyperlink": _hyperlink,
}
"""Each prop of a cell, or of a cell under a conditional format's differential style `dxf`."""


def _known(names: Any, known: dict[str, Any] | frozenset[str], what: str) -> list[str]:
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise MetricFailed(f"compare_table: unknown {what} {unknown} (known: {sorted(known)})")
    return list(names)


def _styles(books: Books, index: Any, props: list[str]) -> dict[str, list[Any]]:
    """WAA's load_xlsx_styles: every cell's props, then, for each conditional format rule in
    order, the cells its formula holds for, with the rule's differential style."""
    sheet = books.sheet(index)
    if sheet is None:
        return {}
    styles = {cell.coordinate: [CELL_PROPS[p](cell, None) for p in props]
              for column in sheet.iter_cols() for cell in column}
    side, name = books.locate(index)
    for coordinate, dxf in conditional_cells(sheet, lambda ref: read_cell_value(books.raw[side], name, ref)):
        styles[coordinate] = [CELL_PROPS[p](sheet[coordinate], dxf) for p in props]
    return styles


# --- value rules, as WAA's _match_value_to_rule -------------------------------------------------------

def match_value(value: Any, rule: dict[str, Any]) -> bool:
    try:
        return value_matches(value, rule)
    except UnknownMethod as exc:
        raise MetricFailed(f"compare_table: {exc}") from None
    except (TypeError, AttributeError) as exc:
        raise ReferenceCrash(f"compare_table: check_cell {rule['method']} cannot compare {value!r} with "
                             f"{rule.get('ref')!r} ({exc})", fix="missing-file", fixed=0.0) from None


# --- the rules -----------------------------------------------------------------------------------------

def _sheet_name(books: Books, rule: dict[str, Any]) -> bool:
    return books.names("R") == books.names("E")


def _sheet_data(books: Books, rule: dict[str, Any]) -> bool:
    first = books.frame(rule["sheet_idx0"])
    if first is None:
        return False
    second = books.frame(rule["sheet_idx1"])
    if second is None:
        raise ReferenceCrash(f"compare_table sheet_data: sheet {rule['sheet_idx1']!r} is not there",
                             fix="missing-file", fixed=0.0)
    precision = rule.get("precision", 4)
    first, second = (frame.round(precision) for frame in (first, second))
    return bool(first.equals(second))


def _style(books: Books, rule: dict[str, Any]) -> bool:
    props = _known(rule.get("props", []), CELL_PROPS, "style props")
    return _styles(books, rule["sheet_idx0"], props) == _styles(books, rule["sheet_idx1"], props)


def _check_cell(books: Books, rule: dict[str, Any]) -> bool:
    wanted = rule["props"]
    _known([p for p in wanted if p != "value"], CELL_PROPS, "cell props")
    sheet = books.sheet(rule["sheet_idx"])
    if sheet is None:
        return False
    cell = sheet[rule["coordinate"]]
    holds = True
    for prop, test in wanted.items():  # WAA reads every prop, and matches only while all matched so far
        value = books.cell_value(rule["sheet_idx"], rule["coordinate"]) if prop == "value" else CELL_PROPS[prop](cell, None)
        holds = holds and match_value(value, test)
    return holds


RULES: dict[str, Callable[[Books, dict[str, Any]], bool]] = {
    "sheet_name": _sheet_name,
    "sheet_data": _sheet_data,
    "style": _style,
    "check_cell": _check_cell,
    "chart": same_charts,
    "pivot_table": same_pivot_tables,
}


def compare_table(result: bytes | None, expected: bytes | None = None, *,
                  rules: list[dict[str, Any]] | None = None, **options: Any) -> float:
    if result is None:
        return 0.0
    try:
        books = Books(result, expected)
    except UnreadableWorkbook as exc:
        if exc.which == "result":
            return 0.0
        raise ReferenceCrash(f"compare_table: {exc}", fix="missing-file", fixed=0.0) from None
    if rules is None:
        raise MetricFailed("compare_table: options need a `rules` list")
    try:
        return _passes(books, rules)
    except _Unread as exc:
        token = _LENIENT.set(True)
        try:
            fixed = _passes(books, rules)
        finally:
            _LENIENT.reset(token)
        raise ReferenceCrash(f"compare_table: {exc}", fix="missing-file", fixed=fixed) from None


def _passes(books: Books, rules: list[dict[str, Any]]) -> float:
    """Rules in order until one fails; a rule type WAA does not know raises only when reached, as in WAA."""
    for rule in rules:
        check = RULES.get(rule.get("type"))
        if check is None:
            raise MetricFailed(f"compare_table: rule type {rule.get('type')!r} is not supported "
                               f"(supported: {sorted(RULES)})")
        try:
            if not check(books, rule):
                return 0.0
        except KeyError as exc:
            raise MetricFailed(f"compare_table: a {rule['type']} rule misses the field {exc}") from None
    return 1.0
