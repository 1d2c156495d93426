"""AT-SPI (Linux desktop) raw trees to UIElement trees.

Roles are mapped to the ARIA-style names the other backends use ("push
button" is a "button", "text" an editable "textbox"), so a prompt or a
scripted agent never needs to know the platform. Objects the toolkit says
are not showing (the items of a closed menu, a hidden toolbar) are left out
with their subtrees: they cannot be clicked, and they are most of the tree.
The raw node format is the one `actors.backends.x11.atspi` reads.
"""

from __future__ import annotations

from typing import Any

from protocols import UIElement

from actors.normalize.raw import RawNode, box, build_tree

ROLES = {
    "push button": "button", "toggle button": "button", "push button menu": "button",
    "check box": "checkbox", "radio button": "radio", "text": "textbox", "entry": "textbox",
    "password text": "textbox", "combo box": "combobox", "link": "link", "label": "text", "static": "text",
    "menu": "menu", "menu bar": "menubar", "menu item": "menuitem", "check menu item": "menuitemcheckbox",
    "radio menu item": "menuitemradio", "page tab": "tab", "page tab list": "tablist", "list": "list",
    "list box": "listbox", "list item": "listitem", "tree": "tree", "tree item": "treeitem",
    "tree table": "treegrid", "table": "table", "table row": "row", "table cell": "cell",
    "table column header": "columnheader", "column header": "columnheader", "table row header": "rowheader",
    "slider": "slider", "spin button": "spinbutton", "scroll bar": "scrollbar", "separator": "separator",
    "tool bar": "toolbar", "tool tip": "tooltip", "dialog": "dialog", "file chooser": "dialog",
    "alert": "alert", "heading": "heading", "image": "image", "icon": "image", "progress bar": "progressbar",
    "status bar": "status", "statusbar": "status", "document frame": "document", "document text": "document",
    "document web": "document", "application": "application", "frame": "window", "window": "window",
    "panel": "generic", "filler": "generic", "scroll pane": "generic", "viewport": "generic",
    "grouping": "group", "terminal": "terminal", "desktop frame": "desktop",
}
_ALWAYS_KEPT = {"application", "desktop frame"}
_TEXT_ROLES = {"text", "entry", "password text", "terminal", "document text", "paragraph", "label", "static"}


def role(atspi_role: str) -> str:
    return ROLES.get(atspi_role, atspi_role.replace(" ", "_"))


def _fields(node: RawNode) -> dict[str, Any]:
    extents = node.get("extents")
    text = node.get("text", "") if node.get("role") in _TEXT_ROLES else ""
    return {
        "role": role(node.get("role") or "unknown"),
        "name": node.get("name") or "",
        "bbox": box(*extents) if extents else None,
        "text": text if text != node.get("name") else "",
    }


def _showing(node: RawNode) -> bool:
    states = node.get("states")
    return states is None or "showing" in states or node.get("role") in _ALWAYS_KEPT


def normalize(raw: RawNode) -> UIElement | None:
    return build_tree(raw, _fields, keep=_showing)
