"""`--suite mind2web --mind2web-data DIR`: Mind2Web's recorded tasks, replayed and scored with its own metrics.

DIR is the user's copy of Mind2Web's released data (troupe downloads
nothing): split folders of JSON files, with the raw dump's screenshots
beside them where the user has them, or the multimodal release's parquet
files (`bench.suites.mind2web.dataset`, `.multimodal`). Each task runs as an
episode on an in-process replay VM (`actors.backends.replay`): step by step
the agent sees the recorded page before each action (its candidates as the
UI tree, the screenshot when there is one, the recorded actions before it)
and whatever it does the next page is the recorded one, as Mind2Web
evaluates. Its actions are scored with Mind2Web's metrics
(`bench.suites.mind2web.scoring`); summary.json gets them per split, per
website and per domain under "mind2web". A task's `domain` is its split.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated

import msgspec

from protocols import ErrorKind, Task

from actors.errors import ConfigError
from actors.backends.replay import replay_actors
from actors.run_folder import Episode
from bench.config import RunConfig, option
from bench.suites.base import Suite
from bench.suites.mind2web.checker import Mind2WebChecker, score_episode
from bench.suites.mind2web.dataset import SPLITS
from bench.suites.mind2web.recordings import Recordings
from bench.suites.mind2web.scoring import figures

__all__ = ["Mind2WebOptions", "Mind2WebSuite"]

TEST_SPLITS = SPLITS[:3]
_SCORED = (ErrorKind.NONE, ErrorKind.AGENT)
"""Episodes that ran to a verdict on the agent; the others (environment, model service, evaluation
errors) have none and are run again by the same command."""


class Mind2WebOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    data: Annotated[str, option("mind2web: the folder of Mind2Web's released data (<split>/*.json or "
                                "data/<split>/*.json, raw_dump/ for screenshots, or the multimodal release's "
                                "parquet files); required")] | None = None
    split: Annotated[list[str], option(f"mind2web: run only these splits ({', '.join(SPLITS)}; default: every "
                                       "test split the data has)", resumable=True)] = []
    task: Annotated[list[str], option("mind2web: run only these tasks (annotation_id)", resumable=True)] = []


class Mind2WebSuite(Suite):
    name = "mind2web"
    Options = Mind2WebOptions
    flag_prefix = "mind2web-"
    default_agent = "mind2web-scripted"
    default_summarizer = "none"  # every next screen is the recorded one: there is no change of the agent's to judge
    vm_cpus = 0.0  # a replay serves recorded pages

    def __init__(self, data: Path, splits: list[str] = (), tasks: list[str] = ()) -> None:
        unknown = [split for split in splits if split not in SPLITS]
        if unknown:
            raise ConfigError(f"--mind2web-split {unknown[0]!r}: no such split (choose from {', '.join(SPLITS)})")
        self.recordings = Recordings(Path(data))
        self.splits = list(splits)
        self.tasks = list(tasks)
        for task_id in self.tasks:
            self.load_task(task_id)

    @classmethod
    def from_config(cls, config: RunConfig) -> Mind2WebSuite:
        options: Mind2WebOptions = config.options
        if not options.data:
            raise ConfigError("mind2web needs the data folder: --mind2web-data DIR (Mind2Web's released data; "
                              "README, 'Mind2Web')")
        return cls(Path(options.data), options.split, options.task)

    def list_tasks(self, domain: str | None = None) -> list[Task]:
        return [t for t in self.recordings.tasks.values() if domain is None or t.domain == domain]

    def selection(self) -> list[Task]:
        if self.tasks:
            return [self.load_task(task_id) for task_id in self.tasks]
        every = self.list_tasks()
        splits = self.splits or [split for split in TEST_SPLITS if any(t.domain == split for t in every)]
        return [task for task in every if task.domain in splits]

    def checker(self) -> Mind2WebChecker:
        return Mind2WebChecker(self.recordings)

    def vm_actors(self):
        return functools.partial(replay_actors, self.recordings.steps)

    def figures(self, episodes: list[Episode]) -> dict:
        scored = [score_episode(self.recordings, self.recordings.tasks[e.line.result.task_id], e.steps)
                  for e in episodes
                  if e.line.result.error_kind in _SCORED and e.line.result.task_id in self.recordings.tasks]
        found = figures(scored)
        if len(scored) < len(episodes):
            found["unscored_episodes"] = len(episodes) - len(scored)
        return found

    def figure_lines(self, found: dict) -> list[str]:
        lines = ["Mind2Web (macro over tasks): split, tasks, element accuracy, operation F1, step success, "
                 "task success [95% CI]"]
        for split, block in [*found["splits"].items(), ("all", found["overall"])]:
            if block["tasks"]:
                low, high = block["task_success_interval"]
                lines.append(f"  {split:<13} {block['tasks']:>5}  {block['element_accuracy']:6.1%}  "
                             f"{block['operation_f1']:6.1%}  {block['step_success_rate']:6.1%}  "
                             f"{block['task_success_rate']:6.1%} [{low:.0%}, {high:.0%}]")
        if found.get("unscored_episodes"):
            lines.append(f"  {found['unscored_episodes']} episode(s) ended with no verdict on the agent and are "
                         "not in these figures")
        return lines
