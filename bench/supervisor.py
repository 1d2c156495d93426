"""`python -m bench.supervisor`: run benchmark episodes concurrently and write a run folder.

Re-running the same command with the same `--out` resumes: tasks that
already have a line in results.jsonl are not run again.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import logging
import math
import os
import platform
import sys
from importlib import metadata
from pathlib import Path

import anyio
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from actors.agent import Agent
from actors.episode import Outlets
from actors.evaluator import Evaluator
from actors.result_sink import ResultSink, ResultsError, read_results
from actors.runner import CrewFactory, EpisodeRunner
from actors.summarizer import Summarizer
from bench import llm as llm_options
from bench.agents import AGENTS, SUMMARIZERS
from bench.suites import SUITES
from bench.metrics import run_metrics
from bench.report import write_report
from bench.static import StaticRunner
from bench.suites.base import Suite, SuiteError
from bench.viewer.server import ViewerServer
from bench.summary import summarize
from bench.tuning import tune_gc
from protocols import EpisodeResult, ErrorKind, Flush
from runtime.actor import spawn
from runtime.capacity import Capacity
from runtime.events import EventBus
from runtime.host import run_local_host
from runtime.limits import Limits
from runtime.remote import connect_node, run_local_node


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.supervisor",
        description="Run benchmark episodes concurrently; write results, a summary and per-step records.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--suite", type=suite_choice, default="miniwob", metavar="NAME[:SOURCE]",
                        help=f"task suite, one of {', '.join(sorted(SUITES))}; "
                             "replay:RUN_DIR replays a run folder as a static benchmark")
    parser.add_argument("--agent", choices=sorted(AGENTS), default=None, help="agent (default: the suite's)")
    parser.add_argument("--summarizer", choices=sorted(SUMMARIZERS) + ["none"], default=None,
                        help="per-step change summarizer, or none (default: the suite's)")
    parser.add_argument("--episodes", type=int, default=24, help="number of tasks to run (generated suites)")
    parser.add_argument("--concurrency", type=int, default=8, help="episodes run at once (one VM each)")
    parser.add_argument("--max-steps", type=int, default=15, help="step limit per episode")
    parser.add_argument("--episode-timeout", type=float, default=math.inf, help="wall-time limit per episode, seconds")
    parser.add_argument("--call-timeout", type=float, default=60.0, help="timeout of one actor call, seconds")
    parser.add_argument("--tree-timeout", type=float, default=None,
                        help="seconds a tree capture may take before the step goes on without it")
    parser.add_argument("--max-attempts", type=int, default=3,
                        help="VMs an episode is tried on before it is an environment error")
    parser.add_argument("--llm-slots", type=int, default=16, help="LLM calls in flight at once across the run")
    parser.add_argument("--vm", choices=["inproc", "node"], default="inproc",
                        help="host VM actors in this process, or in a node process per VM (websocket)")
    parser.add_argument("--connect", action="append", default=[], metavar="URL",
                        help="use a running node (python -m runtime.node) at ws://HOST:PORT as one VM; "
                             "repeat for more; the run's concurrency is then the number of nodes")
    parser.add_argument("--token", default=os.environ.get("TROUPE_NODE_TOKEN"),
                        help="token for --connect nodes (default: $TROUPE_NODE_TOKEN)")
    parser.add_argument("--viewer", type=viewer_address, default=None, metavar="HOST:PORT",
                        help="serve a live web viewer (page and step-event websocket) on this address")
    parser.add_argument("--viewer-token", default=os.environ.get("TROUPE_VIEWER_TOKEN"),
                        help="token the viewer requires, if any (default: $TROUPE_VIEWER_TOKEN)")
    parser.add_argument("--out", type=Path, default=None,
                        help="run folder (default runs/<suite>-<time>); an existing folder is resumed")
    parser.add_argument("--backend", choices=["asyncio", "trio"], default="asyncio", help="event loop")
    parser.add_argument("--list", action="store_true",
                        help="print the suite's tasks per domain and what of them can run here, then exit")
    llm_options.add_arguments(parser)
    for name, suite in sorted(SUITES.items()):
        suite.add_arguments(parser.add_argument_group(f"{name} suite"))
    args = parser.parse_args(argv)
    args.suite, args.suite_source = args.suite
    if args.connect and not args.token:
        parser.error("--connect needs a token: pass --token or set TROUPE_NODE_TOKEN")
    llm_options.check(args, parser)
    return args


def suite_choice(text: str) -> tuple[str, str | None]:
    """`NAME` or `NAME:SOURCE` (`replay:runs/x`): a known suite, with what it loads if it takes anything."""
    name, colon, source = text.partition(":")
    if name not in SUITES:
        raise argparse.ArgumentTypeError(f"invalid choice: {name!r} (choose from {', '.join(sorted(SUITES))})")
    takes = SUITES[name].source
    if takes is None and colon:
        raise argparse.ArgumentTypeError(f"suite {name!r} takes nothing after ':', got {source!r}")
    if takes is not None and not source:
        raise argparse.ArgumentTypeError(f"suite {name!r} needs {takes}: --suite {name}:{takes}")
    return name, source or None


def viewer_address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT (e.g. 127.0.0.1:8765), got {text!r}")
    return host or "127.0.0.1", int(port)


def vm_slots(suite: Suite, args: argparse.Namespace):
    """How each worker gets its VM: running nodes by URL, a node process each, or in-process."""
    if args.connect:
        return [functools.partial(connect_node, url, args.token) for url in args.connect]
    build = suite.vm_actors()
    if args.vm == "node" or build is None:
        return functools.partial(run_local_node, suite.node_app)
    return functools.partial(run_local_host, build)


def crew(suite: Suite, args: argparse.Namespace) -> CrewFactory:
    llm = Capacity("llm", args.llm_slots)
    policy = AGENTS[args.agent or suite.default_agent]
    summarizer = args.summarizer or suite.default_summarizer
    judge = None if summarizer == "none" else SUMMARIZERS[summarizer]
    return CrewFactory(
        agent=lambda: Agent(policy(args), capacity=llm),
        evaluator=lambda: Evaluator(suite.checker(), analyst=llm_options.analyst(args, llm)),
        summarizer=None if judge is None else (lambda: Summarizer(judge(args), capacity=llm)),
    )


async def run(args: argparse.Namespace, console: Console) -> list[EpisodeResult]:
    out = args.out or Path("runs") / f"{args.suite}-{datetime.datetime.now():%Y%m%d-%H%M%S}"
    suite = SUITES[args.suite].from_args(args)
    tasks = suite.selection(args)
    done = {line.result.task_id for line in read_results(out)}
    pending = [t for t in tasks if t.task_id not in done]
    started = datetime.datetime.now(datetime.timezone.utc)
    _write_json(out / "run.json", _run_info(args, started, None))
    if done:
        console.print(f"resuming {out}: {len(done)} of {len(tasks)} episodes already finished")

    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("ok {task.fields[ok]}  env-err {task.fields[env]}"), TimeElapsedColumn(),
                  console=console) as progress:
        bar = progress.add_task(args.suite, total=len(pending), ok=0, env=0)
        counts = {"ok": 0, "env": 0}

        def advance(result: EpisodeResult) -> None:
            counts["ok"] += result.success
            counts["env"] += result.error_kind is ErrorKind.ENVIRONMENT
            progress.update(bar, advance=1, **counts)

        async with anyio.create_task_group() as tg:
            sink = await spawn(tg, ResultSink(out))
            outlets = Outlets(sink=sink, bus=EventBus())
            if args.viewer is not None:
                await _start_viewer(tg, outlets.bus, args, out, console)
            if suite.interactive:
                runner = EpisodeRunner(
                    crew=crew(suite, args),
                    vm_slot=vm_slots(suite, args),
                    limits=Limits(max_steps=args.max_steps, episode_seconds=args.episode_timeout,
                                  call_seconds=args.call_timeout, tree_seconds=args.tree_timeout),
                    concurrency=args.concurrency,
                    max_attempts=args.max_attempts,
                    outlets=outlets,
                    on_result=advance,
                )
            else:
                members = crew(suite, args)
                runner = StaticRunner(suite, agent=members.agent, evaluator=members.evaluator,
                                      concurrency=args.concurrency, call_seconds=args.call_timeout,
                                      outlets=outlets, on_result=advance)
            await runner.run(pending)
            await sink.ask(Flush())
            tg.cancel_scope.cancel()

    lines = read_results(out)
    results = [line.result for line in lines]
    summary = summarize(results, lines)
    summary["metrics"] = run_metrics(out, lines)
    _write_json(out / "summary.json", summary)
    write_report(out, summary, lines)
    _write_json(out / "run.json", _run_info(args, started, datetime.datetime.now(datetime.timezone.utc)))
    console.print(_table(summary))
    console.print(f"run folder: {out} (report: {out / 'report.html'})")
    return results


async def _start_viewer(tg, bus: EventBus, args: argparse.Namespace, out: Path, console: Console) -> None:
    host, port = args.viewer
    server = ViewerServer(bus, token=args.viewer_token, run_dir=out)
    bound = await tg.start(functools.partial(server.run, host, port))
    query = f"?token={args.viewer_token}" if args.viewer_token else ""
    console.print(f"viewer: http://{host}:{bound}/{query}")


def _table(summary: dict) -> Table:
    table = Table(title="episodes by domain")
    for column in ("domain", "episodes", "success", "mean steps", "env errors", "s/step"):
        table.add_column(column, justify="left" if column == "domain" else "right")
    for domain, figures in [*summary["domains"].items(), ("all", summary["overall"])]:
        if not figures["episodes"]:
            continue
        table.add_row(domain, str(figures["episodes"]),
                      f"{figures['succeeded']}/{figures['episodes']} ({figures['success_rate']:.0%})",
                      f"{figures['mean_steps']:.1f}", str(figures["environment_errors"]),
                      f"{figures['seconds_per_step']:.3f}")
    return table


def _run_info(args: argparse.Namespace, started, ended) -> dict:
    config = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()
              if k not in ("token", "viewer_token")}
    return {
        "command": [sys.executable, "-m", "bench.supervisor", *sys.argv[1:]],
        "config": config,
        "versions": {"python": platform.python_version(),
                     **{name: metadata.version(name) for name in ("anyio", "msgspec", "websockets", "trio")}},
        "started": started.isoformat(),
        "ended": ended.isoformat() if ended else None,
    }


def _write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(json.dumps(data, indent=2, default=str).encode() + b"\n")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.list:
        print(SUITES[args.suite].from_args(args).listing())
        return 0
    tune_gc()
    try:
        results = anyio.run(run, args, Console(), backend=args.backend)
    except (SuiteError, ResultsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0 if results else 1


if __name__ == "__main__":
    sys.exit(main())
