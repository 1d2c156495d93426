"""WAA's accessibility dump (`{"AT": "<xml>"}`) as a normalized UIElement tree.

The server writes one XML element per UI node: the tag is the role
(pywinauto class name or AT-SPI role), `name` the accessible name, the
position and size in the component namespace as "(x, y)" strings, and the
node's text as element text. WAA's servers name the component namespace
`uri:deskat:component.at-spi.gnome.org`; OSWorld's, which send the same
shape, `https://accessibility.ubuntu.example.org/ns/component` (and the
windows/macos variants). Unparseable XML gives no tree (the raw text is
still kept) rather than failing the step.
"""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET

from protocols import BBox, UIElement

COMPONENT = "{uri:deskat:component.at-spi.gnome.org}"
COMPONENTS = (COMPONENT, *(f"{{https://accessibility.{system}.example.org/ns/component}}"
                           for system in ("ubuntu", "windows", "macos")))
_PAIR = re.compile(r"\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)")


def _pair(text: str | None) -> tuple[int, int] | None:
    match = _PAIR.fullmatch(text.strip()) if text else None
    return (int(match[1]), int(match[2])) if match else None


def _component(node: ET.Element, name: str) -> str | None:
    return next((node.get(space + name) for space in COMPONENTS if node.get(space + name) is not None), None)


def _bbox(node: ET.Element) -> BBox | None:
    where, size = _pair(_component(node, "screencoord")), _pair(_component(node, "size"))
    if where is None or size is None or size[0] < 0 or size[1] < 0:
        return None
    return BBox(float(where[0]), float(where[1]), float(size[0]), float(size[1]))


def normalize(xml: str) -> UIElement | None:
    try:
        root = ET.fromstring(xml)
    except ET.ParseError:
        return None
    ids = itertools.count()

    def convert(node: ET.Element) -> UIElement:
        return UIElement(
            node_id=str(next(ids)),
            role=node.tag.rsplit("}", 1)[-1],
            name=node.get("name", ""),
            bbox=_bbox(node),
            text=(node.text or "").strip(),
            children=tuple(convert(child) for child in node),
        )

    return convert(root)
