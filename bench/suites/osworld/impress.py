"""LibreOffice Impress's state as OSWorld's impress metrics read it.

- `check_left_panel`: the accessibility tree (OSWorld's XML, the
  `accessibility_tree` getter's text) has a `document-frame` element named
  "Slides View", the slide panel; a tree that is not XML raises in OSWorld.
- `check_auto_saving_time`: LibreOffice's registrymodifications.xcu sets
  `AutoSaveTimeIntervall` under `/org.openoffice.Office.Common/Save/Document`
  to the rule's `minutes` (the last such item's value, as an int; none, or
  an empty value, scores 0). A file that is not XML gives OSWorld no score
  (its function logs and returns None); a prop without a `value` element, or
  one that is not a number, raises.
- `check_presenter_console_disable`: the same file's first
  `EnablePresenterScreen` prop directly under an item whose path is
  `/org.openoffice.Office.Impress/Misc/Start` has the value "false" (any
  case). OSWorld's function scores 0 on anything else, a file that is not
  XML, a missing value and no file among them.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from typing import Any

from bench.suites.osworld.errors import MetricFailed

_OOR = "{http://openoffice.org/2001/registry}"
AUTOSAVE_ITEM = "/org.openoffice.Office.Common/Save/Document"
_PRESENTER_SCREEN = (".//item[@oor:path='/org.openoffice.Office.Impress/Misc/Start']"
                     "/prop[@oor:name='EnablePresenterScreen']")


def check_left_panel(result: str | None, **options: Any) -> float:
    if result is None:
        raise MetricFailed("check_left_panel: no accessibility tree to read (OSWorld's function raises here)")
    try:
        root = ET.fromstring(result)
    except ET.ParseError as exc:
        raise MetricFailed(f"check_left_panel: the accessibility tree is not XML ({exc}; "
                           "OSWorld's function raises here)") from None
    return float(any(frame.attrib.get("name") == "Slides View" for frame in root.iter("document-frame")))


def check_auto_saving_time(result: bytes | None, rules: Any, **options: Any) -> float:
    if not isinstance(rules, dict) or "minutes" not in rules:
        raise MetricFailed(f"check_auto_saving_time: expected rules with `minutes`, got {rules!r} "
                           "(OSWorld's function raises here)")
    if result is None:
        raise MetricFailed("check_auto_saving_time: no file to read (OSWorld's function raises here)")
    try:
        root = ET.parse(io.BytesIO(result)).getroot()
    except ET.ParseError as exc:
        raise MetricFailed(f"check_auto_saving_time: the file is not XML ({exc}; OSWorld's function returns "
                           "None: no score)") from None
    found: str | None = None
    for item in root.findall(".//item"):
        if item.get(f"{_OOR}path") != AUTOSAVE_ITEM:
            continue
        for prop in item.findall(".//prop"):
            if prop.get(f"{_OOR}name") == "AutoSaveTimeIntervall":
                value = prop.find(".//value")
                if value is None:
                    raise MetricFailed("check_auto_saving_time: AutoSaveTimeIntervall has no value element "
                                       "(OSWorld's function raises here)")
                found = value.text
                break
    if found is None:
        return 0.0
    try:
        minutes = int(found)
    except ValueError:
        raise MetricFailed(f"check_auto_saving_time: AutoSaveTimeIntervall is {found!r}, not a number "
                           "(OSWorld's function raises here)") from None
    return float(minutes == rules["minutes"])


def check_presenter_console_disable(result: bytes | None, **options: Any) -> float:
    if result is None:
        return 0.0
    try:
        root = ET.parse(io.BytesIO(result)).getroot()
    except Exception:  # noqa: BLE001 - OSWorld's function scores 0 on whatever fails to parse
        return 0.0
    prop = root.find(_PRESENTER_SCREEN, {"oor": _OOR[1:-1]})
    value = None if prop is None else prop.find("value")
    text = None if value is None else value.text
    return float(text is not None and text.lower() == "false")


IMPRESS_METRICS = {"check_left_panel": check_left_panel, "check_auto_saving_time": check_auto_saving_time,
                   "check_presenter_console_disable": check_presenter_console_disable}
