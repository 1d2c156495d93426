"""A benchmark task, as every suite hands it to the harness."""

from __future__ import annotations

from typing import Any

import msgspec


class Task(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """One task of a suite.

    `raw_config` keeps the suite's own task file losslessly, so nothing the
    benchmark said is lost in translation; `evaluation_spec` is the part the
    Evaluator reads and the agent never sees.
    """

    task_id: str
    instruction: str
    domain: str = ""
    raw_config: dict[str, Any] = {}
    evaluation_spec: dict[str, Any] = {}
    repeat: int = 1
    """Which of the run's repeats of this task the episode is (1 unless the run repeats its tasks):
    each repeat is its own episode with its own result, and a suite with seeds gives each repeat a
    seed of its own in `raw_config`."""

    def __post_init__(self) -> None:
        if not self.task_id:
            raise ValueError("`task_id` must not be empty")
        if self.repeat < 1:
            raise ValueError(f"`repeat` counts from 1, got {self.repeat}")
