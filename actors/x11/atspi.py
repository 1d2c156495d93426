"""Read the AT-SPI tree of a desktop straight over D-Bus (jeepney, pure Python).

pyatspi needs PyGObject and the system's GObject introspection, which a
virtualenv does not see; AT-SPI itself is a plain D-Bus protocol, so a few
method calls per node are all it takes. The calls are blocking and run in a
worker thread under `actors.treewalk.Walk`'s caps and deadline.

The raw node is a dict: role (AT-SPI's role name), name, description,
states (names), extents [x, y, w, h] in screen pixels or absent when the
toolkit reports the object off screen, text (for objects with a Text
interface), child_count. `actors.normalize.atspi` turns it into UIElements.
"""

from __future__ import annotations

from typing import Any

from jeepney import DBusAddress, Properties, new_method_call
from jeepney.io.blocking import DBusConnection, open_dbus_connection

from actors.treewalk import Walk

ACCESSIBLE = "org.a11y.atspi.Accessible"
COMPONENT = "org.a11y.atspi.Component"
TEXT = "org.a11y.atspi.Text"
REGISTRY_ROOT = ("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root")
_SCREEN_COORDS = 0
_OFF_SCREEN = -(2**31)
MAX_TEXT = 20_000

# AtspiStateType bit numbers of the states worth keeping in the raw tree.
STATES = {4: "checked", 7: "editable", 8: "enabled", 12: "focused", 20: "pressed", 23: "selected", 25: "showing"}


def a11y_bus_address(session_bus: str) -> str:
    """Ask the session bus where the accessibility bus is (org.a11y.Bus.GetAddress)."""
    with open_dbus_connection(bus=session_bus) as bus:
        launcher = DBusAddress("/org/a11y/bus", bus_name="org.a11y.Bus", interface="org.a11y.Bus")
        return bus.send_and_get_reply(new_method_call(launcher, "GetAddress"), timeout=5).body[0]


class AtspiReader:
    """The two callbacks a Walk needs, over one connection to the accessibility bus."""

    def __init__(self, connection: DBusConnection, timeout: float = 5.0) -> None:
        self.conn = connection
        self.timeout = timeout
        self.role_names: dict[int, str] = {}

    def _call(self, ref: tuple[str, str], interface: str, method: str, signature: str | None = None,
              body: tuple = ()) -> Any:
        address = DBusAddress(ref[1], bus_name=ref[0], interface=interface)
        message = new_method_call(address, method, signature, body)
        return self.conn.send_and_get_reply(message, timeout=self.timeout).body

    def _property(self, ref: tuple[str, str], name: str) -> Any:
        address = DBusAddress(ref[1], bus_name=ref[0], interface=ACCESSIBLE)
        return self.conn.send_and_get_reply(Properties(address).get(name), timeout=self.timeout).body[0][1]

    def children(self, ref: tuple[str, str]) -> list[tuple[str, str]]:
        return [tuple(child) for child in self._call(ref, ACCESSIBLE, "GetChildren")[0]]

    def read(self, ref: tuple[str, str]) -> dict[str, Any]:
        role = self._call(ref, ACCESSIBLE, "GetRole")[0]
        if role not in self.role_names:
            self.role_names[role] = self._call(ref, ACCESSIBLE, "GetRoleName")[0]
        node: dict[str, Any] = {"role": self.role_names[role], "name": self._property(ref, "Name")}
        description = self._property(ref, "Description")
        if description:
            node["description"] = description
        words = self._call(ref, ACCESSIBLE, "GetState")[0]
        bits = sum(word << (32 * index) for index, word in enumerate(words))
        node["states"] = [name for bit, name in STATES.items() if bits >> bit & 1]
        interfaces = self._call(ref, ACCESSIBLE, "GetInterfaces")[0]
        if COMPONENT in interfaces:
            x, y, w, h = self._call(ref, COMPONENT, "GetExtents", "u", (_SCREEN_COORDS,))[0]
            if x != _OFF_SCREEN and w >= 0 and h >= 0:
                node["extents"] = [x, y, w, h]
        if TEXT in interfaces:
            node["text"] = self._call(ref, TEXT, "GetText", "ii", (0, MAX_TEXT))[0]
        node["child_count"] = self._property(ref, "ChildCount")
        return node


def capture(session_bus: str, walk: Walk) -> dict[str, Any]:
    """The whole desktop: the registry's root with one child per application."""
    with open_dbus_connection(bus=a11y_bus_address(session_bus)) as connection:
        reader = AtspiReader(connection)
        return walk.run(REGISTRY_ROOT, reader.read, reader.children)
