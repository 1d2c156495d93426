"""`python -m bench.supervisor`: run benchmark episodes concurrently and write a run folder.

The command line is a thin layer over `bench.api`: its flags are generated
from the typed configuration (`bench.config` and each suite's `Options`),
parsed once into the same values `bench.run(...)` takes as keywords, and run
by the same `plan` and `execute`. Every bad input ends with one `error:`
line and exit status 2 before anything is written.

Re-running the same command with the same `--out` resumes: tasks that
already have a line in results.jsonl are not run again.
"""

from __future__ import annotations

import argparse
import functools
import logging
import signal
import sys
from typing import Any, Awaitable, Callable, NoReturn

import anyio
import msgspec
from msgspec import inspect as types
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

import bench
from bench import plugins, terminal
from actors.run_folder import ResultsError
from bench.api import RunPlan, execute, plan
from actors.errors import ConfigError
from actors.whole_writes import FolderFull
from bench.config import LimitsConfig, LLMOptions, RunConfig, build, describe, secret_names
from bench.extras import install_hint
from bench.installation import DISTRIBUTION
from bench.suites import BUILT_IN, SUITES
from bench.suites.base import Suite
from bench.summary import interval_name, pass_lines, success_cell
from bench.tuning import tune_gc
from protocols import EpisodeResult, ErrorKind
from runtime.errors import ClusterLost

PROG = "python -m bench.supervisor"
_NOT_FLAGS = {"suite", "source", "limits", "llm", "options"}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line, as every other bad input gets (argparse would print the usage first)."""
        self.exit(2, f"error: {message}\n")


class _Flag:
    """One generated flag: the struct field it fills and how its text becomes a value."""

    def __init__(self, flag: str, info: types.Field) -> None:
        self.flag = flag
        self.keyword = flag[2:].replace("-", "_")
        """The flag's key in `bench.run` values; a suite's own keeps the suite's prefix (`waa_token`)."""
        kind = info.type.type if isinstance(info.type, types.Metadata) else info.type
        kinds = kind.types if isinstance(kind, types.UnionType) else (kind,)
        kinds = tuple(k.type if isinstance(k, types.Metadata) else k for k in kinds)
        self.many = any(isinstance(k, types.ListType) for k in kinds)
        self.one = any(not isinstance(k, (types.ListType, types.NoneType)) for k in kinds)
        self.boolean = any(isinstance(k, types.BoolType) for k in kinds)
        self.choices = next((k.values for k in kinds if isinstance(k, types.LiteralType)), None)
        self.help, secret = describe(info)
        if info.default not in (None, [], types.NODEFAULT) and not secret:
            default = ",".join(map(str, info.default)) if isinstance(info.default, list) else info.default
            self.help += f" (default: {default})"

    def add_to(self, group) -> None:
        dest = self.keyword
        if self.boolean:
            group.add_argument(self.flag, dest=dest, action=argparse.BooleanOptionalAction,
                               default=argparse.SUPPRESS, help=self.help)
        elif self.many:
            group.add_argument(self.flag, dest=dest, action="append", default=argparse.SUPPRESS,
                               metavar="VALUE[,VALUE]", help=self.help + "; repeatable, or comma-separated")
        else:
            group.add_argument(self.flag, dest=dest, choices=self.choices, default=argparse.SUPPRESS, help=self.help)

    def value(self, given: Any) -> Any:
        if not self.many or self.boolean:
            return given
        items = [item.strip() for text in given for item in text.split(",") if item.strip()]
        return items[0] if self.one and len(items) == 1 else items


def _fields(struct: type[msgspec.Struct]) -> list[types.Field]:
    return [f for f in types.type_info(struct).fields if f.name not in _NOT_FLAGS]


def _flags(chosen: type[Suite] | None) -> tuple[list[_Flag], dict[str, list[_Flag]]]:
    """The run's flags, and each suite's own (the built-in suites installed here, and the chosen one)."""
    run = [_Flag("--" + f.name.replace("_", "-"), f) for f in _fields(RunConfig)]
    run += [_Flag("--" + f.name.replace("_", "-"), f) for f in _fields(LimitsConfig)]
    run += [_Flag("--llm-" + f.name.replace("_", "-"), f) for f in _fields(LLMOptions)]
    suites = {**SUITES, **({chosen.name: chosen} if chosen else {})}
    own = {name: [_Flag("--" + suite.flag_prefix + f.name.replace("_", "-"), f)
                  for f in _fields(suite.Options)] for name, suite in sorted(suites.items())}
    return run, own


def _chosen_suite(argv: list[str]) -> tuple[str, type[Suite] | None]:
    """The `--suite` given and its class; None when it cannot load and only --help or --version is asked."""
    early = _Parser(add_help=False)
    early.add_argument("--suite", default="miniwob")
    spec = early.parse_known_args(argv)[0].suite
    try:
        return spec, plugins.suite_class(spec)[0]
    except ConfigError:
        if {"-h", "--help", "--version"} & set(argv):
            return spec, None
        raise


def parse_args(argv: list[str], prog: str = PROG) -> tuple[dict[str, Any], argparse.Namespace, type[Suite]]:
    """The command line as `bench.api.plan` values, the CLI's own switches, and the suite."""
    spec, suite = _chosen_suite(argv)
    run_flags, suite_flags = _flags(suite)
    parser = _Parser(prog=prog,
                     description="Run benchmark episodes concurrently; write results, a summary and "
                                 "per-step records.")
    parser.add_argument("--suite", default="miniwob", metavar="NAME[:SOURCE]",
                        help=f"task suite, one of {', '.join(plugins.suite_names())}, or module:attr of a Suite "
                             "subclass; replay:RUN_DIR replays a run folder as a static benchmark "
                             "(default: miniwob)")
    parser.add_argument("--version", action="version", version=f"{DISTRIBUTION} {bench.__version__}")
    parser.add_argument("--backend", choices=["asyncio", "trio"], default="asyncio",
                        help="event loop (default: asyncio)")
    parser.add_argument("--list", action="store_true",
                        help="print the suite's tasks per domain and what of them can run here, and the agents "
                             "and suites there are, then exit")
    for flag in run_flags:
        if flag.keyword == "agent":
            flag.help += f"; one of {', '.join(plugins.agent_names())}"
        flag.add_to(parser)
    registered = {flag.flag: flag for flag in run_flags}
    for name, flags in suite_flags.items():
        group = parser.add_argument_group(f"{name} suite")
        for flag in flags:
            if flag.flag not in registered:  # suites may share a flag (a suite subclassing another)
                registered[flag.flag] = flag
                flag.add_to(group)
    for name, (_, _, extra) in sorted(BUILT_IN.items()):
        if name not in suite_flags:
            parser.add_argument_group(f"{name} suite", f"needs the [{extra}] extra: {install_hint(extra)}")
    args = parser.parse_args(argv)
    values: dict[str, Any] = {}
    for flag in registered.values():
        if hasattr(args, flag.keyword):
            values[flag.keyword] = flag.value(getattr(args, flag.keyword))
    args.suite = spec
    return values, args, suite


def _flag_namer(suite: type[Suite]):
    """Option name -> the flag that sets it, for error messages."""
    own = {f.name: suite.flag_prefix + f.name for f in _fields(suite.Options)}
    return lambda keyword: "--" + own.get(keyword, keyword).replace("_", "-")


def redacted_argv(argv: list[str], suite: type[Suite]) -> list[str]:
    """`argv` with the value of every secret flag (`--token X`, `--token=X`) replaced by ***."""
    secrets = {"--" + name.replace("_", "-") for name in secret_names(RunConfig)}
    secrets |= {"--" + suite.flag_prefix + name.replace("_", "-") for suite in {*SUITES.values(), suite}
                for name in secret_names(suite.Options)}
    out: list[str] = []
    for index, arg in enumerate(argv):
        flag, eq, _ = arg.partition("=")
        if flag in secrets and eq:
            out.append(f"{flag}=***")
        elif index and argv[index - 1] in secrets:
            out.append("***")
        else:
            out.append(arg)
    return out


def _listing(values: dict[str, Any], suite: type[Suite], spec: str) -> str:
    source = plugins.suite_class(spec)[1]
    config = build({**values, "suite": suite.name, "source": source}, suite.Options, strict=False,
                   name_of=_flag_namer(suite), options_prefix=suite.keyword_prefix())
    return "\n".join([suite.from_config(config).listing(), "",
                      f"agents: {', '.join(plugins.agent_names())}",
                      f"suites: {', '.join(plugins.suite_names())}"])


def _table(summary: dict) -> Table:
    table = Table(title="episodes by domain", caption=f"success: {interval_name(summary)}")
    for column in ("domain", "episodes", "success [95% CI]", "steps ± sd", "s/episode ± sd", "env errors",
                   "model errors", "s/step"):
        table.add_column(column, justify="left" if column == "domain" else "right")
    for domain, figures in [*summary["domains"].items(), ("all", summary["overall"])]:
        if not figures["episodes"]:
            continue
        table.add_row(domain, str(figures["episodes"]), success_cell(figures),
                      f"{figures['mean_steps']:.1f} ± {figures['sd_steps']:.1f}",
                      f"{figures['mean_seconds']:.2f} ± {figures['sd_seconds']:.2f}",
                      str(figures["environment_errors"]),
                      str(figures["model_service_errors"]),
                      f"{figures['seconds_per_step']:.3f}")
    return table


async def _interruptible(run: Callable[[], Awaitable[int]]) -> int:
    """`run`, ended by Ctrl-C as a cancellation, which every actor and node of the run honours
    on either event loop, then raised as KeyboardInterrupt (asyncio's own handling, a native
    cancel of the main task, does not end a run of supervised actors). Later Ctrl-Cs go to the
    event loop's own handling again, which stops a run slow to end."""
    interrupted = anyio.Event()
    outcome: list[int | Exception] = []

    async def watch(scope: anyio.CancelScope) -> None:
        with anyio.open_signal_receiver(signal.SIGINT) as signals:
            async for _ in signals:
                interrupted.set()
                scope.cancel()
                return

    async def work(scope: anyio.CancelScope) -> None:
        try:
            outcome.append(await run())
        except Exception as exc:  # raised below as itself (a ConfigError is one line), not in a task group's group
            outcome.append(exc)
        scope.cancel()

    async with anyio.create_task_group() as tg:
        tg.start_soon(watch, tg.cancel_scope)
        tg.start_soon(work, tg.cancel_scope)
    if interrupted.is_set():
        raise KeyboardInterrupt
    if isinstance(outcome[0], Exception):
        raise outcome[0]
    return outcome[0]


async def _run(planning: Callable[[], Awaitable[RunPlan]], console: Console, planned: list[RunPlan]) -> int:
    checked = await planning()
    planned.append(checked)
    if checked.done:
        console.print(f"resuming {checked.out}: {len(checked.done)} of {len(checked.episodes)} episodes already finished")
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("ok {task.fields[ok]}  env-err {task.fields[env]}"), TimeElapsedColumn(),
                  console=console) as progress:
        bar = progress.add_task(checked.suite.name, total=len(checked.pending), ok=0, env=0)
        counts = {"ok": 0, "env": 0}

        def advance(result: EpisodeResult) -> None:
            counts["ok"] += result.success
            counts["env"] += result.error_kind is ErrorKind.ENVIRONMENT
            progress.update(bar, advance=1, **counts)

        finished = await execute(checked, on_result=advance, say=console.print)
    console.print(_table(finished.summary))
    for line in pass_lines(finished.summary):
        console.print(line, highlight=False)
    console.print(f"run folder: {finished.folder} (report: {finished.folder / 'report.html'})")
    return 0 if finished.results else 1


def _interrupted(planned: list[RunPlan]) -> str:
    """The one line a Ctrl-C leaves: what is kept, and how to go on from there."""
    if not planned:
        return "interrupted before any episode started; nothing was written"
    checked = planned[0]
    try:
        finished = len(checked.counted().lines)
    except ResultsError:
        finished = len(checked.done)
    return (f"interrupted: {finished} of {len(checked.episodes)} episodes finished and kept in {checked.out}; "
            f"to resume, run the same command with --out {checked.out} (finished episodes are not run again)")


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    """`prog` is how the command was started (`troupe run` starts this one too), for --help and run.json."""
    argv = sys.argv[1:] if argv is None else argv
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    planned: list[RunPlan] = []
    try:
        values, args, suite = parse_args(argv, prog)
        if args.list:
            print(_listing(values, suite, args.suite))
            return 0
        started_as = [sys.executable if word == "python" else word for word in prog.split()]
        entry = {"entry": "cli", "argv": [*started_as, *redacted_argv(argv, suite)]}
        planning = functools.partial(plan, args.suite, values, strict=False, name_of=_flag_namer(suite), entry=entry)
        tune_gc()
        return anyio.run(_interruptible, functools.partial(_run, planning, terminal.console(), planned), backend=args.backend)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (FolderFull, ClusterLost) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(_interrupted(planned), file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
