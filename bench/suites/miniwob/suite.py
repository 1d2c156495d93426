"""The MiniWoB++ suite: the 128 tasks shipped in the `miniwob` package, on real Chromium.

A task id is `<task>@<seed>` (`click-button@3`): MiniWoB generates each
episode's problem from a seed, so a task and a seed are one reproducible
episode. A run's repeat R of `click-button@3` starts the page with seed
`repeat_seed(3, R)` (3, 1000003, 2000003, ...), a problem of its own. Each MiniWoB task is its own domain, so the run's table by domain is
the success table per task.

The instruction is the page's own utterance, which exists only once the
episode started: the Observer reports it and the episode adopts it. The
verdict is read from the page's reward globals: success means the raw reward
(before MiniWoB's time discount) is above zero.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Annotated

import msgspec

from protocols import Evaluate, Task, Verdict
from actors.errors import ConfigError

from bench.suites.miniwob.site import miniwob_html
from bench.config import RunConfig, option
from bench.suites.base import Suite, UnknownTask, repeat_seed

VIEWPORT = (500, 320)
FLIGHT_VIEWPORT = (600, 800)
REWARD_GLOBALS = ("WOB_RAW_REWARD_GLOBAL", "WOB_REWARD_GLOBAL", "WOB_DONE_GLOBAL", "WOB_REWARD_REASON")

DEFAULT_TASKS = (
    "click-button", "click-button-sequence", "click-checkboxes", "click-checkboxes-transfer",
    "click-collapsible", "click-collapsible-nodelay", "click-dialog", "click-dialog-2", "click-link",
    "click-option", "click-tab", "click-test", "click-test-2", "click-test-transfer", "click-widget",
    "choose-list", "enter-password", "enter-text", "enter-text-2", "focus-text", "focus-text-2",
    "login-user", "unicode-test", "simple-arithmetic",
)
"""The default selection: task families a scripted agent can solve from the tree."""


@cache
def task_names() -> tuple[str, ...]:
    """The 128 tasks the package registers (its registration module, read as text: importing
    it would import gymnasium for nothing)."""
    registration = (miniwob_html().parent / "registration.py").read_text()
    return tuple(sorted(re.findall(r'id="miniwob/([\w.-]+)-v\d+"', registration)))


def miniwob_task(name: str, seed: int) -> Task:
    flight = name.startswith("flight.")
    return Task(
        task_id=f"{name}@{seed}",
        instruction=f"Do the MiniWoB++ task {name} as the page's instruction says.",
        domain=name,
        raw_config={"browser": {"start": f"miniwob:{name}", "seed": seed,
                                "viewport": list(FLIGHT_VIEWPORT if flight else VIEWPORT)}},
        evaluation_spec={"globals": list(REWARD_GLOBALS)},
    )


class MiniWobChecker:
    """Success is a raw reward above zero, read from the page after the episode."""

    async def check(self, request: Evaluate) -> Verdict:
        page = request.vm_state.get("globals", {})
        raw, done = page.get("WOB_RAW_REWARD_GLOBAL"), page.get("WOB_DONE_GLOBAL")
        if not done or raw is None:
            return Verdict(success=False, score=0.0, reason="the page did not end the episode (no reward)")
        reason = page.get("WOB_REWARD_REASON")
        return Verdict(success=raw > 0, score=float(raw),
                       reason=f"raw reward {raw:g}" + (f" ({reason})" if reason else ""))


class MiniWobOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    tasks: Annotated[str | list[str], option(
        "miniwob: task names, 'default' (24 tasks) or 'all' (128)", resumable=True)] = "default"
    seeds: Annotated[int | list[int], option("miniwob: a count N (seeds 0..N-1), or the seeds themselves",
                                             resumable=True)] = 3


class MiniWobSuite(Suite):
    name = "miniwob"
    Options = MiniWobOptions
    flag_prefix = "miniwob-"
    default_agent = "scripted"
    default_summarizer = "none"  # the scripted agent reads no summaries; the simulated judge only adds latency
    node_app = "bench.suites.miniwob.node:build"
    shares_browser = True
    last_screen_shows_work = False

    def __init__(self, names: tuple[str, ...], seeds: tuple[int, ...], chosen: str | list[str] = "default") -> None:
        self.names = names
        self.seeds = seeds
        self.chosen = chosen

    @classmethod
    def from_config(cls, config: RunConfig) -> MiniWobSuite:
        options: MiniWobOptions = config.options
        return cls(task_names(), _seeds(options.seeds), options.tasks)

    def list_tasks(self, domain: str | None = None) -> list[Task]:
        names = self.names if domain is None else [n for n in self.names if n == domain]
        return [miniwob_task(name, seed) for name in names for seed in self.seeds]

    def load_task(self, task_id: str) -> Task:
        """`<task>@<seed>` with any seed, or a bare task name (the first seed)."""
        name, _, seed = task_id.partition("@")
        if name not in self.names or (seed and not seed.isdigit()):
            raise UnknownTask(self.name, task_id, [*self.names, *(t.task_id for t in self.list_tasks())])
        return miniwob_task(name, int(seed) if seed else self.seeds[0])

    def selection(self) -> list[Task]:
        if self.chosen in ("all", "default"):
            names = list(self.names) if self.chosen == "all" else list(DEFAULT_TASKS)
        else:
            names = [self.chosen] if isinstance(self.chosen, str) else list(self.chosen)
        if not names or not all(names):
            raise ConfigError(f"miniwob tasks: expected task names, 'default' ({len(DEFAULT_TASKS)} tasks) or "
                              f"'all' ({len(self.names)}), got {self.chosen!r}")
        for name in names:
            if name not in self.names:
                raise UnknownTask(self.name, name, self.names)
        return [miniwob_task(name, seed) for name in names for seed in self.seeds]

    def repeated(self, task: Task, repeat: int) -> Task:
        browser = task.raw_config["browser"]
        raw_config = {**task.raw_config, "browser": {**browser, "seed": repeat_seed(browser["seed"], repeat)}}
        return msgspec.structs.replace(task, repeat=repeat, raw_config=raw_config)

    def checker(self) -> MiniWobChecker:
        return MiniWobChecker()


def _seeds(seeds: int | list[int]) -> tuple[int, ...]:
    if isinstance(seeds, int):
        if seeds < 1:
            raise ConfigError(f"miniwob seeds: a count must be at least 1, got {seeds}")
        return tuple(range(seeds))
    if not seeds or any(seed < 0 for seed in seeds):
        raise ConfigError(f"miniwob seeds: expected a count or seeds >= 0, got {seeds!r}")
    return tuple(seeds)
