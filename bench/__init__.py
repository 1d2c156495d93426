"""troupe's benchmark harness: run a suite from Python or from `python -m bench.supervisor`.

    import bench
    run = await bench.run("sim", agent=MyPolicy(), episodes=20)   # on asyncio or trio
    run = bench.run_sync("sim", episodes=20)
    run = bench.load_run("runs/sim-20260101-120000")
"""

from bench.api import Run, load_run, run, run_sync
from bench.config import ConfigError, LimitsConfig, LLMOptions, RunConfig
from bench.suites.base import Suite, SuiteError, UnknownTask

__all__ = [
    "ConfigError", "LLMOptions", "LimitsConfig", "Run", "RunConfig", "Suite", "SuiteError", "UnknownTask",
    "load_run", "run", "run_sync",
]
