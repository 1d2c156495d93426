"""The six actors, the episode loop, the runner, the run folder, failure signals.

`actors.backends.<kind>` drive one kind of environment each; `actors.llm`
holds the LLM client and the roles built on it. `__all__` is the public
surface; the submodules stay importable for the details they hold.

The names are imported when first asked for (`from actors import
EpisodeRunner` works as usual): a node process imports one backend, its
Observer and its VMController, and should not pay for the runner, the
Evaluator and the run folder every time it starts.
"""

import importlib

_HOMES = {
    # the six actors and what they are given
    "actors.agent": ("Agent", "Policy"),
    "actors.evaluator": ("Analyst", "Checker", "Evaluator"),
    "actors.observer": ("Observer",),
    "actors.result_sink": ("ResultSink",),
    "actors.summarizer": ("Judge", "Summarizer"),
    "actors.vm_controller": ("VMController",),
    # environments
    "actors.backends": ("ScreenBackend", "VMBackend"),
    # episodes and runs
    "actors.episode": ("AgentFailed", "Crew", "EnvironmentFailure", "EpisodeOutcome", "Outlets", "run_episode"),
    "actors.runner": ("CrewFactory", "EpisodeRunner", "VMHost", "VMSlot"),
    # run folders and failures
    "actors.run_folder": ("ResultsError", "read_results"),
    "actors.errors": ("ConfigurationError",),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = sorted(_HOME_OF)


def __getattr__(name: str) -> object:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'actors' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # asked once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
