"""Task suites by name, for `--suite`."""

from bench.suites.base import Suite
from bench.suites.desktop import DesktopSuite
from bench.suites.miniwob import MiniWobSuite
from bench.suites.replay import ReplaySuite
from bench.suites.sim import SimSuite
from bench.suites.waa import WAASuite

SUITES: dict[str, type[Suite]] = {
    DesktopSuite.name: DesktopSuite,
    MiniWobSuite.name: MiniWobSuite,
    SimSuite.name: SimSuite,
    ReplaySuite.name: ReplaySuite,
    WAASuite.name: WAASuite,
}
