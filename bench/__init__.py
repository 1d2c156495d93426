"""troupe's benchmark harness: run a suite from Python or from `python -m bench.supervisor`.

    import bench
    run = await bench.run("sim", agent=MyPolicy(), episodes=20)   # on asyncio or trio
    run = bench.run_sync("sim", episodes=20)
    run = bench.load_run("runs/sim-20260101-120000")

The names are imported when first asked for, as in `actors`: a node process
that imports one suite's node app (`bench.suites.miniwob.node`) should not
pay for the API, every suite and their libraries each time it starts.
"""

import importlib

_HOMES = {
    "bench.api": ("Run", "load_run", "run", "run_sync"),
    "bench.config": ("ConfigError", "LLMOptions", "LimitsConfig", "RunConfig"),
    "bench.suites.base": ("Suite", "SuiteError", "UnknownTask"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = sorted(_HOME_OF)


def __getattr__(name: str) -> object:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'bench' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # asked once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
