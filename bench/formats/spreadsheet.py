"""What WAA's and OSWorld's `compare_table` read the same way from an xlsx workbook.

- `sheet_cells`: the workbook's shared strings and one sheet's cells, read
  from the XML as both references' read_cell_value reads them: the sheet's
  part is `xl/worksheets/sheet<sheetId>.xml` whatever the workbook's
  relationships say, the first cell with a coordinate wins, and the shared
  strings are read in one go: a missing part, or any `<t>` without text,
  leaves none (None). A file that is not a zip, a sheet or part that is not
  there, or XML that does not parse raise (`zipfile.BadZipFile`, `KeyError`,
  `ElementTree.ParseError`): each suite gives these its reference's outcome.
- `Workbooks`: the result and expected workbooks as both references open
  them: openpyxl (for sheets' properties, styles, charts), pandas (for sheet
  data) and the raw bytes (for cell values), and sheets named the task
  schema's way: an int or "RI<n>" is the result's n-th sheet, "RN<name>"
  the result's sheet by name, "EI<n>"/"EN<name>" the same in the expected
  workbook; an index past the end names no sheet (""). A file either
  library cannot open raises `UnreadableWorkbook`, a sheet named otherwise
  (or in an expected workbook the task has none of) `SheetIndexError`;
- `FONT_STYLES`: the font styles both references read, by Font attribute;
- `value_matches`: a value against a `{method, ref}` rule, as both
  references' _match_value_to_rule: eq, ne, lt, le, gt, ge, re[.FLAG...],
  approx:T, range.XY, str_list_eq, str_set_eq, spreadsheet_range. A method
  it does not know raises `UnknownMethod`; a value the method cannot take
  raises what Python raises (TypeError, AttributeError), as there.
"""

from __future__ import annotations

import builtins
import functools
import io
import operator
import re
import zipfile
from typing import Any
from xml.etree import ElementTree

import openpyxl
from openpyxl.worksheet.cell_range import MultiCellRange
from openpyxl.worksheet.worksheet import Worksheet

from protocols import TroupeError

__all__ = ["FONT_STYLES", "MAIN", "METHODS", "SheetIndexError", "UnknownMethod", "UnreadableWorkbook", "Workbooks",
           "sheet_cells", "value_matches"]

MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
FONT_STYLES = {"font_name": "name", "font_family": "family", "font_color": "color", "font_bold": "bold",
               "font_italic": "italic", "font_underline": "underline", "font_size": "size"}
"""The font styles both references' _read_cell_style read (a cell's, or a conditional format's), by the
openpyxl Font attribute each reads (the colour's `rgb` for font_color)."""
METHODS = "eq, ne, lt, le, gt, ge, re[.FLAG], approx:T, range.XY, str_list_eq, str_set_eq, spreadsheet_range"


class UnreadableWorkbook(TroupeError):
    """openpyxl or pandas cannot open the `which` ("result" or "expected") file."""

    def __init__(self, which: str, exc: Exception) -> None:
        super().__init__(f"the {which} file is not an xlsx workbook ({type(exc).__name__}: {exc})")
        self.which = which


class SheetIndexError(TroupeError, ValueError):
    """A sheet named neither as an int, RI<n>, RN<name>, EI<n> nor EN<name>, or one in an expected
    workbook the task has none of (both references raise on these)."""


class Workbooks:
    def __init__(self, result: bytes, expected: bytes | None) -> None:
        import pandas  # noqa: PLC0415 - a large import, needed once a table is compared

        self.pandas = pandas
        self.raw = {"R": result, "E": expected}
        self.xl: dict[str, openpyxl.Workbook] = {}
        self.frames: dict[str, Any] = {}
        for side, which in (("R", "result"), ("E", "expected")):
            if self.raw[side] is None:
                continue
            try:
                self.xl[side] = openpyxl.load_workbook(io.BytesIO(self.raw[side]))
                self.frames[side] = pandas.ExcelFile(io.BytesIO(self.raw[side]))
            except Exception as exc:  # noqa: BLE001 - openpyxl and pandas raise many kinds on a broken file
                raise UnreadableWorkbook(which, exc) from None

    def names(self, side: str) -> list[str] | None:
        """The sheet names, None for an expected workbook the task has none of."""
        return list(self.frames[side].sheet_names) if side in self.frames else None

    def locate(self, index: Any) -> tuple[str, str]:
        """(side, sheet name) for a sheet named the schema's way; "" for an index that names no sheet."""
        if isinstance(index, int):
            side, how, key = "R", "I", str(int(index))
        elif isinstance(index, str) and index[:2] in ("RI", "RN", "EI", "EN"):
            side, how, key = index[0], index[1], index[2:]
        else:
            raise SheetIndexError(f"sheet index {index!r} is not an int, RI<n>, RN<name>, EI<n> or EN<name>")
        if side not in self.xl:
            raise SheetIndexError(f"sheet {index!r} is in the expected workbook, and the task has none")
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
        """The sheet as pandas reads it (`read_excel`), None when it cannot (both references' _load_sheet)."""
        side, name = self.locate(index)
        try:
            return self.pandas.read_excel(self.frames[side], name)
        except Exception:  # noqa: BLE001 - any failure reads as "no sheet"
            return None


def _text(element: ElementTree.Element) -> str:
    if element.text is None:
        raise TypeError("a <t> without text")
    return element.text


@functools.lru_cache(maxsize=8)
def sheet_cells(xlsx: bytes, sheet_name: str) -> tuple[list[str] | None, dict[str, ElementTree.Element]]:
    with zipfile.ZipFile(io.BytesIO(xlsx)) as archive:
        shared: list[str] | None
        try:
            shared = ["".join(_text(t) for t in item.iter(f"{MAIN}t"))
                      for item in ElementTree.fromstring(archive.read("xl/sharedStrings.xml")).iter(f"{MAIN}si")]
        except (KeyError, ElementTree.ParseError, TypeError):
            shared = None
        workbook = ElementTree.fromstring(archive.read("xl/workbook.xml"))
        ids = {s.get("name"): s.get("sheetId") for s in workbook.iter(f"{MAIN}sheet")}
        sheet = ElementTree.fromstring(archive.read(f"xl/worksheets/sheet{ids[sheet_name]}.xml"))
    cells: dict[str, ElementTree.Element] = {}
    for row in sheet.iter(f"{MAIN}row"):
        for cell in row.findall(f"{MAIN}c"):
            cells.setdefault(cell.get("r"), cell)
    return shared, cells


class UnknownMethod(TroupeError, ValueError):
    """A `{method, ref}` rule whose method neither reference knows (both raise)."""


def _regex(value: Any, method: str, ref: Any) -> bool:
    flags = functools.reduce(operator.or_, (getattr(re, name) for name in method.split(".")[1:]), re.RegexFlag(0))
    return re.search(ref, value, flags) is not None


def _approx(value: Any, method: str, ref: Any) -> bool:
    threshold = float(method.split(":")[1])
    try:
        number = float(value)
    except (TypeError, ValueError):
        return False
    return abs(number - ref) <= threshold


def _range(value: Any, method: str, ref: Any) -> bool:
    return getattr(operator, "l" + method[6])(ref[0], value) and getattr(operator, "l" + method[7])(value, ref[1])


def _collection(value: Any, method: str, ref: Any) -> bool:
    kind = getattr(builtins, method[4:-3])
    return kind(value.strip("\"'").split(",")) == kind(ref)


def _within(value: Any, method: str, ref: Any) -> bool:
    low, high = MultiCellRange(ref[0]), MultiCellRange(ref[1])
    return all(r in value for r in low) and all(r in high for r in value)


def value_matches(value: Any, rule: dict[str, Any]) -> bool:
    method, ref = rule["method"], rule.get("ref")
    if method.startswith("re"):
        test = _regex
    elif method in ("eq", "ne", "le", "lt", "ge", "gt"):
        test = lambda v, m, r: getattr(operator, m)(v, r)
    elif method.startswith("approx"):
        test = _approx
    elif method == "spreadsheet_range":
        test = _within
    elif method.startswith("range."):
        test = _range
    elif method in ("str_list_eq", "str_set_eq"):
        test = _collection
    else:
        raise UnknownMethod(f"check_cell method {method!r} is not one of {METHODS}")
    return bool(test(value, method, ref))
