"""troupe's benchmark harness: run a suite from Python or from `python -m bench.supervisor`.

    import bench
    run = await bench.run("sim", agent=MyPolicy(), options={"episodes": 20})   # on asyncio or trio
    run = bench.run_sync("sim", options={"episodes": 20}, max_steps=10)
    run = bench.load_run("runs/sim-20260101-120000")

The names are imported when first asked for, as in `actors`: a node process
that imports one suite's node app (`bench.suites.miniwob.node`) should not
pay for the API, every suite and their libraries each time it starts.
"""

from pathlib import Path as _Path

from bench import installation as _installation

__version__ = "0.1.0"  # the troupe-bench distribution's version (pyproject.toml reads it from here)

_installation.check(_Path(__file__).parent.parent, __version__)  # before anything of ours is imported

from actors.exports import lazy_exports as _lazy_exports  # noqa: E402

_HOMES = {
    "bench.api": ("Run", "load_run", "run", "run_sync"),
    "bench.config": ("ConfigError", "LLMOptions", "LimitsConfig", "RunConfig"),
    "bench.suites.base": ("Suite", "UnknownTask"),
}
__all__, __getattr__, __dir__ = _lazy_exports(__name__, _HOMES)
