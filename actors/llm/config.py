"""Where the LLM endpoint, model and key come from, and what tokens cost.

Precedence: explicit values (command-line flags) over a TOML config file over
the usual environment variables of the provider whose API the agent speaks
(OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL; for Anthropic's Messages API
ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_MODEL). The key is read from the environment or the config file only,
never from a flag: a flag would land in shell history and in the run
folder's recorded command line. `LLMConfig.__repr__` hides it as well, so a
config object that ends up in a log or an error message leaks nothing.
"""

from __future__ import annotations

import dataclasses
import math
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from actors.errors import ConfigError

DEFAULT_BASE_URL = "https://api.openai.com/v1"


@dataclasses.dataclass(frozen=True)
class Provider:
    """Where a provider's API is unless told otherwise, and the environment variables its own
    SDK reads for the endpoint, the key and the model."""

    base_url: str
    base_url_env: str
    key_env: str
    model_env: str


OPENAI = Provider(DEFAULT_BASE_URL, "OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL")
ANTHROPIC = Provider("https://api.anthropic.com/v1", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_MODEL")


class Price(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """US dollars per million tokens."""

    input: float
    output: float

    def __post_init__(self) -> None:
        if self.input < 0 or self.output < 0:
            raise ValueError("prices must not be negative")


PRICES: dict[str, Price] = {
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4o": Price(2.50, 10.00),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1": Price(2.00, 8.00),
    "o4-mini": Price(1.10, 4.40),
    "computer-use-preview": Price(3.00, 12.00),
    "claude-sonnet-4": Price(3.00, 15.00),
    "claude-haiku-4-5": Price(1.00, 5.00),
    "claude-opus-4-1": Price(15.00, 75.00),
    "claude-opus-4-5": Price(5.00, 25.00),
}
"""Built-in prices, matched by the longest model-name prefix; a config file's
`[prices."model"]` tables extend and override them."""


def cost(prices: Mapping[str, Price], model: str, input_tokens: int, output_tokens: int) -> float:
    """Dollars for one call; 0 for a model with no known price (a local server)."""
    matches = [name for name in prices if model.startswith(name)]
    if not matches:
        return 0.0
    price = prices[max(matches, key=len)]
    return (input_tokens * price.input + output_tokens * price.output) / 1_000_000


class _FileConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """The `[llm]` table of a config file (or the whole file); every field optional."""

    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    timeout: float | None = None
    max_retries: int | None = None
    prices: dict[str, Price] = {}


@dataclasses.dataclass(frozen=True)
class LLMConfig:
    """Everything a client needs. `timeout` is per HTTP attempt, in seconds;
    `backoff` is the first retry's base delay (doubling, capped at `backoff_max`)."""

    model: str
    base_url: str = DEFAULT_BASE_URL
    api_key: str | None = dataclasses.field(default=None, repr=False)
    timeout: float = 60.0
    max_retries: int = 4
    backoff: float = 0.5
    backoff_max: float = 30.0
    prices: Mapping[str, Price] = dataclasses.field(default_factory=lambda: dict(PRICES))

    def __post_init__(self) -> None:
        if not self.model:
            raise ConfigError("no LLM model given: pass --llm-model, set OPENAI_MODEL, or `model` in the config file")
        if not self.base_url.startswith(("http://", "https://")):
            raise ConfigError(f"LLM base URL must start with http:// or https://, got {self.base_url!r}")
        if not (0 < self.timeout < math.inf):  # also false for NaN, which would fail every call
            raise ConfigError(f"LLM timeout must be positive and finite (seconds), got {self.timeout}")
        if self.max_retries < 0:
            raise ConfigError(f"LLM max_retries must not be negative, got {self.max_retries}")

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return cost(self.prices, self.model, input_tokens, output_tokens)


def load_config(
    *,
    base_url: str | None = None,
    model: str | None = None,
    config_file: Path | None = None,
    key_env: str | None = None,
    timeout: float | None = None,
    max_retries: int | None = None,
    environ: Mapping[str, str] | None = None,
    provider: Provider = OPENAI,
) -> LLMConfig:
    """Merge flags, the config file and the environment (`provider`'s variables, the key from
    `key_env` if given); raise ConfigError on anything malformed."""
    env = os.environ if environ is None else environ
    file = _read_file(config_file) if config_file is not None else _FileConfig()
    settings: dict[str, Any] = {
        "base_url": base_url or file.base_url or env.get(provider.base_url_env) or provider.base_url,
        "model": model or file.model or env.get(provider.model_env) or "",
        "api_key": file.api_key or env.get(key_env or provider.key_env) or None,
    }
    if not settings["model"]:
        raise ConfigError(f"no LLM model given: pass --llm-model, set {provider.model_env}, or `model` in the "
                          "config file")
    for name, value in (("timeout", timeout if timeout is not None else file.timeout),
                        ("max_retries", max_retries if max_retries is not None else file.max_retries)):
        if value is not None:
            settings[name] = value
    return LLMConfig(**settings, prices={**PRICES, **file.prices})


def _read_file(path: Path) -> _FileConfig:
    try:
        data = tomllib.loads(Path(path).read_text())
    except OSError as exc:
        raise ConfigError(f"cannot read LLM config file {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"LLM config file {path} is not valid TOML: {exc}") from None
    try:
        return msgspec.convert(data.get("llm", data), _FileConfig)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"LLM config file {path}: {exc}") from None
