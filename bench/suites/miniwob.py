"""The MiniWoB++ suite: the 128 tasks shipped in the `miniwob` package, on real Chromium.

A task id is `<task>@<seed>` (`click-button@3`): MiniWoB generates each
episode's problem from a seed, so a task and a seed are one reproducible
episode. Each MiniWoB task is its own domain, so the run's table by domain is
the success table per task.

The instruction is the page's own utterance, which exists only once the
episode started: the Observer reports it and the episode adopts it. The
verdict is read from the page's reward globals: success means the raw reward
(before MiniWoB's time discount) is above zero.
"""

from __future__ import annotations

import argparse
import re
from functools import cache

from protocols import Evaluate, Task, Verdict

from actors.browser.sites import miniwob_html
from bench.suites.base import Suite, SuiteError, UnknownTask

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


def miniwob_task(name: str, seed: int, *, max_steps: int = 15) -> Task:
    flight = name.startswith("flight.")
    return Task(
        task_id=f"{name}@{seed}",
        instruction=f"Do the MiniWoB++ task {name} as the page's instruction says.",
        domain=name,
        time_limit_steps=max_steps,
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


class MiniWobSuite(Suite):
    name = "miniwob"
    default_agent = "scripted"
    default_summarizer = "none"  # the scripted agent reads no summaries; the simulated judge only adds latency
    node_app = "actors.browser.node:build"
    needs_node = True

    def __init__(self, names: tuple[str, ...], seeds: tuple[int, ...], max_steps: int = 15) -> None:
        self.names = names
        self.seeds = seeds
        self.max_steps = max_steps

    @classmethod
    def add_arguments(cls, group: argparse._ArgumentGroup) -> None:
        group.add_argument("--miniwob-tasks", default="default", metavar="NAMES",
                           help="miniwob: comma-separated task names, 'default' (24 tasks) or 'all' (128)")
        group.add_argument("--miniwob-seeds", default="3", metavar="SEEDS",
                           help="miniwob: a count N (seeds 0..N-1) or comma-separated seeds")

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> MiniWobSuite:
        return cls(task_names(), _seeds(args.miniwob_seeds), args.max_steps)

    def list_tasks(self, domain: str | None = None) -> list[Task]:
        names = self.names if domain is None else [n for n in self.names if n == domain]
        return [miniwob_task(name, seed, max_steps=self.max_steps) for name in names for seed in self.seeds]

    def load_task(self, task_id: str) -> Task:
        """`<task>@<seed>` with any seed, or a bare task name (the first seed)."""
        name, _, seed = task_id.partition("@")
        if name not in self.names or (seed and not seed.isdigit()):
            raise UnknownTask(self.name, task_id, [*self.names, *(t.task_id for t in self.list_tasks())])
        return miniwob_task(name, int(seed) if seed else self.seeds[0], max_steps=self.max_steps)

    def selection(self, args: argparse.Namespace) -> list[Task]:
        chosen = args.miniwob_tasks
        if chosen == "all":
            names = list(self.names)
        else:
            names = list(DEFAULT_TASKS) if chosen == "default" else [n.strip() for n in chosen.split(",") if n.strip()]
        for name in names:
            if name not in self.names:
                raise UnknownTask(self.name, name, self.names)
        return [miniwob_task(name, seed, max_steps=self.max_steps) for name in names for seed in self.seeds]

    def checker(self) -> MiniWobChecker:
        return MiniWobChecker()


def _seeds(text: str) -> tuple[int, ...]:
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts or not all(part.isdigit() for part in parts):
        raise SuiteError(f"--miniwob-seeds: expected a count or comma-separated seeds, got {text!r}")
    if len(parts) == 1:
        if int(parts[0]) < 1:
            raise SuiteError(f"--miniwob-seeds: a count must be at least 1, got {text!r}")
        return tuple(range(int(parts[0])))
    return tuple(int(part) for part in parts)
