"""A full-screen X window that prints every button and key event it gets, one JSON line each.

Run on a display (`DISPLAY=:N python tests/x_events.py`); it prints `ready`
once mapped and focused. Tests read what really arrived at a window.
"""

import json
import sys

from Xlib import X, XK, display

conn = display.Display()
screen = conn.screen()
window = screen.root.create_window(
    0, 0, screen.width_in_pixels, screen.height_in_pixels, 0, screen.root_depth,
    override_redirect=True, background_pixel=screen.white_pixel,
    event_mask=X.ButtonPressMask | X.ButtonReleaseMask | X.KeyPressMask | X.ExposureMask,
)
window.map()
conn.sync()
window.set_input_focus(X.RevertToParent, X.CurrentTime)
conn.sync()
print("ready", flush=True)
while True:
    event = conn.next_event()
    if event.type in (X.ButtonPress, X.ButtonRelease):
        kind = "press" if event.type == X.ButtonPress else "release"
        print(json.dumps({"type": kind, "button": event.detail, "x": event.root_x, "y": event.root_y}), flush=True)
    elif event.type == X.KeyPress:
        name = XK.keysym_to_string(conn.keycode_to_keysym(event.detail, 0)) or ""
        print(json.dumps({"type": "key", "key": name, "ctrl": bool(event.state & X.ControlMask),
                          "shift": bool(event.state & X.ShiftMask)}), flush=True)
    if "--once" in sys.argv:
        break
