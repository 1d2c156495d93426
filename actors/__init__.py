"""The six actors, the episode loop, the runner, the run folder, failure signals.

`actors.backends.<kind>` drive one kind of environment each; `actors.llm`
holds the LLM client and the roles built on it. `__all__` is the public
surface; the submodules stay importable for the details they hold.

The names are imported when first asked for (`from actors import
EpisodeRunner` works as usual): a node process imports one backend, its
Observer and its VMController, and should not pay for the runner, the
Evaluator and the run folder every time it starts.
"""

from actors.exports import lazy_exports as _lazy_exports

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
    "actors.errors": ("ConfigError",),
}
__all__, __getattr__, __dir__ = _lazy_exports(__name__, _HOMES)
