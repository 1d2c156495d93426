"""The canonical benchmark interface every suite implements.

A suite lists and loads tasks (`Task`), says how its VMs are hosted
(in-process actors, or a node app for backends that must live in their own
process), and provides the checker the Evaluator uses for its verdict and,
where it knows the right action of a step, the reference each step is
scored against. Every suite's episodes run the same way, on VMs: a live
environment's, or a replay of recorded screens (the replay suite).
"""

from __future__ import annotations

import difflib
from abc import ABC, abstractmethod
from typing import Callable, ClassVar, Sequence

import msgspec

from protocols import Task
from runtime.actor import Actor

from actors.episode import StepReference
from actors.errors import ConfigError
from actors.evaluator import Checker
from actors.run_folder import Episode
from bench.config import RunConfig


REPEAT_STRIDE = 1_000_000
"""How far apart the seeds of a task's repeats are (`repeat_seed`)."""


def repeat_seed(seed: int, repeat: int) -> int:
    """The seed repeat `repeat` of a task with `seed` runs: `seed` itself for repeat 1 (a run
    without repeats), then `seed + REPEAT_STRIDE * (repeat - 1)`, so no two repeats of the tasks
    of a run with seeds below REPEAT_STRIDE share a seed, and repeat R of a task has the same
    seed in every run (what a comparison pairs)."""
    return seed + REPEAT_STRIDE * (repeat - 1)


class UnknownTask(ConfigError, LookupError):
    """A task id the suite does not have; the message lists the closest ones."""

    def __init__(self, suite: str, task_id: str, known: Sequence[str]) -> None:
        close = difflib.get_close_matches(task_id, known, n=5, cutoff=0.5)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else f" ({len(known)} tasks in the suite)"
        super().__init__(f"{suite} has no task {task_id!r}{hint}")


class NoOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A suite with no options of its own."""


class Suite(ABC):
    name: ClassVar[str]
    Options: ClassVar[type[msgspec.Struct]] = NoOptions
    """The suite's own settings (`bench.run` keywords; flags named `flag_prefix` + field)."""
    flag_prefix: ClassVar[str] = ""
    source: ClassVar[str | None] = None
    """What `--suite NAME:SOURCE` names after the colon (e.g. "RUN_DIR"); None if the suite takes nothing."""
    default_agent: ClassVar[str] = "sim"
    default_summarizer: ClassVar[str] = "sim"
    """`--summarizer` when not given; "none" for suites whose steps need no change summaries."""
    node_app: ClassVar[str | None] = None
    """`module:function` building the VM actors in a node (`--vm node`)."""
    vm_resources: ClassVar[dict[str, float]] = {"troupe_vm": 1.0}
    """What one of the suite's VMs takes on a Ray cluster (`--vm ray`), besides `vm_cpus`:
    each VM host offers `troupe_vm` slots (`ray start --resources='{"troupe_vm": 4}'`)."""
    vm_cpus: ClassVar[float] = 1.0
    shares_browser: ClassVar[bool] = False
    """Whether its node app hosts several VM slots on one browser (`build(seats=N)`, `--slots-per-browser`)."""
    vms_at_most: ClassVar[int | None] = None
    """How many VMs a run of the suite can have at once, when the suite decides it (one WAA server)."""
    last_screen_shows_work: ClassVar[bool] = True
    """Whether the screen after an episode's last action still shows what the agent did. The
    viewer's card of a finished episode shows that screen, else the one its last action was
    taken on (a MiniWoB page shows the same START screen once any task is submitted)."""

    @classmethod
    def keyword_prefix(cls) -> str:
        """`flag_prefix` as `bench.run` keywords spell it (`waa_`): `waa_token=` is `--waa-token`."""
        return cls.flag_prefix.replace("-", "_")

    @classmethod
    @abstractmethod
    def from_config(cls, config: RunConfig) -> Suite:
        """The suite a run of `config` runs (`config.options` is an `Options`)."""

    @abstractmethod
    def list_tasks(self, domain: str | None = None) -> list[Task]: ...

    def load_task(self, task_id: str) -> Task:
        tasks = {task.task_id: task for task in self.list_tasks()}
        try:
            return tasks[task_id]
        except KeyError:
            raise UnknownTask(self.name, task_id, list(tasks)) from None

    @abstractmethod
    def selection(self) -> list[Task]:
        """The tasks a run of this configuration runs."""

    def repeated(self, task: Task, repeat: int) -> Task:
        """`task` as repeat `repeat` (from 1) of a run that repeats its tasks (`--repeats`). A suite
        whose tasks carry a seed gives each repeat its own (`repeat_seed`); by default a repeat runs
        the same task again, and what differs is the agent's sampling and the environment's timing."""
        return msgspec.structs.replace(task, repeat=repeat)

    @abstractmethod
    def checker(self) -> Checker: ...

    def step_reference(self) -> StepReference | None:
        """What the suite knows is the right action of a step on a live screen: each step is scored
        against it (step and grounding accuracy, whoever chose the action); None: it does not know."""
        return None

    def vm_actors(self) -> Callable[[], list[Actor]] | None:
        """A factory of in-process VM actors, or None when they must live in a node."""
        return None

    def figures(self, episodes: list[Episode]) -> dict:
        """The suite's own figures of a run's episodes, for summary.json under the suite's name
        (a static benchmark's metrics, as its authors define them); empty when it has none."""
        return {}

    def figure_lines(self, figures: dict) -> list[str]:
        """`figures` as the lines a run prints when it ends."""
        return []

    def listing(self) -> str:
        """What `--list` prints: the tasks the options select (what a run with them runs), per
        domain, and how many the suite has when that is more (suites add what they can run)."""
        counts: dict[str, int] = {}
        for task in self.selection():
            counts[task.domain] = counts.get(task.domain, 0) + 1
        selected, every = sum(counts.values()), len(self.list_tasks())
        header = f"{self.name}: {selected} tasks" + (f" selected of {every}" if selected != every else "")
        return "\n".join([header] + [f"{domain:<20} {n:>5}" for domain, n in counts.items()])
