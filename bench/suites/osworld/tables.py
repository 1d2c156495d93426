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
  entry matching.

`value` is read from the sheet's XML as OSWorld's read_cell_value reads it:
a number as a float, a shared string, a formula's text, an inline string's
text (as xmltodict gives it: a dict when its `<t>` has attributes), an error's code; a boolean, a date or an empty cell as None; a file
or sheet that cannot be read as None. A missing result, or one openpyxl or
pandas cannot open, scores 0; a gold file that cannot be opened raises. What
OSWorld's function raises on is `MetricFailed` here (no score). The other
rule types OSWorld has (`sheet_print`, which reads CSV files the VM's
LibreOffice exports beside the workbook, `style`, `chart`, `pivot_table`,
`sparkline`, `filter`, `col_props`) are not here yet: `RULES` names the
supported ones and --list names a task needing another.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from openpyxl.cell.cell import MergedCell
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.cell_range import MultiCellRange
from openpyxl.worksheet.worksheet import Worksheet

from bench.formats.spreadsheet import MAIN, SheetIndexError, UnreadableWorkbook, Workbooks, sheet_cells, value_matches
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


def _style_of(cell: Any, prop: str) -> Any:
    """A cell's style `prop` as OSWorld's _read_cell_style reads it (no conditional format)."""
    filled = cell.value is not None
    readers: dict[str, Callable[[], Any]] = {
        "number_format": lambda: cell.number_format if filled and cell.data_type == "n" else None,
        "font_name": lambda: cell.font.name if filled else None,
        "font_family": lambda: cell.font.family if filled else None,
        "font_color": lambda: cell.font.color.rgb if filled else None,
        "font_bold": lambda: cell.font.bold if filled else None,
        "font_italic": lambda: cell.font.italic if filled else None,
        "font_underline": lambda: cell.font.underline if filled else None,
        "font_size": lambda: cell.font.size if filled else None,
        "fill_type": lambda: cell.fill.tagname,
        "bgcolor": lambda: cell.fill.fgColor.rgb,
        "fgcolor": lambda: cell.fill.fgColor.rgb,
        "hyperlink": lambda: (cell.hyperlink or "") if filled else None,
        "merge": lambda: isinstance(cell, MergedCell),
    }
    try:
        return readers[prop]()
    except Exception:  # noqa: BLE001 - check_cell reads any failure (an unknown prop too) as None
        return None


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
                value = _style_of(cell, prop)
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


RULES: dict[str, Callable[[Books, dict[str, Any]], bool]] = {
    "sheet_name": _sheet_name,
    "sheet_data": _sheet_data,
    "sheet_fuzzy": _sheet_fuzzy,
    "check_cell": _check_cell,
    "freeze": _freeze,
    "zoom": _zoom,
    "row_props": _row_props,
    "data_validation": _data_validation,
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
