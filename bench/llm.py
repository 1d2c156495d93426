"""The LLM agent, change summarizer and classifier of a run, built from its `LLMOptions`.

The endpoint configuration (flags, config file, environment) is read once per
run, when the run is checked, so a malformed config file or a missing model
stops the run with one clear message before anything is written, and every
actor of the run shares what was read. Unless the run opts out, one cheap
call then checks the service takes the key and knows the model
(`actors.llm.preflight`), so a configuration error is one `error:` line and
no episode is spent on it. The API key is never an option (see
`actors.llm.config`), so it cannot reach run.json.
"""

from __future__ import annotations

import logging
from functools import cached_property
from typing import Callable
from pathlib import Path

from actors.llm.agent import LLMPolicy
from actors.llm.analysis import LLMAnalyst
from actors.llm.client import LLMClient
from actors.errors import ConfigError, ModelServiceError
from actors.llm.computer_use.anthropic import AnthropicComputerUse
from actors.llm.computer_use.loop import ComputerUsePolicy
from actors.llm.computer_use.openai import OpenAIComputerUse
from actors.llm.config import ANTHROPIC, DEFAULT_BASE_URL, OPENAI, LLMConfig, load_config
from actors.llm.preflight import confirm, preflight
from actors.llm.screen import ModelScreen
from actors.llm.summarizer import LLMJudge
from bench.config import LLMOptions
from runtime.capacity import Capacity

__all__ = ["LLMRoles"]

logger = logging.getLogger(__name__)


class LLMRoles:
    """Factories of the LLM roles of one run, over one reading of its configuration;
    every role calls through one client holding the run's `capacity` per HTTP attempt."""

    def __init__(self, options: LLMOptions, capacity: Capacity | None = None, *, agent: str | None = None) -> None:
        self.options = options
        self.capacity = capacity or Capacity.unlimited("llm")
        self.agent = agent
        """The run's agent by name: a computer-use agent's provider supplies the endpoint, key and
        model variables, and its API is the one the preflight checks."""

    def check(self, *, used: bool) -> None:
        """Read the configuration now: an LLM role needs it whole; without one, a given
        config file is still read, so a malformed one is refused (ConfigError) rather than ignored."""
        if used:
            self.config  # noqa: B018  (cached: the one reading of the run)
            self.screen  # noqa: B018  (cached: checked once)
        elif self.options.config is not None:
            load_config(config_file=Path(self.options.config), model="unused", base_url=DEFAULT_BASE_URL,
                        environ={})
            logger.warning("--llm-config %s is unused: no LLM role (--agent/--summarizer/--analysis llm) "
                           "is chosen", self.options.config)

    async def preflight(self, option: str, *, chat: bool = True) -> None:
        """ConfigError when the model cannot serve the run (a refused key, an unknown model, a
        service that stays unreachable past the retries), saying how to skip the check: `option`
        is how the caller names the setting (a `--flag`, or a keyword); nothing when the run opted out.
        Each API the run speaks is checked: chat completions when a role uses it (`chat`), and a
        computer-use agent's own."""
        if not self.options.preflight:
            return
        try:
            if chat:
                await preflight(self.client)
            if self.agent in COMPUTER_USE:
                await confirm(COMPUTER_USE[self.agent](self).preflight())
        except ModelServiceError as exc:
            skip = f"--no-{option[2:]}" if option.startswith("--") else f"{option}=False"
            raise ConfigError(f"LLM preflight (skip it with {skip}): {exc}") from None

    @cached_property
    def config(self) -> LLMConfig:
        options = self.options
        return load_config(base_url=options.base_url, model=options.model,
                           config_file=None if options.config is None else Path(options.config),
                           key_env=options.api_key_env, timeout=options.timeout, max_retries=options.retries,
                           provider=ANTHROPIC if self.agent == "anthropic-cu" else OPENAI)

    @cached_property
    def screen(self) -> ModelScreen | None:
        if self.options.screen is None:
            return None
        try:
            return ModelScreen.parse(self.options.screen)
        except ValueError as exc:
            raise ConfigError(f"LLM screen size (--llm-screen, llm_screen): {exc}") from None

    @cached_property
    def client(self) -> LLMClient:
        return LLMClient(self.config, capacity=self.capacity)

    def policy(self) -> LLMPolicy:
        options = self.options
        return LLMPolicy(self.client, observation=options.observation, tree_tokens=options.tree_tokens,
                         screen=self.screen, history=options.history, summaries=options.summaries,
                         max_bad_replies=options.max_bad_replies)

    def anthropic_computer_use(self) -> AnthropicComputerUse:
        """`--agent anthropic-cu`: Anthropic's Messages API with its computer-use tool."""
        options = self.options
        return AnthropicComputerUse(self.client, tool=options.computer_tool, screen=self.screen,
                                    history=options.history, summaries=options.summaries,
                                    max_bad_replies=options.max_bad_replies)

    def openai_computer_use(self) -> OpenAIComputerUse:
        """`--agent openai-cu`: OpenAI's Responses API with its computer tool."""
        options = self.options
        return OpenAIComputerUse(self.client, screen=self.screen, history=options.history,
                                 summaries=options.summaries, max_bad_replies=options.max_bad_replies)

    def judge(self) -> LLMJudge:
        return LLMJudge(self.client, observation=self.options.observation, threshold=self.options.diff_threshold,
                        tree_tokens=self.options.tree_tokens)

    def analyst(self) -> LLMAnalyst:
        """The classifier for `--analysis llm`."""
        return LLMAnalyst(self.client, observation=self.options.observation, tree_tokens=self.options.tree_tokens)


COMPUTER_USE: dict[str, Callable[[LLMRoles], ComputerUsePolicy]] = {
    "anthropic-cu": LLMRoles.anthropic_computer_use,
    "openai-cu": LLMRoles.openai_computer_use,
}
"""The computer-use agents by name (`bench.config.COMPUTER_USE_AGENTS`)."""
