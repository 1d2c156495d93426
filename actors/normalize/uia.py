"""UI Automation (Windows) raw trees to UIElement trees.

The raw node is what `actors.backends.windows.uia` (and the recorder,
`python -m actors.backends.windows.record`) reads through `uiautomation`: the
control's properties under their UIA names — ControlType (as the
uiautomation ControlTypeName, "ButtonControl"), Name, AutomationId,
ClassName, BoundingRectangle [left, top, right, bottom], IsOffscreen, Value
(ValuePattern) or Text (TextPattern) — plus `children`. Everything stays in
the raw tree; the UIElement keeps what an agent acts on.
"""

from __future__ import annotations

from typing import Any

from protocols import UIElement

from actors.normalize.raw import RawNode, box, build_tree

ROLES = {
    "AppBarControl": "toolbar", "ButtonControl": "button", "CalendarControl": "grid", "CheckBoxControl": "checkbox",
    "ComboBoxControl": "combobox", "CustomControl": "generic", "DataGridControl": "grid", "DataItemControl": "row",
    "DocumentControl": "document", "EditControl": "textbox", "GroupControl": "group", "HeaderControl": "row",
    "HeaderItemControl": "columnheader", "HyperlinkControl": "link", "ImageControl": "image", "ListControl": "list",
    "ListItemControl": "listitem", "MenuBarControl": "menubar", "MenuControl": "menu", "MenuItemControl": "menuitem",
    "PaneControl": "generic", "ProgressBarControl": "progressbar", "RadioButtonControl": "radio",
    "ScrollBarControl": "scrollbar", "SemanticZoomControl": "generic", "SeparatorControl": "separator",
    "SliderControl": "slider", "SpinnerControl": "spinbutton", "SplitButtonControl": "button",
    "StatusBarControl": "status", "TabControl": "tablist", "TabItemControl": "tab", "TableControl": "table",
    "TextControl": "text", "ThumbControl": "generic", "TitleBarControl": "titlebar", "ToolBarControl": "toolbar",
    "ToolTipControl": "tooltip", "TreeControl": "tree", "TreeItemControl": "treeitem", "WindowControl": "window",
}


def role(control_type: str) -> str:
    known = ROLES.get(control_type)
    if known is None:
        raise ValueError(f"unknown UIA ControlType {control_type!r}")
    return known


def _fields(node: RawNode) -> dict[str, Any]:
    if "ControlType" not in node:
        raise KeyError("a UIA node needs `ControlType`")
    rect = node.get("BoundingRectangle")
    bbox = None
    if rect:
        left, top, right, bottom = rect
        bbox = box(left, top, right - left, bottom - top)
    name = node.get("Name") or ""
    text = node.get("Value") or node.get("Text") or ""
    return {"role": role(node["ControlType"]), "name": name, "bbox": bbox, "text": text if text != name else ""}


def _on_screen(node: RawNode) -> bool:
    return not node.get("IsOffscreen", False)


def normalize(raw: RawNode) -> UIElement | None:
    return build_tree(raw, _fields, keep=_on_screen)
