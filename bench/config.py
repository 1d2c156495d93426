"""One typed configuration of a run: msgspec Structs, built once from keywords or flags.

`bench.run(...)` keywords (`bench.keywords`; the suite's own in `options=`)
and `python -m bench.supervisor` flags land in the same Structs: `RunConfig`
(what runs, how many at once, where the VMs live, where results go), `LimitsConfig`, `LLMOptions`, and the chosen suite's own
`Options`. Each setting has one owner: `LimitsConfig.max_steps` is the step
budget of every episode, whatever suite or agent runs. Values are checked
here, at the boundary, so a bad one stops the run before anything is
written, with a message naming the option.

Fields marked secret (tokens) are read from the environment when not given
and are never recorded: `public()` is what run.json holds. Fields marked
resumable do not change what an episode means (how many run at once, where
the VMs live, which tasks are selected): a run folder may be resumed with
other values of them, and with the same values of every other field only
(`bench.run_record`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated, Any, Callable, Literal

import msgspec

from actors.errors import ConfigError
from actors.screens import DEFAULT_QUALITY, FORMATS, SCREENSHOTS
from actors.llm.observation import DIFF_THRESHOLD, MODES
from actors.llm.tree_text import TREE_TOKENS
from protocols.numbers import MAX_SECONDS
from runtime.limits import Limits

__all__ = [
    "ConfigError", "LLMOptions", "LimitsConfig", "RunConfig", "build", "describe", "flatten", "option", "public",
    "secret_names", "suite_values",
]


def option(help: str, *, secret: bool = False, resumable: bool = False, **constraints: Any) -> msgspec.Meta:
    """A field's help text and constraints; a `secret` one (a token, read from the
    environment when not given) never reaches run.json; a `resumable` one does not change
    what an episode means, so a run folder may be resumed with another value of it."""
    return msgspec.Meta(description=help, extra={"secret": secret, "resumable": resumable}, **constraints)


class LimitsConfig(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The bounds of each episode. No value means no limit."""

    max_steps: Annotated[int, option("step budget of every episode (the agent's prompt states it)",
                                     ge=1)] = Limits.max_steps
    episode_timeout: Annotated[float, option("wall-time limit per episode, seconds (default: none)",
                                             gt=0, le=MAX_SECONDS)] | None = None
    call_timeout: Annotated[float, option("timeout of one actor call, seconds", gt=0, le=MAX_SECONDS)] = 60.0
    tree_timeout: Annotated[float, option("seconds a tree capture may take before the step goes on without it",
                                          gt=0, le=MAX_SECONDS)] = Limits.tree_seconds
    max_attempts: Annotated[int, option("VMs an episode is tried on before it is an environment error", ge=1,
                                        resumable=True)] = 3

    def limits(self) -> Limits:
        return Limits(max_steps=self.max_steps,
                      episode_seconds=math.inf if self.episode_timeout is None else self.episode_timeout,
                      call_seconds=self.call_timeout, tree_seconds=self.tree_timeout)


COMPUTER_USE_AGENTS = ("anthropic-cu", "openai-cu")
"""The agents that speak a provider's own computer-use API rather than chat completions."""


class LLMOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How the LLM roles (agent, change summarizer, classifier) reach their model.
    The API key is never an option: it comes from the environment variable
    `api_key_env` names, or from the config file."""

    base_url: Annotated[str, option("API base URL (default: config file, $OPENAI_BASE_URL, or OpenAI's)",
                                    resumable=True)] | None = None
    model: Annotated[str, option("model name (default: config file or $OPENAI_MODEL)")] | None = None
    config: Annotated[str, option(
        "TOML file with an [llm] table: base_url, model, api_key, timeout, max_retries, "
        "and [llm.prices.\"MODEL\"] input/output dollars per million tokens; refused when malformed, "
        "even with no LLM role chosen")] | None = None
    api_key_env: Annotated[str, option(
        "environment variable holding the key (default: OPENAI_API_KEY; ANTHROPIC_API_KEY with "
        "--agent anthropic-cu)", resumable=True)] | None = None
    timeout: Annotated[float, option("seconds per HTTP attempt (default: config file, else 60)", gt=0,
                                     resumable=True)] | None = None
    retries: Annotated[int, option("retries on 429, 5xx and connection errors (default: config file, else 4)",
                                   ge=0, resumable=True)] | None = None
    observation: Annotated[Literal[MODES], option(
        "what the agent, summarizer and classifier see of the screen (som: the screenshot with numbered "
        "marks on its interactive elements, listed in the prompt; the agent names an element by mark)")] = "tree"
    tree_tokens: Annotated[int, option(
        "budget of an accessibility tree's text in a prompt, in tokens (about 4 characters each); the "
        "subtrees past it are named and counted, not sent", ge=100)] = TREE_TOKENS
    screen: Annotated[str, option(
        "WIDTHxHEIGHT the agent is shown the screen at (screenshot resized, tree boxes scaled); the pixel "
        "coordinates it answers are mapped back to the screen (default: the screen's own size)")] | None = None
    history: Annotated[int, option("earlier steps the agent is told about", ge=0)] = 5
    summaries: Annotated[bool, option(
        "put the summarizer's judgements of earlier steps into the agent's prompt")] = True
    max_bad_replies: Annotated[int, option("invalid agent replies in a row before the episode ends with an "
                                           "agent error", ge=1)] = 3
    diff_threshold: Annotated[float, option("fraction of changed lines past which the summarizer sees the full "
                                            "screen, not a diff", ge=0, le=1)] = DIFF_THRESHOLD
    computer_tool: Annotated[Literal["computer_20251124", "computer_20250124"], option(
        "the computer-use tool version --agent anthropic-cu declares, with its beta header (computer_20250124 "
        "for Claude Sonnet 4.5, Haiku 4.5, Opus 4.1 and older)")] = "computer_20251124"
    preflight: Annotated[bool, option(
        "one cheap call before any episode: a refused key, an unknown model or an unreachable service "
        "stops the run with one error", resumable=True)] = True


class RunConfig(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One run. `agent` and `summarizer` name a built-in, an installed plugin or
    `module:attr`; None means the suite's default. `options` holds the suite's
    own `Options` Struct."""

    suite: str = "miniwob"
    source: str | None = None
    """What `--suite NAME:SOURCE` names after the colon (replay's run folder)."""
    agent: Annotated[str, option(
        "agent: a name, or module:attr of a Policy factory (default: the suite's)")] | None = None
    summarizer: Annotated[str, option(
        "per-step change summarizer: a name or none (default: the suite's)")] | None = None
    analysis: Annotated[Literal["signals", "llm"], option(
        "episode error analysis: deterministic signals only, or refined by the LLM classifier")] = "signals"
    repeats: Annotated[int, option(
        "run each task N times, each repeat an episode of its own with a seed of its own where the suite "
        "has seeds (miniwob, sim); the summary then gives pass@k and pass^k and an interval that counts "
        "tasks, not episodes, as independent", ge=1, resumable=True)] = 1
    concurrency: Annotated[int, option(
        "episodes run at once, one VM each (default: what this machine fits: its cores over the CPU one of "
        "the suite's VMs takes, and its memory, at most 8)", ge=1, resumable=True)] | None = None
    slots_per_browser: Annotated[int, option(
        "VM slots one browser hosts, each with contexts of its own: one node process and one Chromium for that "
        "many episodes at once (default: what this machine fits, and 1 with --vm ray; suites whose VMs are "
        "browsers, node VMs only)",
        ge=1, resumable=True)] | None = None
    llm_slots: Annotated[int, option("LLM calls in flight at once across the run", ge=1, resumable=True)] = 16
    vm: Annotated[Literal["inproc", "node", "ray"], option(
        "host VM actors in this process, in a node process per VM (websocket), or in nodes Ray places "
        "on a cluster; suites whose backend needs asyncio always use nodes", resumable=True)] = "inproc"
    ray_address: Annotated[str, option(
        "Ray cluster for --vm ray: HOST:PORT, auto (a running cluster) or local (default: a running "
        "cluster if there is one, else a local Ray started and stopped by the run, on 127.0.0.1)",
        resumable=True)] | None = None
    connect: Annotated[list[str], option(
        "use a running node (python -m runtime.node) at ws://HOST:PORT: one VM, or one per seat of a node "
        "started with --seats N; repeat for more; the run's concurrency is then their seats in all, "
        "or --concurrency if fewer", resumable=True)] = []
    token: Annotated[str, option("token for --connect nodes (default: $TROUPE_NODE_TOKEN)", secret=True,
                                 resumable=True)] | None = None
    viewer: Annotated[str, option("serve a live web viewer (page and step-event websocket) on HOST:PORT",
                                  resumable=True)] | None = None
    viewer_token: Annotated[str, option("token the viewer requires, if any (default: $TROUPE_VIEWER_TOKEN)",
                                        secret=True, resumable=True)] | None = None
    out: Annotated[str, option(
        "run folder (default: runs/<suite>-<time>); an existing folder is resumed", resumable=True)] | None = None
    retry_errors: Annotated[bool, option(
        "resuming, run again the episodes that ended on a model-service or environment error (the "
        "re-run's result replaces theirs; their folders are kept)", resumable=True)] = True
    screenshots: Annotated[Literal[SCREENSHOTS], option(
        "which screenshots the run folder keeps: all, failed (every screen of the episodes that did not "
        "succeed, the last of those that did), final (each episode's last) or none; each distinct image is "
        "stored once whatever is kept", resumable=True)] = "all"
    screenshot_format: Annotated[Literal[FORMATS], option(
        "how the run folder stores screenshots: png (lossless), or webp or jpeg (lossy, at "
        "--screenshot-quality: a fraction of the bytes); only storage is lossy, the agent and the "
        "evaluator see the lossless screen; each step's file names its format, so a folder may be resumed "
        "with another", resumable=True)] = "png"
    screenshot_quality: Annotated[int, option(
        "quality of webp and jpeg screenshots, 1-100", ge=1, le=100, resumable=True)] = DEFAULT_QUALITY
    force: Annotated[bool, option(
        "an existing --out run with settings that change what an episode means (agent, model, observation, "
        "limits, suite options): instead of refusing, run these settings in a sub-folder OUT/config-N of "
        "their own (the same command again resumes it)", resumable=True)] = False
    limits: LimitsConfig = LimitsConfig()
    llm: LLMOptions = LLMOptions()
    options: Any = None

    def uses_llm(self) -> bool:
        return self.uses_chat() or self.agent in COMPUTER_USE_AGENTS

    def uses_chat(self) -> bool:
        """Whether a role speaks OpenAI-compatible chat completions (`llm`)."""
        return "llm" in (self.agent, self.summarizer, self.analysis)

    def viewer_address(self, name_of: Callable[[str], str] = str) -> tuple[str, int] | None:
        if self.viewer is None:
            return None
        host, _, port = self.viewer.rpartition(":")
        if not port.isdigit() or int(port) > 65535:
            raise ConfigError(f"{name_of('viewer')}: expected HOST:PORT (e.g. 127.0.0.1:8765), got {self.viewer!r}")
        return host or "127.0.0.1", int(port)


def describe(field: msgspec.inspect.Field) -> tuple[str, bool]:
    """What `option(...)` says of a field: its help text, and whether it holds a secret."""
    meta = _meta(field)
    if meta is None:
        return "", False
    return (meta.extra_json_schema or {}).get("description", ""), bool((meta.extra or {}).get("secret"))


def _meta(field: msgspec.inspect.Field) -> msgspec.inspect.Metadata | None:
    kinds = field.type.types if isinstance(field.type, msgspec.inspect.UnionType) else (field.type,)
    return next((kind for kind in kinds if isinstance(kind, msgspec.inspect.Metadata)), None)


def resumable_names(options_type: type[msgspec.Struct] | None, options_prefix: str = "") -> set[str]:
    """The settings, by their `flatten` names, marked resumable: those a run folder may be
    resumed with other values of."""
    def marked(struct: type[msgspec.Struct]) -> list[str]:
        return [field.name for field in msgspec.inspect.type_info(struct).fields
                if (meta := _meta(field)) is not None and (meta.extra or {}).get("resumable")]

    names = set(marked(RunConfig)) | set(marked(LimitsConfig)) | {"llm_" + name for name in marked(LLMOptions)}
    return names | ({options_prefix + name for name in marked(options_type)} if options_type else set())


def secret_names(struct: type[msgspec.Struct]) -> list[str]:
    """The fields of `struct` that hold secrets."""
    return [field.name for field in msgspec.inspect.type_info(struct).fields if describe(field)[1]]


def public(config: RunConfig) -> dict[str, Any]:
    """The configuration as run.json records it: plain JSON data, secrets left out."""
    data = msgspec.to_builtins(config)
    for name in secret_names(RunConfig):
        data.pop(name, None)
    if config.options is not None:
        for name in secret_names(type(config.options)):
            data["options"].pop(name, None)
    return data


def build(values: dict[str, Any], options_type: type[msgspec.Struct] | None, *, strict: bool = True,
          name_of: Callable[[str], str] = str, options_prefix: str = "") -> RunConfig:
    """A RunConfig from flat `values` keyed by option name (`max_steps`, `llm_model`,
    a suite option such as `tasks`); `strict=False` converts text (command-line values).
    `name_of` turns an option name into what the user typed, for messages.

    A suite option may also be keyed with `options_prefix` (the suite's flag prefix,
    `waa_token` for `--waa-token`), as the command line keys them: that is the only
    spelling of a suite option that shares its name with a run option (the WAA
    server's `token` and `--connect`'s)."""
    groups: dict[str, dict[str, Any]] = {"run": {}, "limits": {}, "llm": {}, "options": {}}
    suite_fields = set() if options_type is None else set(options_type.__struct_fields__)
    keys: dict[tuple[str, str], str] = {}
    for key, value in values.items():
        group, field = _owner(key, suite_fields, options_prefix)
        if group is None:
            known = ", ".join(name_of(field) for field in sorted(suite_fields)) or "none"
            raise ConfigError(f"{name_of(key)}: the {values.get('suite')} suite has no such option "
                              f"(its own: {known})")
        if (group, field) in keys:
            raise ConfigError(f"{name_of(key)}: given twice, as {keys[group, field]!r} and as {key!r}")
        keys[group, field] = key
        groups[group][field] = value
    limits = _convert(groups["limits"], LimitsConfig, strict, name_of, "")
    llm = _convert(groups["llm"], LLMOptions, strict, name_of, "llm_")
    options = None if options_type is None else _convert(groups["options"], options_type, strict, name_of, "")
    run = _convert(groups["run"], RunConfig, strict, name_of, "")
    return msgspec.structs.replace(run, limits=limits, llm=llm, options=options)


def flatten(config: RunConfig, options_prefix: str = "") -> dict[str, Any]:
    """`build`'s inverse: the flat values (option name -> value) that make `config` again, the
    suite's own keyed with `options_prefix` (see `suite_values`)."""
    values = {name: getattr(config, name) for name in RunConfig.__struct_fields__
              if name not in ("limits", "llm", "options")}
    values |= msgspec.structs.asdict(config.limits)
    values |= {"llm_" + name: value for name, value in msgspec.structs.asdict(config.llm).items()}
    return values | suite_values(config.options, options_prefix)


def suite_values(options: msgspec.Struct | Mapping[str, Any] | None, options_prefix: str) -> dict[str, Any]:
    """A suite's own settings (its `Options` Struct, or a dict) as `build` values: each keyed
    with the suite's prefix (`waa_token`), so none is taken for the run's setting of that name."""
    if isinstance(options, msgspec.Struct):
        options = msgspec.structs.asdict(options)
    values: dict[str, Any] = {}
    for name, value in (options or {}).items():
        key = name if options_prefix and name.startswith(options_prefix) else options_prefix + name
        if key in values:
            raise ConfigError(f"{key}: given twice, as {key.removeprefix(options_prefix)!r} and as {key!r}")
        values[key] = value
    return values


def _owner(key: str, suite_fields: set[str], options_prefix: str) -> tuple[str | None, str]:
    """Which group of the configuration `key` sets, and its field there; (None, key) for no group."""
    own = key.removeprefix(options_prefix) if options_prefix and key.startswith(options_prefix) else None
    if own in suite_fields:
        return "options", own
    for group, prefix, struct in (("run", "", RunConfig), ("limits", "", LimitsConfig), ("llm", "llm_", LLMOptions)):
        field = key.removeprefix(prefix) if key.startswith(prefix) else None
        if field in struct.__struct_fields__ and field not in ("limits", "llm", "options"):
            return group, field
    return ("options", key) if key in suite_fields else (None, key)


def _convert(values: dict[str, Any], struct: type[msgspec.Struct], strict: bool,
             name_of: Callable[[str], str], prefix: str) -> Any:
    try:
        return msgspec.convert(values, struct, strict=strict)
    except msgspec.ValidationError as exc:
        reason, _, where = str(exc).partition(" - at `$.")
        field = where.split("`")[0].split(".")[0].split("[")[0]
        if not field:
            raise ConfigError(reason) from None
        if not strict:
            reason = reason.replace(", got `str`", "")
        if reason.startswith("Invalid enum value"):
            reason = f"expected one of {', '.join(map(repr, _choices(struct, field)))}"
        raise ConfigError(f"{name_of(prefix + field)}: {reason[0].lower()}{reason[1:]}, "
                          f"got {values.get(field)!r}") from None


def _choices(struct: type[msgspec.Struct], name: str) -> tuple[Any, ...]:
    """The values a Literal field allows."""
    field = next(field for field in msgspec.inspect.type_info(struct).fields if field.name == name)
    kinds = field.type.types if isinstance(field.type, msgspec.inspect.UnionType) else (field.type,)
    kinds = tuple(kind.type if isinstance(kind, msgspec.inspect.Metadata) else kind for kind in kinds)
    return next((kind.values for kind in kinds if isinstance(kind, msgspec.inspect.LiteralType)), ())
