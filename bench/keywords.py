"""The keywords `bench.run` and `bench.run_sync` take: the run's settings, typed, by name.

They are `RunConfig`'s fields flattened as the command line spells them
(`max_steps` for `limits.max_steps`, `llm_model` for `llm.model`), so an
editor completes them and a type checker checks them; `tests/bench/test_api.py`
keeps this list equal to the Structs' fields. Values are checked by
`bench.config.build`, as the flags are. A suite's own settings are not
keywords here: they go in `options=` (its `Options` Struct, or a dict).
"""

from __future__ import annotations

import os
from typing import Literal, TypedDict

from actors.llm.observation import Mode

__all__ = ["RunKeywords"]


class RunKeywords(TypedDict, total=False):
    """Every setting of a run that is not the suite's own; see `bench.config` for what each does."""

    analysis: Literal["signals", "llm"]
    repeats: int
    concurrency: int
    slots_per_browser: int
    llm_slots: int
    vm: Literal["inproc", "node", "ray"]
    ray_address: str
    connect: list[str]
    token: str
    viewer: str
    viewer_token: str
    out: str | os.PathLike[str]
    retry_errors: bool
    screenshots: Literal["all", "failed", "final", "none"]
    screenshot_format: Literal["png", "webp", "jpeg"]
    screenshot_quality: int
    force: bool
    max_steps: int
    episode_timeout: float
    call_timeout: float
    tree_timeout: float
    max_attempts: int
    llm_base_url: str
    llm_model: str
    llm_config: str | os.PathLike[str]
    llm_api_key_env: str
    llm_timeout: float
    llm_retries: int
    llm_observation: Mode
    llm_tree_tokens: int
    llm_screen: str
    llm_history: int
    llm_summaries: bool
    llm_max_bad_replies: int
    llm_diff_threshold: float
    llm_computer_tool: Literal["computer_20251124", "computer_20250124"]
    llm_preflight: bool
