"""Workbooks as the calc tasks' applications write them, for the differential corpus.

`book` writes with openpyxl (what a script or Excel-like writer gives:
shared strings, no cached formula values). `package` writes the XML parts
themselves, in the shape LibreOffice Calc saves an xlsx: every formula with
its cached value, formula text results as `t="str"`, errors as `t="e"`,
booleans as `t="b"`, dates and times as numbers under a date or time style,
and (as other writers do) inline strings, which openpyxl never writes.
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any, Callable
from xml.sax.saxutils import escape

import openpyxl

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"

STYLE = {"general": 0, "date": 1, "time": 2, "datetime": 3, "bold_red_on_blue": 4}
"""The cellXfs index of each style `package` writes."""

_STYLES = f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="{_MAIN}">
<numFmts count="1"><numFmt numFmtId="164" formatCode="YYYY-MM-DD HH:MM:SS"/></numFmts>
<fonts count="2"><font><sz val="10"/><name val="Arial"/><family val="2"/></font>
<font><b val="true"/><sz val="10"/><color rgb="FFFFFFFF"/><name val="Arial"/><family val="2"/></font></fonts>
<fills count="3"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill>
<fill><patternFill patternType="solid"><fgColor rgb="FF0000FF"/><bgColor indexed="64"/></patternFill></fill></fills>
<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>
<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>
<cellXfs count="5"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>
<xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>
<xf numFmtId="21" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>
<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>
<xf numFmtId="0" fontId="1" fillId="2" borderId="0" xfId="0" applyFont="1" applyFill="1"/></cellXfs>
<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>
</styleSheet>"""


def book(rows: list[list[Any]], build: Callable[[Any], None] | None = None, *,
         sheets: tuple[str, ...] = ("Sheet1",)) -> bytes:
    """An openpyxl workbook: `rows` on every sheet, then `build(first sheet)`."""
    workbook = openpyxl.Workbook()
    workbook.active.title = sheets[0]
    for name in sheets[1:]:
        workbook.create_sheet(name)
    for sheet in workbook.worksheets:
        for row in rows:
            sheet.append(row)
    if build is not None:
        build(workbook.active)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def cell(ref: str, value: Any = None, *, kind: str | None = None, formula: str | None = None,
         style: str = "general", inline: str | None = None) -> str:
    """One `<c>` element: `kind` is its `t` (s, str, e, b, n, inlineStr; none for a number)."""
    attributes = f' r="{ref}" s="{STYLE[style]}"' + (f' t="{kind}"' if kind else "")
    body = f"<f>{escape(formula)}</f>" if formula is not None else ""
    if inline is not None:
        body += f"<is><t>{escape(inline)}</t></is>"
    if value is not None:
        body += f"<v>{escape(str(value))}</v>"
    return f"<c{attributes}>{body}</c>"


def row(number: int, *cells: str) -> str:
    return f'<row r="{number}">{"".join(cells)}</row>'


def package(sheets: dict[str, list[str]], shared: list[str] = (), *, sheet_ids: list[int] | None = None,
            extra: str = "") -> bytes:
    """An xlsx from its parts: each sheet's `<row>` elements, the shared strings, and `extra`
    sheet XML after `sheetData` (conditional formatting, merged cells). `sheet_ids` are the
    workbook's sheetId values (after a sheet is deleted they no longer follow the part names)."""
    ids = sheet_ids or list(range(1, len(sheets) + 1))
    parts: dict[str, str] = {
        "[Content_Types].xml": (
            '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
            'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
            'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override '
            'PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.'
            'sheet.main+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-'
            'officedocument.spreadsheetml.styles+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType='
            '"application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
            + "".join(f'<Override PartName="/xl/worksheets/sheet{n}.xml" ContentType="application/vnd.openxmlformats-'
                      f'officedocument.spreadsheetml.worksheet+xml"/>' for n in range(1, len(sheets) + 1))
            + "</Types>"),
        "_rels/.rels": (
            f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/'
            f'2006/relationships"><Relationship Id="rId1" Type="{_REL}/officeDocument" Target="xl/workbook.xml"/>'
            f"</Relationships>"),
        "xl/workbook.xml": (
            f'<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="{_MAIN}" xmlns:r="{_REL}"><sheets>'
            + "".join(f'<sheet name="{escape(name)}" sheetId="{ids[n]}" r:id="rId{n + 1}"/>'
                      for n, name in enumerate(sheets))
            + "</sheets></workbook>"),
        "xl/_rels/workbook.xml.rels": (
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/'
            '2006/relationships">'
            + "".join(f'<Relationship Id="rId{n}" Type="{_REL}/worksheet" Target="worksheets/sheet{n}.xml"/>'
                      for n in range(1, len(sheets) + 1))
            + f'<Relationship Id="rIdS" Type="{_REL}/styles" Target="styles.xml"/>'
            + f'<Relationship Id="rIdT" Type="{_REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>'),
        "xl/styles.xml": _STYLES,
        "xl/sharedStrings.xml": (
            f'<?xml version="1.0" encoding="UTF-8"?><sst xmlns="{_MAIN}" count="{len(shared)}" '
            f'uniqueCount="{len(shared)}">'
            + "".join(f'<si><t xml:space="preserve">{escape(s)}</t></si>' for s in shared) + "</sst>"),
    }
    for n, rows in enumerate(sheets.values(), start=1):
        parts[f"xl/worksheets/sheet{n}.xml"] = (
            f'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="{_MAIN}" xmlns:r="{_REL}"><sheetData>'
            + "".join(rows) + "</sheetData>" + (extra if n == 1 else "") + "</worksheet>")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in parts.items():
            archive.writestr(name, text)
    return out.getvalue()


def with_part(xlsx: bytes, part: str, edit: Callable[[bytes], bytes]) -> bytes:
    """The workbook with one part's bytes rewritten by `edit`."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(xlsx)) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            target.writestr(item, edit(data) if item.filename == part else data)
    return out.getvalue()


def with_cell(xlsx: bytes, ref: str, xml: str) -> bytes:
    """The workbook with its first sheet's cell `ref` written as `xml`."""
    pattern = re.compile(rf'<c r="{ref}"[^>]*?(/>|>.*?</c>)'.encode())
    return with_part(xlsx, "xl/worksheets/sheet1.xml", lambda data: pattern.sub(xml.encode(), data, count=1))
