"""Task suites by name, for `--suite`."""

from bench.suites.base import Suite
from bench.suites.replay import ReplaySuite
from bench.suites.sim import SimSuite
from bench.suites.waa import WAASuite

SUITES: dict[str, type[Suite]] = {
    SimSuite.name: SimSuite,
    ReplaySuite.name: ReplaySuite,
    WAASuite.name: WAASuite,
}
