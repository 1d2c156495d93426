"""How to drive an environment, one folder per kind: a simulated screen, Chromium, an
X11 desktop, a Windows desktop, the HTTP protocol of a benchmark VM's own server, and
a recording played back.

A backend knows its environment (a simulated screen, Chromium, an Xvfb display,
a Windows desktop, a VM's server) and no benchmark: what a task means and
how it is judged lives with its suite under `bench/suites/`.
"""

from actors.backends.base import ScreenBackend, VMBackend

__all__ = ["ScreenBackend", "VMBackend"]
