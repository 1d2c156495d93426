"""The AT-SPI reader's kept encodings are the bytes jeepney itself writes for the same call and serial."""

from __future__ import annotations

from actors.backends.x11.atspi import ACCESSIBLE, COMPONENT, PROPERTIES, encoded, message

REF = (":1.42", "/org/a11y/atspi/accessible/7")
CALLS = [(REF, ACCESSIBLE, "GetRole", None, ()), (REF, PROPERTIES, "GetAll", "s", (ACCESSIBLE,)),
         (REF, PROPERTIES, "Get", "ss", (ACCESSIBLE, "Name")), (REF, COMPONENT, "GetExtents", "u", (0,))]


def test_a_kept_encoding_with_a_new_serial_is_what_jeepney_writes():
    for call in CALLS:
        for serial in (1, 2, 255, 256, 65_537, 2**32 - 1):
            assert encoded(call, serial) == message(call).serialise(serial=serial), (call, serial)
