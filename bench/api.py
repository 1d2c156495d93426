"""The one-call API: run a suite from Python, on asyncio or trio, into a run folder.

    import bench
    run = await bench.run("miniwob", agent=MyPolicy(), options={"tasks": ["click-button"], "seeds": 2},
                          out="runs/mine")
    run = bench.run_sync("sim", options={"episodes": 20}, max_steps=10)
    run = bench.load_run("runs/mine")

`python -m bench.supervisor` is a thin layer over the same two steps:
`plan` checks everything a run needs (options, suite, tasks, agent, LLM
configuration, the run folder, the viewer's port, the `--connect` nodes)
and makes every choice (concurrency, VM slots per browser, what hosts the
VMs) once, into a plan nothing changes afterwards, raising `ConfigError`
before anything is written; `execute` runs the episodes and writes the folder. run.json records
the call as it was made: the entry point, the options (never a secret), the
event loop and the versions.
"""

from __future__ import annotations

import asyncio
import datetime
import functools
import inspect
import ipaddress
import json
import logging
import math
import os
import platform
import socket
import tempfile
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Iterator, Unpack

import anyio
import msgspec
import sniffio

from actors.agent import Agent, Policy
from actors.episode import Outlets
from actors.errors import ConfigError
from actors.evaluator import Evaluator
from actors.result_sink import ResultSink
from actors.run_folder import (
    RERUN_KINDS, RESULTS, CountedResults, ResultLine, ResultsError, count_results, episode_label, read_episodes,
    read_results,
)
from actors.run_lock import check_unlocked, hold_run_folder
from actors.runner import CrewFactory, EpisodeRunner
from actors.summarizer import Judge, Summarizer
from actors.whole_writes import FolderFull, write_whole, writing
import bench
from bench import extras, plugins
from bench.config import RunConfig, build, flatten, public, suite_values
from bench.fit import (connected_concurrency, fitting_concurrency, fitting_slots_per_browser, machine_cap,
                       shares_browsers)
from bench.keywords import RunKeywords
from bench.llm import LLMRoles
from bench.metrics import run_metrics
from bench.report import write_report
from bench.run_record import RUN_INFO, earlier_starts, run_folder
from bench.suites.base import Suite
from bench.summary import left_out, summarize
from protocols import EpisodeResult, Flush, ProtocolError, Task
from runtime.actor import spawn
from runtime import stalls
from runtime.capacity import Capacity
from runtime.errors import ClusterLost, describe
from runtime.events import EventBus
from runtime.host import run_local_host
from runtime.remote import run_local_node
from runtime.seats import RemoteNode, SharedNodes, greet_nodes, seat_slots

if TYPE_CHECKING:
    from bench.viewer.server import ViewerServer

__all__ = ["ConfigError", "Run", "RunPlan", "execute", "load_run", "plan", "run", "run_sync"]

logger = logging.getLogger(__name__)

VIEWERS_TOLD = 2.0
"""Seconds a run that ends gives its live viewer to tell the pages watching it (they then show the finished run)."""
SUMMARY = "summary.json"


@dataclass
class Run:
    """A run folder, read back: `results` are the results.jsonl lines (one per task:
    `line.result` is the verdict, the rest the error analysis), `summary` is summary.json."""

    folder: Path
    results: list[ResultLine]
    summary: dict[str, Any]

    def to_pandas(self):
        """One row per episode (needs pandas: `pip install 'troupe-bench[analysis]'`)."""
        from bench.frame import episodes_frame

        return episodes_frame(self.folder)

    def domains_frame(self):
        """One row per domain and one for "all": success with its 95% interval, steps and seconds
        with their spread (needs pandas, as `to_pandas`)."""
        from bench.frame import domains_frame

        return domains_frame(self.folder)


@dataclass(frozen=True)
class RunPlan:
    """A run checked and ready: every choice made (its `config` records them), nothing written yet."""

    config: RunConfig
    suite: Suite
    tasks: list[Task]
    """The suite's selection; the run runs each `config.repeats` times (`episodes`)."""
    done: set[tuple[str, int]]
    """The episodes (task id, repeat) of the run that already have a result in `out` (a resumed run)."""
    out: Path
    agent: Callable[[], Policy]
    summarizer: Callable[[], Judge] | None
    llm: LLMRoles
    rerun: dict[tuple[str, int], int] = field(default_factory=dict)
    """The episodes (task id, repeat) run again because their result in `out` is an error that is no
    verdict on the agent (`retry_errors`), with the attempts they had."""
    entry: dict[str, Any] = field(default_factory=dict)
    """How the run was started (run.json): the command line, or the Python call."""
    chosen: tuple[str, ...] = ()
    """What the run chose for the caller and why (concurrency, VM slots per browser): lines to say as it starts."""
    nodes: tuple[RemoteNode, ...] = ()
    """The `--connect` nodes and their seats, as they answered."""
    starts: tuple[dict[str, Any], ...] = ()
    """The earlier starts of the run in `out`, as its run.json recorded them (`bench.run_record`)."""

    @property
    def episodes(self) -> list[Task]:
        """Every episode of the run: each task of the selection as each repeat, repeat 1 of every
        task first (a run stopped early has its repeats spread over all tasks, not all on a few)."""
        return [self.suite.repeated(task, repeat) for repeat in range(1, self.config.repeats + 1)
                for task in self.tasks]

    @property
    def pending(self) -> list[Task]:
        return [task for task in self.episodes if (task.task_id, task.repeat) not in self.done]

    @property
    def selection(self) -> set[str]:
        return {task.task_id for task in self.tasks}

    def counted(self) -> CountedResults:
        """The results.jsonl lines of `out` this run counts: its tasks, its repeats."""
        return count_results(read_results(self.out), self.selection, self.config.repeats)


async def plan(suite: str | type[Suite] = "miniwob", values: dict[str, Any] | None = None, *, agent: Any = None,
               summarizer: Any = None, strict: bool = True, name_of: Callable[[str], str] = str,
               entry: dict[str, Any] | None = None) -> RunPlan:
    """Check a run of `suite` with `values` (option name -> value) and make its choices, without
    writing anything; raise ConfigError (UnknownTask for a task id the suite lacks) naming what is
    wrong. Asynchronous because a run on `--connect` nodes asks them their seats first."""
    suite_type, source = plugins.suite_class(suite)
    paths = {name: os.fspath(value) for name, value in (values or {}).items() if isinstance(value, os.PathLike)}
    values = {**(values or {}), **paths, "suite": suite_type.name, "source": source}
    config = build(values, suite_type.Options, strict=strict, name_of=name_of,
                   options_prefix=suite_type.keyword_prefix())
    loaded = suite_type.from_config(config)
    tasks = loaded.selection()
    if not tasks:
        raise ConfigError(f"the {loaded.name} suite's options select no task: nothing to run")
    agent_spec = agent if agent is not None else config.agent or loaded.default_agent
    llm = LLMRoles(config.llm, Capacity("llm", config.llm_slots), agent=agent_spec if isinstance(agent_spec, str) else None)
    agent_factory, agent_label = plugins.agent_factory(agent_spec, llm)
    summarizer_factory, summarizer_label = plugins.summarizer_factory(
        summarizer if summarizer is not None else config.summarizer or loaded.default_summarizer, llm)
    config = msgspec.structs.replace(config, agent=agent_label, summarizer=summarizer_label)
    llm.check(used=config.uses_llm())
    if config.uses_llm() and config.llm.model is None:  # the model the run uses, whoever named it (run.json)
        config = msgspec.structs.replace(config, llm=msgspec.structs.replace(config.llm, model=llm.config.model))
    _check_viewer(config, name_of)
    _check_slots_per_browser(loaded, config, name_of)
    if config.connect and not _token(config):
        raise ConfigError("--connect needs a token: pass --token or set TROUPE_NODE_TOKEN")
    if config.vm in ("node", "ray") and loaded.node_app is None:
        raise ConfigError(f"{name_of('vm')}: suite {loaded.name!r} has no node app; its VMs run in this process")
    if config.vm == "ray":
        extras.require("ray", "--vm ray")
    out = Path(config.out) if config.out else Path("runs") / f"{loaded.name}-{datetime.datetime.now():%Y%m%d-%H%M%S}"
    _check_writable(out, name_of("out"))
    check_unlocked(out)
    asked, out = out, run_folder(out, config, suite_type.Options, suite_type.keyword_prefix(), name_of)
    if out != asked:
        check_unlocked(out)
    try:
        counted = count_results(read_results(out), {task.task_id for task in tasks}, config.repeats).lines
    except ResultsError as exc:
        raise ConfigError(str(exc)) from None
    rerun = {(line.result.task_id, line.result.repeat): line.result.attempt for line in counted
             if config.retry_errors and line.result.error_kind in RERUN_KINDS}
    done = {(line.result.task_id, line.result.repeat) for line in counted} - rerun.keys()
    config = msgspec.structs.replace(config, out=str(out), vm=_vm_host(loaded, config))
    nodes = await _greet_connected(config) if config.connect else ()
    if config.uses_llm():
        await llm.preflight(name_of("llm_preflight"), chat=config.uses_chat())
    pending = len(tasks) * config.repeats - len(done)
    concurrency, why = _concurrency(loaded, config, nodes, pending, name_of)
    slots, slots_why = _slots_per_browser(loaded, config, concurrency, name_of)
    config = msgspec.structs.replace(config, concurrency=concurrency, slots_per_browser=slots)
    rerun_labels = ", ".join(episode_label(*key) for key in sorted(rerun))
    chosen = ((f"concurrency {concurrency}: {why}",) if why else ()) + (
        (f"{slots} VM slot(s) per browser: {slots_why}",) if slots_why else ()) + (
        (f"re-running {len(rerun)} episode(s) that ended on a model-service or environment error "
         f"({name_of('retry_errors')}): {rerun_labels}",) if rerun else ()) + (
        (f"{asked} holds a run with other settings; {name_of('force')}: these run in {out}",) if out != asked else ())
    return RunPlan(config=config, suite=loaded, tasks=tasks, done=done, rerun=rerun, out=out, agent=agent_factory,
                   summarizer=summarizer_factory, llm=llm, entry=entry or {}, chosen=chosen, nodes=nodes,
                   starts=tuple(earlier_starts(out)))


def _vm_host(suite: Suite, config: RunConfig) -> str:
    """What hosts the run's VMs, as run.json records it: a suite whose VM actors cannot live in
    this process (no `vm_actors`) is hosted by node processes whatever `--vm` said."""
    if config.vm == "inproc" and (config.connect or suite.vm_actors() is None):
        return "node"
    return config.vm


def _concurrency(suite: Suite, config: RunConfig, nodes: tuple[RemoteNode, ...], pending: int,
                 name_of: Callable[[str], str]) -> tuple[int, str]:
    """The run's concurrency, and why when it is not simply what the caller gave: the `--connect`
    nodes' seats, what this machine fits, and never more than the episodes there are to run."""
    given = config.concurrency
    if nodes:
        concurrency, why = connected_concurrency(nodes, given)
    elif given is None:
        concurrency, why = fitting_concurrency(suite, config)
    else:
        concurrency, why = given, ""
    if 0 < pending < concurrency:
        said = f"{why}; " if why else f"{name_of('concurrency')} {given}, "
        concurrency, why = pending, f"{said}capped at the {pending} episode(s) to run"
    if given is not None and not nodes:
        fits, lowered = machine_cap(suite, config, concurrency, why or f"{name_of('concurrency')} {given}")
        if fits < concurrency:
            return fits, lowered
    return concurrency, why


def _check_slots_per_browser(suite: Suite, config: RunConfig, name_of: Callable[[str], str]) -> None:
    given = config.slots_per_browser
    if given is not None and not suite.shares_browser:
        raise ConfigError(f"{name_of('slots_per_browser')}: the {suite.name} suite's VMs are not browsers "
                          f"that can share one")
    if given is not None and given > 1 and config.connect:
        raise ConfigError(f"{name_of('slots_per_browser')}: --connect nodes host one VM each (one a seat, started "
                          f"with --seats N); browsers are shared only by the node processes a run starts itself")


def _slots_per_browser(suite: Suite, config: RunConfig, concurrency: int,
                       name_of: Callable[[str], str]) -> tuple[int | None, str]:
    """How many VM slots share a browser (None: the suite's VMs are not browsers that can), and why,
    when the caller did not say; never more than the episodes run at once."""
    given = config.slots_per_browser
    if not suite.shares_browser:
        return None, ""
    if config.vm == "ray" and given is None:
        return 1, (f"a node per VM on Ray, spread over its hosts (give {name_of('slots_per_browser')} N for nodes "
                   f"of N VMs sharing a browser, each needing N VMs' resources on one host)")
    if given is not None:
        return min(given, concurrency), ""
    if not shares_browsers(suite, config):
        return 1, ""
    return fitting_slots_per_browser(concurrency)


async def execute(plan: RunPlan, *, on_event: Callable[[Any], Any] | None = None,
                  on_result: Callable[[EpisodeResult], None] | None = None,
                  say: Callable[[str], None] = logger.info) -> Run:
    """Run the plan's pending episodes on the current event loop and write its folder.
    `on_event` gets every live event (StepTaken, EpisodeFinished, ...), `on_result`
    each finished episode's result; `say` the lines a person watching wants (the viewer's
    URL; logged at INFO unless the caller shows them itself). The folder is this run's alone
    while it runs (FolderBusy, a ConfigError naming the holder's pid, if another run has it);
    a full disk ends the run with FolderFull saying what was kept (`_full`), a Ray cluster that lost its
    GCS or this machine's raylet with ClusterLost saying what died, what was kept and how to resume."""
    started = datetime.datetime.now(datetime.timezone.utc)
    placed: dict[str, Any] | None = {"most_placed": 0, "most_pending": 0, "hosts": {}} if plan.config.vm == "ray" else None
    with hold_run_folder(plan.out):
        try:
            await _episodes(plan, started, placed, on_event, on_result, say)
            return _conclude(plan, started, placed, say)
        except FolderFull as full:
            raise _full(plan, full, started, placed, say) from None
        except ClusterLost as lost:
            raise ClusterLost(f"{lost}; kept {len(plan.counted().lines)} of {len(plan.episodes)} results in "
                              f"{plan.out / RESULTS}; run the same command to resume (finished episodes are not "
                              f"run again)") from None


async def _episodes(plan: RunPlan, started: datetime.datetime, placed: dict[str, Any] | None,
                    on_event: Callable[[Any], Any] | None, on_result: Callable[[EpisodeResult], None] | None,
                    say: Callable[[str], None]) -> None:
    out, config = plan.out, plan.config
    _write_json(out / RUN_INFO, _run_info(plan, started, None, placed))
    for line in plan.chosen:
        say(line)
    with _configuration_errors_unwrapped():
        async with (_placement(plan, say, placed) as (placements, watch), _vm_slots(plan, placements) as vm_slot,
                    anyio.create_task_group() as tg):
            if watch is not None:
                tg.start_soon(watch)
            sink = await spawn(tg, ResultSink(
                out, screenshots=config.screenshots, screenshot_format=config.screenshot_format,
                screenshot_quality=config.screenshot_quality))
            bus = EventBus()
            with ExitStack() as stack:
                relayed = anyio.Event()
                if on_event is not None:
                    tg.start_soon(_relay, stack.enter_context(bus.subscribe()), on_event, relayed)
                else:
                    relayed.set()
                viewer = None if config.viewer is None else await _start_viewer(tg, bus, plan, say)
                await _runner(plan, Outlets(sink=sink, bus=bus), on_result, vm_slot).run(plan.pending)
                await sink.ask(Flush())
                bus.close()
                await relayed.wait()
                if viewer is not None:
                    with anyio.move_on_after(VIEWERS_TOLD):
                        await viewer.told()
            tg.cancel_scope.cancel()


def _conclude(plan: RunPlan, started: datetime.datetime, placed: dict[str, Any] | None,
              say: Callable[[str], None]) -> Run:
    """The run's summary, report and final run.json, from what its folder holds."""
    out = plan.out
    counted = plan.counted()
    lines = counted.lines
    episodes, unreadable = read_episodes(out, lines)
    summary = summarize([line.result for line in lines], lines)
    summary["metrics"] = run_metrics(episodes)
    summary["suite"] = plan.suite.name
    own = plan.suite.figures(episodes)
    if own:
        summary[plan.suite.name] = own
    for line in plan.suite.figure_lines(own) if own else ():
        say(line)
    if counted.ignored:
        summary["ignored"] = counted.ignored
    if unreadable:
        summary["unreadable_episodes"] = unreadable
    for line in left_out(summary):
        say(line)
    rerun = sum(line.result.error_kind in RERUN_KINDS for line in lines)
    if rerun:
        say(f"{rerun} episode(s) ended on a model-service or environment error, no verdict on the agent: "
            f"the same command on the same folder runs them again")
    _write_json(out / SUMMARY, summary)
    write_report(out, summary, lines)
    _write_json(out / RUN_INFO, {**_run_info(plan, started, datetime.datetime.now(datetime.timezone.utc), placed),
                                 **_stalls_since(started, say)})
    return Run(folder=out, results=lines, summary=json.loads((out / SUMMARY).read_text()))


def _stalls_since(started: datetime.datetime, say: Callable[[str], None]) -> dict[str, Any]:
    """The stalls of this process during the run (`runtime.stalls`), said and for run.json: time
    in which the supervisor did not run and which no time limit counted."""
    found = [stall for stall in stalls.seen() if stall.ended >= started.timestamp()]
    if not found:
        return {}
    say(f"this process was stalled (stopped or starved) {len(found)} time(s), "
        f"{sum(stall.seconds for stall in found):.1f} s in all; no time limit counted it")
    return {"stalls": [{"ended": datetime.datetime.fromtimestamp(stall.ended, datetime.timezone.utc).isoformat(),
                        "seconds": round(stall.seconds, 3)} for stall in found]}


def _full(plan: RunPlan, full: FolderFull, started: datetime.datetime, placed: dict[str, Any] | None,
          say: Callable[[str], None]) -> FolderFull:
    """The one error a full disk ends a run with: the folder, the file that could not be written,
    the results kept, whether the summary still fit, and how to go on."""
    try:
        _conclude(plan, started, placed, say)
        concluded = f"{SUMMARY} written"
    except FolderFull as also:
        concluded = f"no room for {SUMMARY}" if also.path.name == SUMMARY else (
            f"{SUMMARY} written, no room for {_within(plan.out, also.path)}")
    kept = len(plan.counted().lines)
    return FolderFull(full.path, full.reason, f"run folder {plan.out}: {full.reason}: could not write "
                      f"{_within(plan.out, full.path)}; kept {kept} of {len(plan.episodes)} results whole in {RESULTS}, "
                      f"{concluded}; free space and run the same command to resume")


def _within(folder: Path, path: Path) -> Path:
    return path.relative_to(folder) if path.is_relative_to(folder) else path


SuiteOptions = msgspec.Struct | Mapping[str, Any]
"""A suite's own settings: its `Options` Struct (`MiniWobSuite.Options(tasks=[...], seeds=2)`),
or the same as a dict (`{"tasks": [...], "seeds": 2}`)."""


async def run(suite: str | type[Suite] | None = None, config: RunConfig | None = None, *, agent: Any = None,
              summarizer: Any = None, options: SuiteOptions | None = None,
              on_event: Callable[[Any], Any] | None = None, on_result: Callable[[EpisodeResult], None] | None = None,
              **settings: Unpack[RunKeywords]) -> Run:
    """Run `suite` (default: `config`'s, else miniwob) and return its run folder, read back.

    `agent` is a name, `module:attr`, a Policy class or factory (one Policy per episode)
    or a Policy object (shared by every episode). The run's settings are `config` (a
    `RunConfig`), or keywords named as the command line's flags (`max_steps=10`,
    `concurrency=4`, `vm="node"`, `viewer="127.0.0.1:8765"`, `out="runs/x"`,
    `llm_model=...`; see `bench.keywords.RunKeywords`), which override `config`'s; the
    suite's own go in `options`. `on_event` sees every live event (one that raises is
    logged and the run goes on), `on_result` every finished episode's result.
    Raises ConfigError before writing anything when a setting cannot work."""
    checked = await _python_plan("bench.run", suite, config, agent, summarizer, options, settings)
    return await execute(checked, on_event=on_event, on_result=on_result)


def run_sync(suite: str | type[Suite] | None = None, config: RunConfig | None = None, *, backend: str = "asyncio",
             agent: Any = None, summarizer: Any = None, options: SuiteOptions | None = None,
             on_event: Callable[[Any], Any] | None = None, on_result: Callable[[EpisodeResult], None] | None = None,
             **settings: Unpack[RunKeywords]) -> Run:
    """`run` for scripts and notebooks, on an event loop of its own (`backend` "asyncio" or
    "trio"). Called where an event loop already runs (a Jupyter notebook), it runs its loop
    in a thread of its own and waits for it: a second loop cannot run in the same thread."""

    async def whole() -> Run:
        checked = await _python_plan("bench.run_sync", suite, config, agent, summarizer, options, settings)
        return await execute(checked, on_event=on_event, on_result=on_result)

    if not _loop_running():
        return anyio.run(whole, backend=backend)
    with ThreadPoolExecutor(1, thread_name_prefix="bench.run_sync") as thread:
        return thread.submit(anyio.run, whole, backend=backend).result()


def _loop_running() -> bool:
    try:
        sniffio.current_async_library()
        return True
    except sniffio.AsyncLibraryNotFoundError:
        pass
    try:
        asyncio.get_running_loop()
        return True
    except RuntimeError:
        return False


async def _python_plan(call: str, suite: str | type[Suite] | None, config: RunConfig | None, agent: Any,
                       summarizer: Any, options: SuiteOptions | None, settings: dict[str, Any]) -> RunPlan:
    unknown = sorted(set(settings) - RunKeywords.__optional_keys__)
    if unknown:
        raise ConfigError(f"{call}: no setting {unknown[0]!r}; a suite's own settings go in options= "
                          f"(options={{{unknown[0]!r}: ...}})")
    if suite is None:
        suite = "miniwob" if config is None else config.suite + (f":{config.source}" if config.source else "")
    prefix = plugins.suite_class(suite)[0].keyword_prefix()
    values = flatten(config, prefix) if config is not None else {}
    values |= {**settings, **suite_values(options, prefix)}
    return await plan(suite, values, agent=agent, summarizer=summarizer, entry={"entry": "python", "call": call})


def load_run(folder: str | os.PathLike) -> Run:
    """Any run folder, read back, one result per task (raises ResultsError if `folder` is not one)."""
    from bench.frame import read_run

    folder = Path(folder)
    lines = read_run(folder)
    summary_path = folder / SUMMARY
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else summarize(
        [line.result for line in lines], lines)
    return Run(folder=folder, results=lines, summary=summary)


def _runner(plan: RunPlan, outlets: Outlets, on_result: Callable[[EpisodeResult], None] | None, vm_slot: Any):
    config, llm = plan.config, plan.llm
    analyst = llm.analyst() if config.analysis == "llm" else None
    crew = CrewFactory(
        agent=lambda: Agent(plan.agent()),
        evaluator=lambda: Evaluator(plan.suite.checker(), analyst=analyst),
        summarizer=None if plan.summarizer is None else (lambda: Summarizer(plan.summarizer())),
        reference=plan.suite.step_reference(),
    )
    return EpisodeRunner(crew=crew, vm_slot=vm_slot, limits=config.limits.limits(),
                         concurrency=config.concurrency, max_attempts=config.limits.max_attempts, outlets=outlets,
                         on_result=on_result, earlier_attempts=plan.rerun)


@asynccontextmanager
async def _vm_slots(plan: RunPlan, placements: Any) -> AsyncIterator[Any]:
    """How each worker gets its VM: a seat of a running node named by URL, a node Ray places, a
    seat on a node process whose browser several slots share, a node process each, or in-process
    (never for a suite whose backend must live in its own process)."""
    suite, config = plan.suite, plan.config
    if config.connect:
        yield seat_slots(plan.nodes, _token(config))[: config.concurrency]
        return
    if config.vm == "ray":
        from runtime.ray_nodes import run_ray_node

        node = functools.partial(run_ray_node, suite.node_app, resources=suite.vm_resources,
                                 num_cpus=suite.vm_cpus, placements=placements)
    elif config.vm == "node":
        node = functools.partial(run_local_node, suite.node_app)
    else:
        yield functools.partial(run_local_host, suite.vm_actors())
        return
    if (config.slots_per_browser or 1) > 1:
        async with SharedNodes(node, seats=config.slots_per_browser) as nodes:
            yield nodes.slot
    else:
        yield node


async def _greet_connected(config: RunConfig) -> tuple[RemoteNode, ...]:
    """The `--connect` nodes and their seats; refused when none of them answers (a run on
    nodes that are not there would only retry and fail every episode)."""
    try:
        nodes = tuple(await greet_nodes(config.connect, _token(config)))
    except (ProtocolError, ValueError) as exc:
        raise ConfigError(f"--connect: {exc}") from None
    if all(node.problem for node in nodes):
        raise ConfigError("--connect: no node answered: " + "; ".join(f"{n.url}: {n.problem}" for n in nodes))
    return nodes


@asynccontextmanager
async def _placement(plan: RunPlan, say: Callable[[str], None],
                     seen: dict[str, Any] | None) -> AsyncIterator[tuple[Any, Any]]:
    """For `--vm ray`: a Ray session for the run, its nodes' placements said as they change and
    kept in `seen` (the most placed and waiting at once, the most on each host: run.json), and
    the watch over the cluster that raises ClusterLost when it is gone (`runtime.ray_liveness`);
    (None, None) otherwise."""
    if seen is None:
        yield None, None
        return
    from runtime.ray_liveness import watch_cluster
    from runtime.ray_nodes import Placements, ray_session

    said: list[dict[str, Any]] = []

    def changed(placements: Placements) -> None:
        now = placements.snapshot()
        seen["most_placed"] = max(seen["most_placed"], now["placed"])
        seen["most_pending"] = max(seen["most_pending"], now["pending"])
        for host, count in now["hosts"].items():
            seen["hosts"][host] = max(seen["hosts"].get(host, 0), count)
        if not said or said[-1] != now:
            said.append(now)
            say(f"VMs on Ray: {now['placed']} placed, {now['pending']} waiting for resources, hosts {now['hosts']}")

    async with ray_session(plan.config.ray_address, vms=plan.config.concurrency) as session:
        yield Placements(on_change=changed), functools.partial(watch_cluster, session)


def _token(config: RunConfig) -> str | None:
    return config.token or os.environ.get("TROUPE_NODE_TOKEN")


@contextmanager
def _configuration_errors_unwrapped() -> Iterator[None]:
    """A ConfigError the runner raised (a backend that cannot run on this loop), the
    FolderFull of a full disk, or the ClusterLost of a Ray that died, comes out as itself, not inside the task group's
    ExceptionGroup: it is one line for the user, not a traceback."""
    try:
        yield
    except BaseExceptionGroup as group:
        found, _ = group.split((ConfigError, FolderFull, ClusterLost))
        while isinstance(found, BaseExceptionGroup):
            found = found.exceptions[0]
        if found is None:
            raise
        raise found from None


async def _relay(events, on_event: Callable[[Any], Any], done: anyio.Event) -> None:
    """Hand every event to the caller's `on_event`. A callback that raises is the caller's
    bug, not the run's: the first failure is logged with its traceback, later ones counted,
    and the run goes on."""
    failed = 0
    try:
        async for event in events:
            try:
                reply = on_event(event)
                if inspect.isawaitable(reply):
                    await reply
            except Exception as exc:
                failed += 1
                if failed == 1:
                    logger.warning("on_event raised %s; the run goes on (further failures are counted)",
                                   describe(exc), exc_info=logger.isEnabledFor(logging.DEBUG))
    finally:
        if failed > 1:
            logger.warning("on_event raised %d times in all", failed)
        done.set()


async def _start_viewer(tg, bus: EventBus, plan: RunPlan, say: Callable[[str], None]) -> ViewerServer:
    from bench.viewer.server import ViewerServer

    config = plan.config
    host, port = config.viewer_address()
    token = config.viewer_token or os.environ.get("TROUPE_VIEWER_TOKEN")
    # a resumed run's finished episodes, named as the viewer's cards are
    earlier = {episode_label(line.result.task_id, line.result.repeat): line.result
               for line in plan.counted().lines if (line.result.task_id, line.result.repeat) in plan.done}
    viewer = ViewerServer(bus, token=token, run_dir=plan.out, summarizing=config.summarizer != "none",
                          earlier=earlier, total=len(plan.episodes),
                          last_screen_shows_work=plan.suite.last_screen_shows_work)
    serve = functools.partial(viewer.run, host, port)
    try:
        bound = await tg.start(_watching_only, serve, say)
    except Exception as exc:  # the port taken since `plan` checked it: one line, as `plan` would have said
        raise ConfigError(f"--viewer {config.viewer}: cannot listen there ({describe(exc)})") from None
    say(f"viewer: http://{host}:{bound}/" + (" (add ?token=<viewer token>)" if token else ""))
    return viewer


async def _watching_only(serve, say: Callable[[str], None], *, task_status=anyio.TASK_STATUS_IGNORED) -> None:
    """Run a viewer that only watches: once it serves, its failure is said and logged and the
    run goes on without it (watching is a convenience, never worth a run). One that cannot start
    (a port in use) still stops the run before any episode."""
    serving = False
    try:
        async with anyio.create_task_group() as tg:
            task_status.started(await tg.start(serve))
            serving = True
    except Exception as exc:
        if not serving:
            raise
        logger.warning("the viewer stopped; the run goes on without it", exc_info=True)
        say(f"viewer stopped ({describe(exc)}); the run goes on without it")


def _check_writable(out: Path, name: str) -> None:
    """Refuse a run folder that cannot be created or written, before anything is written: the
    deepest folder of `out` that exists is tried by making (and removing) a folder in it, since
    permissions alone do not say it (root may write anywhere, yet not in /proc)."""
    text = str(out)
    shown = text if len(text) <= 80 else f"{text[:40]}...{text[-30:]} ({len(text)} characters)"
    try:
        if out.exists() and not out.is_dir():
            raise ConfigError(f"{name} {shown}: exists and is not a folder")
        existing = out
        while not existing.exists():
            existing = existing.parent
        if not existing.is_dir():
            raise ConfigError(f"{name} {shown}: cannot write there ({existing} is not a writable folder)")
        os.rmdir(tempfile.mkdtemp(prefix=".troupe-check-", dir=existing))
    except OSError as exc:  # a name too long, a folder that refuses new entries
        raise ConfigError(f"{name} {shown}: cannot write there ({exc.strerror or exc})") from None


def _check_viewer(config: RunConfig, name_of: Callable[[str], str]) -> None:
    """Refuse a viewer address that cannot serve, before anything is written: a port something
    else listens on, or an address beyond this machine without a token (anyone who can reach
    the port would watch the run's screens)."""
    address = config.viewer_address(name_of)
    if address is None:
        return
    host, port = address
    flag = f"{name_of('viewer')} {config.viewer}"
    if not _loopback(host) and not (config.viewer_token or os.environ.get("TROUPE_VIEWER_TOKEN")):
        raise ConfigError(f"{flag}: serves beyond this machine; give {name_of('viewer_token')} (or set "
                          "TROUPE_VIEWER_TOKEN) so that only those who have it can watch")
    try:
        family, kind, proto, _, where = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(where)
    except OSError as exc:
        raise ConfigError(f"{flag}: cannot listen there ({exc.strerror or exc})") from None


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _run_info(plan: RunPlan, started: datetime.datetime, ended: datetime.datetime | None,
              placements: dict[str, Any] | None) -> dict[str, Any]:
    """run.json: this start of the run, and under `starts` every start, this one last."""
    this = {**plan.entry, "config": public(plan.config), "started": started.isoformat(),
            "ended": ended.isoformat() if ended else None}
    return {
        **plan.entry,
        "config": this["config"],
        "event_loop": sniffio.current_async_library(),
        "versions": {"python": platform.python_version(), "troupe": bench.__version__,
                     **{name: metadata.version(name) for name in ("anyio", "msgspec", "websockets", "trio")}},
        "started": started.isoformat(),
        "ended": ended.isoformat() if ended else None,
        **({"placements": placements} if placements is not None else {}),
        "starts": [*plan.starts, this],
    }


def _finite(data: Any) -> Any:
    """JSON has no Infinity or NaN: a non-finite number is written as null."""
    if isinstance(data, float) and not math.isfinite(data):
        return None
    if isinstance(data, dict):
        return {key: _finite(value) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return [_finite(value) for value in data]
    return data


def _write_json(path: Path, data: dict) -> None:
    with writing(path):
        path.parent.mkdir(parents=True, exist_ok=True)
    write_whole(path, json.dumps(_finite(data), indent=2, default=str, allow_nan=False).encode() + b"\n")
