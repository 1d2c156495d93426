"""Task suites by name, for `--suite`.

Each built-in suite is imported when first asked for, and only once the
extra its libraries come with is installed: the core install runs the sim
and replay suites, and importing one suite's module (a node app) does not
import every suite and the libraries they need. `SUITES` holds the built-in
suites this environment can run.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from bench import extras

if TYPE_CHECKING:
    from bench.suites.base import Suite

__all__ = ["BUILT_IN", "SUITES", "built_in"]

# name -> (module, class, the extra its libraries come with)
BUILT_IN: dict[str, tuple[str, str, str | None]] = {
    "desktop": ("bench.suites.desktop.suite", "DesktopSuite", "desktop"),
    "miniwob": ("bench.suites.miniwob.suite", "MiniWobSuite", "web"),
    "mind2web": ("bench.suites.mind2web.suite", "Mind2WebSuite", None),
    "osworld": ("bench.suites.osworld.suite", "OSWorldSuite", "osworld"),
    "replay": ("bench.suites.replay.suite", "ReplaySuite", None),
    "sim": ("bench.suites.sim.suite", "SimSuite", None),
    "waa": ("bench.suites.waa.suite", "WAASuite", "waa"),
}


def built_in(name: str) -> type[Suite]:
    """The built-in suite `name`; ConfigError naming the extra to install when its libraries are missing."""
    module, attr, extra = BUILT_IN[name]
    if extra is not None:
        extras.require(extra, f"the {name} suite")
    return getattr(importlib.import_module(module), attr)


def __getattr__(name: str) -> object:
    if name != "SUITES":
        raise AttributeError(f"module 'bench.suites' has no attribute {name!r}")
    global SUITES
    SUITES = {suite: built_in(suite) for suite, (_, _, extra) in BUILT_IN.items()
              if extra is None or not extras.missing(extra)}
    return SUITES
