"""The session's window manager settings: Debian's openbox defaults, less two traps no desktop of a
benchmark has.

- The root menu: a right click on the bare desktop opens it, the menu takes the keyboard, and its "Exit"
  item (one "e" typed) ends the window manager, so an agent that right-clicks the desktop and then types
  loses its keys and, with them, the session.
- Other virtual desktops: a scroll over the bare desktop switches to an empty one, and every window seems
  gone. The session keeps one desktop.

Openbox reads `~/.config/openbox/rc.xml` of the session's home; callers add key bindings to it
(`keybinds`) and have a running openbox read it again (`openbox --reconfigure`).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

DEFAULT_RC = Path("/etc/xdg/openbox/rc.xml")
NS = "http://openbox.org/3.4/rc"
_MENUS_ON_THE_DESKTOP = ("Root",)


def _tag(name: str) -> str:
    return f"{{{NS}}}{name}"


def _child(parent: ET.Element, name: str) -> ET.Element:
    found = parent.find(_tag(name))
    return found if found is not None else ET.SubElement(parent, _tag(name))


def settings(keybinds: str = "") -> str:
    """rc.xml for a session: Debian's, without the desktop's menus, with one desktop, plus `keybinds`
    (openbox `<keybind>` elements)."""
    ET.register_namespace("", NS)
    root = ET.fromstring(DEFAULT_RC.read_text()) if DEFAULT_RC.is_file() else ET.Element(_tag("openbox_config"))
    mouse = root.find(_tag("mouse"))
    for context in mouse.findall(_tag("context")) if mouse is not None else []:
        if context.get("name") in _MENUS_ON_THE_DESKTOP:
            mouse.remove(context)
    _child(_child(root, "desktops"), "number").text = "1"
    keyboard = _child(root, "keyboard")
    for bind in ET.fromstring(f'<keybinds xmlns="{NS}">{keybinds}</keybinds>'):
        keyboard.insert(0, bind)
    return ET.tostring(root, encoding="unicode")


def write(home: Path, keybinds: str = "") -> Path:
    """The session's rc.xml, written where its openbox reads it."""
    config = home / ".config" / "openbox" / "rc.xml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(settings(keybinds))
    return config
