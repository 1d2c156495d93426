"""`find_default_font` as WAA's and OSWorld's docs.py define it alike.

Writer's default font lives in the user profile's registrymodifications.xcu
(not in a document) as the `Standard` property of the
`/org.openoffice.Office.Writer/DefaultFont` item; the last one read counts,
and it must be `rules.font_name`. A file that is not XML holds no font (so
it passes only a rule whose font is null); a missing file scores 0. A rule
without `font_name` raises `RuleLacks`, before the file is looked at, as there.
"""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree

from bench.formats.reference_raises import rule_value

__all__ = ["find_default_font"]

_NAMESPACES = {"oor": "http://openoffice.org/2001/registry"}
_ITEM = './/item[@oor:path="/org.openoffice.Office.Writer/DefaultFont"]'


def find_default_font(result: bytes | None, expected: Any, **options: Any) -> float:
    font = rule_value(expected, "font_name", "find_default_font")
    if result is None:
        return 0.0
    try:
        root = ElementTree.fromstring(result)
    except ElementTree.ParseError:
        return float(font is None)
    standard = [value.text for item in root.findall(_ITEM, _NAMESPACES)
                for prop in item.findall('.//prop[@oor:name="Standard"]', _NAMESPACES)
                for value in prop.findall("value", _NAMESPACES)]
    return float((standard[-1] if standard else None) == font)
