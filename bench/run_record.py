"""run.json: what a run folder records of each start of its run, and whether a new start may join it.

A run folder is one configuration: its results make one summary, so resuming it with settings that
change what an episode means (the agent, the model, what the agent sees, the limits, the suite's
options) would average two runs into one figure. `run_folder` compares the settings a run starts
with to those the folder's run.json recorded and refuses in one line naming each one that differs;
told `force`, it gives the run a sub-folder `config-N` of its own instead (the first whose recorded
settings are these, else a new one), so the same command resumes that one. Settings marked
resumable (`bench.config.option`: how many episodes run at once, where the VMs live, which tasks
and how many repeats run, the viewer) may differ. A setting an older run.json does not name is not
compared, and a folder without results has nothing to mix and takes any settings.

run.json keeps every start of the run under `starts` (`earlier_starts` reads them back); its
top-level fields describe the latest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from actors.errors import ConfigError
from actors.run_folder import ResultsError, read_results
from bench.config import RunConfig, public, resumable_names, suite_values

__all__ = ["FORCED", "RUN_INFO", "differing", "earlier_starts", "run_folder", "settings"]

RUN_INFO = "run.json"
FORCED = "config-"
"""A sub-folder `config-N` holds the run of other settings that `force` started in a run folder."""

_GROUPS = ("limits", "llm", "options")


def settings(config: dict[str, Any], options_prefix: str) -> dict[str, Any]:
    """A configuration as run.json records it (`bench.config.public`), flat: each setting by its
    `bench.config.flatten` name (`max_steps`, `llm_model`, a suite's own with its prefix)."""
    flat = {name: value for name, value in config.items() if name not in _GROUPS}
    flat |= config.get("limits") or {}
    flat |= {"llm_" + name: value for name, value in (config.get("llm") or {}).items()}
    return flat | suite_values(config.get("options") or {}, options_prefix)


def differing(recorded: dict[str, Any], config: RunConfig, options_type: type | None,
              options_prefix: str) -> list[tuple[str, Any, Any]]:
    """The settings that change what an episode means and differ between a recorded configuration
    and `config`: (name, recorded value, value now), by name."""
    was = settings(recorded, options_prefix)
    now = settings(json.loads(json.dumps(public(config), default=str)), options_prefix)
    free = resumable_names(options_type, options_prefix)
    return [(name, was[name], now.get(name)) for name in sorted(was)
            if name not in free and was[name] != now.get(name)]


def run_folder(out: Path, config: RunConfig, options_type: type | None, options_prefix: str,
               name_of: Callable[[str], str] = str) -> Path:
    """The folder a run of `config` writes: `out` when it is new, holds no result, or was run with
    the same settings; with `config.force`, the `config-N` sub-folder of these settings; else a
    ConfigError naming each setting that differs."""
    found = _differences(out, config, options_type, options_prefix)
    if not found:
        return out
    if not config.force:
        said = ", ".join(f"{name_of(name)} (was {_short(was)}, now {_short(now)})" for name, was, now in found)
        raise ConfigError(f"run folder {out} holds a run with other settings that change what an episode means: "
                          f"{said}; resume it with its own settings, give {name_of('force')} to run these in a "
                          f"sub-folder {out / (FORCED + 'N')} of their own, or choose another {name_of('out')}")
    number = 2
    while _differences(out / f"{FORCED}{number}", config, options_type, options_prefix):
        number += 1
    return out / f"{FORCED}{number}"


def _differences(folder: Path, config: RunConfig, options_type: type | None,
                 options_prefix: str) -> list[tuple[str, Any, Any]]:
    recorded = _run_info(folder)
    if recorded is None or not _has_results(folder):
        return []
    return differing(recorded.get("config") or {}, config, options_type, options_prefix)


def _has_results(folder: Path) -> bool:
    try:
        return bool(read_results(folder))
    except ResultsError as exc:
        raise ConfigError(str(exc)) from None


def earlier_starts(folder: Path) -> list[dict[str, Any]]:
    """The starts run.json recorded (an older run.json, without `starts`, records one: itself)."""
    recorded = _run_info(folder)
    if recorded is None:
        return []
    return recorded.get("starts") or [{name: value for name, value in recorded.items() if name != "starts"}]


def _run_info(folder: Path) -> dict[str, Any] | None:
    """run.json, or None for a folder without one; a ConfigError naming it when it is not a run.json."""
    path = Path(folder) / RUN_INFO
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: not readable as JSON ({exc}); the run's settings cannot be compared "
                          f"with this start's (move it aside to resume without the comparison)") from None
    if not isinstance(data, dict) or not isinstance(data.get("config", {}), dict):
        raise ConfigError(f"{path}: not a run.json (expected an object with a `config` object)")
    return data


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
