"""The canonical benchmark interface every suite implements.

A suite lists and loads tasks (`Task`), says how its VMs are hosted
(in-process actors, or a node app for backends that must live in their own
process), and provides the checker the Evaluator uses for its verdict.
Interactive suites drive a VM; static suites (recorded trajectories) feed
recorded observations to an agent and need no VM at all.
"""

from __future__ import annotations

import argparse
import difflib
from abc import ABC, abstractmethod
from typing import Callable, ClassVar, Sequence

from protocols import Task
from runtime.actor import Actor

from actors.evaluator import Checker


class UnknownTask(LookupError):
    """A task id the suite does not have; the message lists the closest ones."""

    def __init__(self, suite: str, task_id: str, known: Sequence[str]) -> None:
        close = difflib.get_close_matches(task_id, known, n=5, cutoff=0.5)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else f" ({len(known)} tasks in the suite)"
        super().__init__(f"{suite} has no task {task_id!r}{hint}")


class SuiteError(Exception):
    """A suite cannot load what the command line asked for; the message says what and where."""


class Suite(ABC):
    name: ClassVar[str]
    interactive: ClassVar[bool] = True
    source: ClassVar[str | None] = None
    """What `--suite NAME:SOURCE` names after the colon (e.g. "RUN_DIR"); None if the suite takes nothing."""
    default_agent: ClassVar[str] = "sim"
    default_summarizer: ClassVar[str] = "sim"
    """`--summarizer` when not given; "none" for suites whose steps need no change summaries."""
    node_app: ClassVar[str | None] = None
    """`module:function` building the VM actors in a node (`--vm node`)."""
    needs_node: ClassVar[bool] = False
    """True when the VM backend cannot run in the supervisor's process (Playwright needs asyncio)."""

    @classmethod
    def add_arguments(cls, group: argparse._ArgumentGroup) -> None:
        """Add the suite's own flags to the command line."""

    @classmethod
    @abstractmethod
    def from_args(cls, args: argparse.Namespace) -> Suite: ...

    @abstractmethod
    def list_tasks(self, domain: str | None = None) -> list[Task]: ...

    def load_task(self, task_id: str) -> Task:
        tasks = {task.task_id: task for task in self.list_tasks()}
        try:
            return tasks[task_id]
        except KeyError:
            raise UnknownTask(self.name, task_id, list(tasks)) from None

    @abstractmethod
    def selection(self, args: argparse.Namespace) -> list[Task]:
        """The tasks a run of this command line runs."""

    @abstractmethod
    def checker(self) -> Checker: ...

    def vm_actors(self) -> Callable[[], list[Actor]] | None:
        """A factory of in-process VM actors, or None when they must live in a node."""
        return None

    def listing(self) -> str:
        """What `--list` prints: the number of tasks per domain (suites add what they can run)."""
        counts: dict[str, int] = {}
        for task in self.list_tasks():
            counts[task.domain] = counts.get(task.domain, 0) + 1
        return "\n".join([f"{self.name}: {sum(counts.values())} tasks"]
                         + [f"{domain:<20} {n:>5}" for domain, n in counts.items()])
