"""Task suites by name, for `--suite`."""

from bench.suites.base import Suite
from bench.suites.desktop.suite import DesktopSuite
from bench.suites.miniwob.suite import MiniWobSuite
from bench.suites.replay.suite import ReplaySuite
from bench.suites.sim.suite import SimSuite
from bench.suites.waa.suite import WAASuite

SUITES: dict[str, type[Suite]] = {
    DesktopSuite.name: DesktopSuite,
    MiniWobSuite.name: MiniWobSuite,
    SimSuite.name: SimSuite,
    ReplaySuite.name: ReplaySuite,
    WAASuite.name: WAASuite,
}
