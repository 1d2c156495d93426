"""`compare_table`: a spreadsheet the agent saved against the task's gold file, with the
semantics of OSWorld's own metrics/table.py and the readers of its utils.py.

The task's `options.rules` are run in order until one fails (1 if all hold,
else 0). Sheets are named as the task schema writes them: an int or
"RI<n>" is the result's n-th sheet, "RN<name>" the result's sheet by name,
"EI<n>"/"EN<name>" the same in the expected workbook; an index past the end
names no sheet, anything else raises. Rules, each as OSWorld reads it:

- `sheet_name`: both workbooks have the same sheet names in the same order;
- `sheet_data`: the sheets as pandas reads them (`read_excel`, first row the
  header, cached values), rounded to `precision` decimals (default 4), then
  `DataFrame.equals`; a first sheet that is not there scores 0 at once, a
  second one that is not there raises;
- `sheet_fuzzy`: over each sub-rule's ranges, every cell's value as text
  (read_cell_value's reading, below), after `normalization`,
  `trim_leadings`, `trim_trailings`, `ignore_chars` and `ignore_case`, is
  `exact_match`, `includes` / `included_by` the other, or `fuzzy_match`es it
  (rapidfuzz's ratio at least `threshold`, default 85);
- `check_cell`: one cell meets each of `props` (`value`, or a style: the
  font's name, family, colour, bold, italic, underline, size, the fill's
  type, `bgcolor`/`fgcolor` (both the fill's fgColor), `number_format`,
  `hyperlink`, `merge`); a prop that cannot be read is None; the matching is
  `bench.formats.spreadsheet.value_matches`, while all before matched; any
  failure in this rule (no such sheet, a bad coordinate, a method that
  raises) scores the whole table 0, as OSWorld's try around it does;
- `freeze`: the sheets' `freeze_panes` are equal; `zoom`: the sheet's zoom
  scale (100 when unset) matches `{method, ref}`;
- `row_props`: each row dimension's `props` are equal in both sheets;
- `data_validation`: the sheet has at least as many validations as
  `dv_props`, and each validation has every attribute of some `dv_props`
  entry matching;
- `sheet_print`: the sheets as printed: the CSV `<stem>-<sheet>.csv` beside
  each workbook in OSWorld's cache folder (the task's postconfig has
  LibreOffice export it, its getter fetches it; cached_file.py), its lines
  stripped and trailing empty ones dropped, equal (lowercased with
  `ignore_case`); a first CSV that is not there scores 0 at once;
- `style`: for every cell of each sheet's used range, `props` (the styles of
  check_cell; an unknown one raises), keyed by coordinate, then the cells
  each conditional format restyles with its differential style (there
  `bgcolor` is the style's fill bgColor), evaluated as OSWorld evaluates
  them (conditional_formats.py);
- `chart`: the sheets' charts with their `chart_props`, and `pivot_table`:
  the sheets' pivot tables with their `pivot_props`, as OSWorld and WAA
  read them (bench.formats.sheet_charts, bench.formats.pivot_tables).

`value` is read from the sheet's XML as OSWorld's read_cell_value reads it:
a number as a float, a shared string, a formula's text, an inline string's
text (as xmltodict gives it: a dict when its `<t>` has attributes), an
error's code; a boolean, a date or an empty cell as None; a file
or sheet that cannot be read as None. A missing result, or one openpyxl or
pandas cannot open, scores 0; a gold file that cannot be opened raises. What
OSWorld's function raises on is `MetricFailed` here (no score). The rule
types OSWorld has and no task uses (`sparkline`, `filter`, `col_props`) are
not here: `RULES` names the supported ones and --list names a task needing
another.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from typing import Any

from openpyxl.cell.cell import MergedCell
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.cell_range import MultiCellRange
from openpyxl.worksheet.worksheet import Worksheet

from bench.formats.pivot_tables import same_pivot_tables
from bench.formats.sheet_charts import same_charts
from bench.formats.spreadsheet import (FONT_STYLES, MAIN, SheetIndexError, UnreadableWorkbook, Workbooks, sheet_cells,
                                       value_matches)
from bench.suites.osworld.cached_file import CachedFile
from bench.suites.osworld.conditional_formats import restyled_cells
from bench.suites.osworld.csv_files import lines
from bench.suites.osworld.errors import MetricFailed


class _NoScore(Exception):
    """The whole table scores 0 at once (OSWorld's `return 0.0` inside the rule loop)."""


class Books(Workbooks):
    """The workbooks as OSWorld opens them (spreadsheet.Workbooks), and cell values as OSWorld reads them."""

    def locate(self, index: Any) -> tuple[str, str]:
        try:
            return super().locate(index)
        except SheetIndexError as exc:
            raise MetricFailed(f"compare_table: {exc} (OSWorld's function raises here)") from None

    def cell_value(self, index: Any, coordinate: str) -> Any:
        side, name = self.locate(index)
        return read_cell_value(self.raw[side], name, coordinate)


def _number(text: str | None, coordinate: str, convert: Callable[[str], Any]) -> Any:
    if text is None:
        raise MetricFailed(f"compare_table: cell {coordinate} has an empty value, which OSWorld's read_cell_value "
                           "cannot convert (it raises here)")
    return convert(text)


def _as_xmltodict(element: Any) -> Any:
    """A leaf element as xmltodict gives it to OSWorld's read_cell_value: its stripped text (None when
    empty), or with attributes a dict of `@<namespace>:<name>` keys and `#text` (`xml:space="preserve"`
    on an inline string with edge spaces makes its value that dict)."""
    text = (element.text or "").strip() or None
    if not element.attrib:
        return text
    found = {"@" + key[1:].replace("}", ":") if key.startswith("{") else "@" + key: value
             for key, value in element.attrib.items()}
    return found if text is None else {**found, "#text": text}


def read_cell_value(xlsx: bytes, sheet_name: str, coordinate: str) -> Any:
    try:
        shared, cells = sheet_cells(xlsx, sheet_name)
    except Exception:  # noqa: BLE001 - OSWorld's read_cell_value reads any failure as no value
        return None
    cell = cells.get(coordinate)
    if cell is None:
        return None
    kind, value = cell.get("t"), cell.find(f"{MAIN}v")
    text = None if value is None else (value.text or "").strip() or None
    try:
        if kind in (None, "n"):
            return None if value is None else _number(text, coordinate, float)
        if kind == "s":
            if value is None:
                return None
            position = _number(text, coordinate, int)
            if shared is None or not -len(shared) <= position < len(shared):
                raise MetricFailed(f"compare_table: cell {coordinate} names shared string {position}, which is not "
                                   "there (OSWorld's read_cell_value raises here)")
            return shared[position]
        if kind in ("str", "e"):
            return None if value is None else text
        if kind == "inlineStr":
            inline = cell.find(f"{MAIN}is")
            if inline is not None and not len(inline) and not (inline.text or "").strip():
                raise MetricFailed(f"compare_table: cell {coordinate} has an empty inline string, which OSWorld's "
                                   "read_cell_value cannot read (it raises here)")
            part = None if inline is None else inline.find(f"{MAIN}t")
            return None if part is None else _as_xmltodict(part)
    except ValueError:
        return None
    return None


def _font(attribute: str) -> Callable[[Any, Any], Any]:
    def read(cell: Any, dxf: Any) -> Any:
        if cell.value is None:
            return None
        font = (dxf or cell).font
        return font.color.rgb if attribute == "color" else getattr(font, attribute)
    return read


def _fill_color(cell: Any, dxf: Any) -> Any:
    return dxf.fill.bgColor.rgb if dxf is not None else cell.fill.fgColor.rgb


def _or_none(read: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """OSWorld's `try: ... except: return None` around the fill's reads."""
    def guarded(cell: Any, dxf: Any) -> Any:
        try:
            return read(cell, dxf)
        except Exception:  # noqa: BLE001 - as OSWorld's bare except
            return None
    return guarded


CELL_STYLES: dict[str, Callable[[Any, Any], Any]] = {
    "number_format": lambda c, dxf: ((c.number_format if dxf is None else dxf.numFmt.formatCode)
                                     if c.value is not None and c.data_type == "n" else None),
    **{prop: _font(attribute) for prop, attribute in FONT_STYLES.items()},
    "fill_type": _or_none(lambda c, dxf: (dxf or c).fill.tagname),
    "bgcolor": _or_none(_fill_color),
    "fgcolor": _or_none(_fill_color),
    "hyperlink": lambda c, dxf: (c.hyperlink or "") if c.value is not None else None,
    "merge": lambda c, dxf: isinstance(c, MergedCell),
}


def cell_style(prop: str, cell: Any, dxf: Any = None) -> Any:
    """A cell's style `prop` as OSWorld's _read_cell_style reads it, under a conditional format's
    differential style `dxf` if given; what it cannot read raises, as there (an unknown prop too)."""
    if prop not in CELL_STYLES:
        raise MetricFailed(f"compare_table: style {prop!r} is not one OSWorld reads (it raises): "
                           f"{sorted(CELL_STYLES)}")
    return CELL_STYLES[prop](cell, dxf)


# --- the rules -----------------------------------------------------------------------------------------

def _sheet_name(books: Books, rule: dict[str, Any]) -> bool:
    return books.names("R") == books.names("E")


def _both(rule: dict[str, Any], read: Callable[[Any], Any]) -> tuple[Any, Any]:
    """The two sheets a rule compares: a first one that is not there scores the table 0 at once,
    a second one that is not there raises (OSWorld reads an attribute of None)."""
    first = read(rule["sheet_idx0"])
    if first is None:
        raise _NoScore
    second = read(rule["sheet_idx1"])
    if second is None:
        raise MetricFailed(f"compare_table {rule['type']}: sheet {rule['sheet_idx1']!r} is not there "
                           "(OSWorld's function raises here)")
    return first, second


def _sheet_data(books: Books, rule: dict[str, Any]) -> bool:
    first, second = _both(rule, books.frame)
    precision = rule.get("precision", 4)
    return bool(first.round(precision).equals(second.round(precision)))


def _fuzzy_texts(books: Books, rule: dict[str, Any], sub: dict[str, Any], coordinate: str) -> tuple[str, str]:
    texts = []
    for index in (rule["sheet_idx0"], rule["sheet_idx1"]):
        text = str(books.cell_value(index, coordinate))
        for old, new in sub.get("normalization", []):
            text = text.replace(old, new)
        if "trim_leadings" in sub:
            text = text.lstrip(sub["trim_leadings"])
        if "trim_trailings" in sub:
            text = text.rstrip(sub["trim_trailings"])
        if "ignore_chars" in sub:
            text = "".join(ch for ch in text if ch not in set(sub["ignore_chars"]))
        if sub.get("ignore_case", False):
            text = text.lower()
        texts.append(text)
    return texts[0], texts[1]


def _fuzzy_test(kind: Any, threshold: float) -> Callable[[str, str], bool]:
    from rapidfuzz import fuzz

    tests: dict[Any, Callable[[str, str], bool]] = {
        "includes": lambda one, two: two in one,
        "included_by": lambda one, two: one in two,
        "fuzzy_match": lambda one, two: fuzz.ratio(one, two) >= threshold,
        "exact_match": lambda one, two: one == two,
    }
    if kind not in tests:
        raise MetricFailed(f"compare_table sheet_fuzzy: match type {kind!r} is not one of {sorted(tests)}")
    return tests[kind]


def _sheet_fuzzy(books: Books, rule: dict[str, Any]) -> bool:
    holds = True
    for sub in rule["rules"]:
        test = _fuzzy_test(sub["type"], sub.get("threshold", 85.0))
        for cells in MultiCellRange(sub["range"]):
            for row, column in cells.cells:
                holds = test(*_fuzzy_texts(books, rule, sub, f"{get_column_letter(column)}{row}")) and holds
    return holds


def _check_cell(books: Books, rule: dict[str, Any]) -> bool:
    try:
        sheet = books.sheet(rule["sheet_idx"])
        if sheet is None:
            raise _NoScore
        cell = sheet[rule["coordinate"]]
        holds = True
        for prop, test in rule["props"].items():
            if prop == "value":
                try:
                    value = books.cell_value(rule["sheet_idx"], rule["coordinate"])
                except Exception:  # noqa: BLE001 - as OSWorld's try around read_cell_value
                    value = None
            else:
                try:
                    value = cell_style(prop, cell)
                except Exception:  # noqa: BLE001 - as OSWorld's try around _read_cell_style
                    value = None
            holds = holds and value_matches(value, test)
        return holds
    except Exception:  # noqa: BLE001 - OSWorld's check_cell scores the table 0 on any failure
        raise _NoScore from None


def _freeze(books: Books, rule: dict[str, Any]) -> bool:
    first, second = _both(rule, books.sheet)
    return first.freeze_panes == second.freeze_panes


def _one_sheet(books: Books, rule: dict[str, Any]) -> Worksheet:
    sheet = books.sheet(rule["sheet_idx"])
    if sheet is None:
        raise _NoScore
    return sheet


def _zoom(books: Books, rule: dict[str, Any]) -> bool:
    return value_matches(_one_sheet(books, rule).sheet_view.zoomScale or 100.0, rule)


def _rows(books: Books, index: Any, props: set[str]) -> dict[int, dict[str, Any]]:
    """OSWorld's load_rows_or_cols for rows: each row dimension's `props`; {} for no such sheet."""
    sheet = books.sheet(index)
    if sheet is None:
        return {}
    return {number: {prop: getattr(dimension, prop) for prop in props}
            for number, dimension in sheet.row_dimensions.items()}


def _row_props(books: Books, rule: dict[str, Any]) -> bool:
    props = set(rule.get("props", []))
    return _rows(books, rule["sheet_idx0"], props) == _rows(books, rule["sheet_idx1"], props)


def _data_validation(books: Books, rule: dict[str, Any]) -> bool:
    validations = _one_sheet(books, rule).data_validations.dataValidation
    wanted = rule["dv_props"]
    holds = len(validations) >= len(wanted)
    for validation in validations:
        holds = holds and any(all(value_matches(getattr(validation, name), test) for name, test in props.items())
                              for props in wanted)
        if not holds:
            break
    return holds


def _printed(books: Books, index: Any) -> list[str] | None:
    """OSWorld's _load_sheet of a workbook's path: the CSV `<stem>-<sheet>.csv` beside it, its lines
    stripped, from the last, trailing empty ones dropped; None when it is not there."""
    side, name = books.locate(index)
    book = books.raw[side]
    data = book.beside(f"{os.path.splitext(book.name)[0]}-{name}.csv") if isinstance(book, CachedFile) else None
    if data is None:
        return None
    return list(itertools.dropwhile(lambda line: not line, (line.strip() for line in reversed(lines(data)))))


def _sheet_print(books: Books, rule: dict[str, Any]) -> bool:
    first = _printed(books, rule["sheet_idx0"])
    if first is None:
        raise _NoScore
    second = _printed(books, rule["sheet_idx1"])
    if rule.get("ignore_case", False):
        if second is None:
            raise MetricFailed(f"compare_table sheet_print: no CSV of sheet {rule['sheet_idx1']!r} beside its "
                               "workbook (OSWorld's function raises lowercasing it)")
        first, second = [line.lower() for line in first], [line.lower() for line in second]
    return first == second


def _styles(books: Books, index: Any, props: list[str]) -> dict[str, list[Any]]:
    """OSWorld's load_xlsx_styles: every cell's `props`, then the cells each conditional format rule
    restyles, with the rule's differential style; {} for no such sheet."""
    sheet = books.sheet(index)
    if sheet is None:
        return {}
    styles = {cell.coordinate: [cell_style(p, cell) for p in props] for column in sheet.iter_cols() for cell in column}
    side, name = books.locate(index)
    for cell, dxf in restyled_cells(sheet, lambda ref: read_cell_value(books.raw[side], name, ref)):
        styles[cell.coordinate] = [cell_style(p, cell, dxf) for p in props]
    return styles


def _style(books: Books, rule: dict[str, Any]) -> bool:
    props = rule.get("props", [])
    return _styles(books, rule["sheet_idx0"], props) == _styles(books, rule["sheet_idx1"], props)


RULES: dict[str, Callable[[Books, dict[str, Any]], bool]] = {
    "sheet_name": _sheet_name,
    "sheet_data": _sheet_data,
    "sheet_fuzzy": _sheet_fuzzy,
    "check_cell": _check_cell,
    "freeze": _freeze,
    "zoom": _zoom,
    "row_props": _row_props,
    "data_validation": _data_validation,
    "sheet_print": _sheet_print,
    "style": _style,
    "chart": same_charts,
    "pivot_table": same_pivot_tables,
}


def compare_table(result: bytes | None, expected: bytes | None = None, **options: Any) -> float:
    if result is None:
        return 0.0
    try:
        books = Books(result, expected)
    except UnreadableWorkbook as exc:
        if exc.which == "result":
            return 0.0
        raise MetricFailed(f"compare_table: {exc} (OSWorld's function raises here)") from None
    if "rules" not in options:
        raise MetricFailed("compare_table: options need a `rules` list (OSWorld's function raises here)")
    try:
        for rule in options["rules"]:
            check = RULES.get(rule.get("type"))
            if check is None:
                raise MetricFailed(f"compare_table: rule type {rule.get('type')!r} is not supported "
                                   f"(supported: {sorted(RULES)})")
            if not check(books, rule):
                return 0.0
    except _NoScore:
        return 0.0
    except MetricFailed:
        raise
    except Exception as exc:  # noqa: BLE001 - what OSWorld's function raises on gives no score
        raise MetricFailed(f"compare_table: {type(exc).__name__}: {exc} (OSWorld's function raises here)") from None
    return 1.0


TABLE_METRICS = {"compare_table": compare_table}
