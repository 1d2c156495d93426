"""`--suite replay:RUN_DIR`: a run folder, replayed as a static benchmark.

Any folder in the run-folder layout (`actors.run_folder`) is a dataset of
recorded trajectories: each episode folder holds the task, the observation
the recording agent saw before each step, its action and the screens. With
a results.jsonl, the attempt that produced each task's (first) result line
is the trajectory; without one, the highest attempt of each task. A run with
repeats gives a recording per repeat: repeat R >= 2 of a task is replayed as
the task `<task>~R`. Episodes with no recorded step (an environment error)
have nothing to score and are left out.

The episodes run like any other, through `EpisodeRunner`, on an in-process
replay VM (`actors.backends.replay`) that shows the recorded screens in
order whatever the agent does; `ReferenceChecker` scores the agent's actions
against the recorded ones. A replay's own run folder is again a dataset.
"""

from __future__ import annotations

import functools
from pathlib import Path

import msgspec

from protocols import Task

from actors.errors import ConfigError
from actors.backends.replay import RecordedStep, ReplayError, replay_actors
from actors.run_folder import (
    STEPS, TASK, ResultsError, count_results, episode_label, read_observation, read_results, read_screenshot, read_steps,
    read_task, result_dir,
)
from bench.config import RunConfig
from bench.suites.base import Suite
from bench.suites.replay.checker import ReferenceChecker

__all__ = ["ReplaySuite"]


def _recorded(task: Task) -> Task:
    """A recorded episode as a replay task: a repeat of its own task is a task of its own."""
    return msgspec.structs.replace(task, task_id=episode_label(task.task_id, task.repeat), repeat=1)


class ReplaySuite(Suite):
    name = "replay"
    source = "RUN_DIR"

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        if not self.root.is_dir():
            raise ConfigError(f"replay: {self.root} is not a folder (expected a run folder with episodes/)")
        try:
            episodes = list(self._episodes())
        except ResultsError as exc:
            raise ConfigError(f"replay: {exc}") from None
        if not episodes:
            raise ConfigError(f"replay: {self.root} holds no recorded episodes "
                             f"(expected episodes/<task>/<attempt>/{STEPS} with {TASK})")
        self.tasks = {task.task_id: task for task, _ in episodes}
        self.folders = {task.task_id: folder for task, folder in episodes}

    @classmethod
    def from_config(cls, config: RunConfig) -> ReplaySuite:
        if not config.source:
            raise ConfigError("replay needs the run folder to replay: --suite replay:RUN_DIR")
        return cls(Path(config.source))

    def _episodes(self):
        results = count_results(read_results(self.root)).lines
        if results:
            candidates = [result_dir(self.root, line.result) for line in results]
        else:
            latest: dict[Path, Path] = {}
            for steps in sorted(self.root.glob(f"episodes/**/{STEPS}")):
                attempt = steps.parent
                if attempt.name.isdigit():
                    best = latest.get(attempt.parent)
                    if best is None or int(attempt.name) > int(best.name):
                        latest[attempt.parent] = attempt
            candidates = list(latest.values())
        for folder in candidates:
            if (folder / STEPS).exists() and (folder / TASK).exists():
                yield _recorded(read_task(folder)), folder

    def list_tasks(self, domain: str | None = None) -> list[Task]:
        return [t for t in self.tasks.values() if domain is None or t.domain == domain]

    def selection(self) -> list[Task]:
        return self.list_tasks()

    def checker(self) -> ReferenceChecker:
        return ReferenceChecker()

    def vm_actors(self):
        return functools.partial(replay_actors, self.trajectory)

    def trajectory(self, task: Task) -> list[RecordedStep]:
        """The recorded steps of `task` (blocking: reads files). A garbled file is a ReplayError
        naming it: that episode fails, the replay VM and the rest of the run go on."""
        folder = self.folders[task.task_id]
        try:
            return [
                RecordedStep(observation=read_observation(folder, record.step), reference=record.action,
                             error=record.error, after=read_screenshot(folder, record.step))
                for record in read_steps(folder)
            ]
        except ResultsError as exc:
            raise ReplayError(f"task {task.task_id!r}: the recording cannot be read: {exc}") from None
