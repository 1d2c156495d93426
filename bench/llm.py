"""Command-line flags of the LLM agent, change summarizer and classifier, and their factories.

The config is loaded and checked when the arguments are parsed, so a
malformed config file or a missing model stops the run with one clear
message instead of failing every actor at start. The API key never becomes
an argument (see `actors.llm.config`), so it cannot reach run.json.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from actors.llm.agent import LLMPolicy
from actors.llm.analysis import LLMAnalyst
from actors.llm.client import LLMClient
from actors.llm.config import LLMConfig, LLMConfigError, load_config
from actors.llm.observation import DIFF_THRESHOLD, MODES
from actors.llm.summarizer import LLMJudge
from runtime.capacity import Capacity


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "LLM (--agent llm, --summarizer llm, --analysis llm)",
        "Any OpenAI-compatible chat-completions server. The key comes from the environment "
        "variable named by --llm-api-key-env or from the config file, never from a flag.")
    group.add_argument("--llm-base-url", default=None,
                       help="API base URL (default: config file, $OPENAI_BASE_URL, or OpenAI's)")
    group.add_argument("--llm-model", default=None, help="model name (default: config file or $OPENAI_MODEL)")
    group.add_argument("--llm-config", type=Path, default=None,
                       help="TOML file with an [llm] table: base_url, model, api_key, timeout, max_retries, "
                            "and [llm.prices.\"MODEL\"] input/output dollars per million tokens")
    group.add_argument("--llm-api-key-env", default="OPENAI_API_KEY", help="environment variable holding the key")
    group.add_argument("--llm-timeout", type=float, default=None, help="seconds per HTTP attempt (default 60)")
    group.add_argument("--llm-retries", type=int, default=None,
                       help="retries on 429, 5xx and connection errors (default 4)")
    group.add_argument("--llm-observation", choices=MODES, default="tree",
                       help="what the agent, summarizer and classifier see of the screen")
    group.add_argument("--llm-history", type=int, default=5, help="earlier steps the agent is told about")
    group.add_argument("--llm-summaries", action=argparse.BooleanOptionalAction, default=True,
                       help="put the summarizer's judgements of earlier steps into the agent's prompt")
    group.add_argument("--llm-max-bad-replies", type=int, default=3,
                       help="invalid agent replies in a row before the episode ends with an agent error")
    group.add_argument("--llm-diff-threshold", type=float, default=DIFF_THRESHOLD,
                       help="fraction of changed lines past which the summarizer sees the full screen, not a diff")
    group.add_argument("--analysis", choices=["signals", "llm"], default="signals",
                       help="episode error analysis: deterministic signals only, or refined by the LLM classifier")


def uses_llm(args: argparse.Namespace) -> bool:
    return "llm" in (args.agent, args.summarizer, args.analysis)


def check(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Stop with a usage error if an LLM role is chosen and its configuration cannot work."""
    if not uses_llm(args):
        return
    try:
        config(args)
    except LLMConfigError as exc:
        parser.error(str(exc))
    if args.llm_max_bad_replies < 1:
        parser.error(f"--llm-max-bad-replies must be at least 1, got {args.llm_max_bad_replies}")


def config(args: argparse.Namespace) -> LLMConfig:
    return load_config(base_url=args.llm_base_url, model=args.llm_model, config_file=args.llm_config,
                       key_env=args.llm_api_key_env, timeout=args.llm_timeout, max_retries=args.llm_retries)


def policy(args: argparse.Namespace) -> LLMPolicy:
    return LLMPolicy(LLMClient(config(args)), observation=args.llm_observation, history=args.llm_history,
                     summaries=args.llm_summaries, max_bad_replies=args.llm_max_bad_replies)


def judge(args: argparse.Namespace) -> LLMJudge:
    return LLMJudge(LLMClient(config(args)), observation=args.llm_observation, threshold=args.llm_diff_threshold)


def analyst(args: argparse.Namespace, capacity: Capacity) -> LLMAnalyst | None:
    """The classifier for `--analysis llm`; its calls share the run's LLM capacity
    (the Agent and Summarizer actors hold theirs around each decision)."""
    if args.analysis != "llm":
        return None
    return LLMAnalyst(LLMClient(config(args), capacity=capacity), observation=args.llm_observation)
