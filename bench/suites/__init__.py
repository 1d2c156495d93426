"""Task suites by name, for `--suite`.

`SUITES` is built when first asked for: importing one suite's module (a
node app) does not import every suite and the libraries they need.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bench.suites.base import Suite


def _suites() -> dict[str, type[Suite]]:
    from bench.suites.desktop.suite import DesktopSuite
    from bench.suites.miniwob.suite import MiniWobSuite
    from bench.suites.osworld.suite import OSWorldSuite
    from bench.suites.replay.suite import ReplaySuite
    from bench.suites.sim.suite import SimSuite
    from bench.suites.waa.suite import WAASuite

    return {suite.name: suite for suite in (DesktopSuite, MiniWobSuite, OSWorldSuite, SimSuite, ReplaySuite,
                                                WAASuite)}


def __getattr__(name: str) -> object:
    if name != "SUITES":
        raise AttributeError(f"module 'bench.suites' has no attribute {name!r}")
    global SUITES
    SUITES = _suites()
    return SUITES
