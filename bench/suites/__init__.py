"""Task suites by name, for `--suite`."""

from bench.suites.base import Suite
from bench.suites.replay import ReplaySuite
from bench.suites.sim import SimSuite

SUITES: dict[str, type[Suite]] = {
    SimSuite.name: SimSuite,
    ReplaySuite.name: ReplaySuite,
}
