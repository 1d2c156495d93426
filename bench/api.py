"""The one-call API: run a suite from Python, on asyncio or trio, into a run folder.

    import bench
    run = await bench.run("miniwob", agent=MyPolicy(), tasks=["click-button"], seeds=2, out="runs/mine")
    run = bench.run_sync("sim", episodes=20)
    run = bench.load_run("runs/mine")

`python -m bench.supervisor` is a thin layer over the same two steps:
`plan` checks everything a run needs (options, suite, tasks, agent, LLM
configuration, the run folder) and raises `ConfigError` before anything is
written; `execute` runs the episodes and writes the folder. run.json records
the call as it was made: the entry point, the options (never a secret), the
event loop and the versions.
"""

from __future__ import annotations

import datetime
import functools
import inspect
import json
import logging
import math
import os
import platform
from contextlib import ExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Iterator

import anyio
import msgspec
import sniffio

from actors.agent import Agent, Policy
from actors.episode import Outlets
from actors.errors import ConfigError
from actors.evaluator import Evaluator
from actors.result_sink import ResultSink
from actors.run_folder import ResultLine, ResultsError, count_results, read_episodes, read_results
from actors.runner import CrewFactory, EpisodeRunner
from actors.summarizer import Judge, Summarizer
import bench
from bench import extras, plugins
from bench.config import RunConfig, build, public
from bench.fit import connected_concurrency, fitting_concurrency, fitting_slots_per_browser, shares_browsers
from bench.llm import LLMRoles
from bench.metrics import run_metrics
from bench.report import write_report
from bench.suites.base import Suite
from bench.summary import left_out, summarize
from protocols import EpisodeResult, Flush, ProtocolError, Task
from runtime.actor import spawn
from runtime.capacity import Capacity
from runtime.errors import describe
from runtime.events import EventBus
from runtime.host import run_local_host
from runtime.remote import run_local_node
from runtime.seats import RemoteNode, SharedNodes, greet_nodes, seat_slots

__all__ = ["ConfigError", "Run", "RunPlan", "execute", "load_run", "plan", "run", "run_sync"]

logger = logging.getLogger(__name__)

RUN_INFO = "run.json"
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


@dataclass
class RunPlan:
    """A run checked and ready: nothing of it has been written yet."""

    config: RunConfig
    suite: Suite
    tasks: list[Task]
    done: set[str]
    out: Path
    agent: Callable[[], Policy]
    summarizer: Callable[[], Judge] | None
    llm: LLMRoles
    entry: dict[str, Any] = field(default_factory=dict)
    concurrency_chosen: str = ""
    """Why the run has the concurrency it has, when the caller did not set it."""
    slots_chosen: str = ""
    """Why a browser hosts the VM slots it does, when the caller did not set it."""
    placements: dict[str, Any] | None = None
    """Where `--vm ray` placed the run's VMs: the most placed and waiting at once, and the
    most on each host (run.json)."""
    nodes: list[RemoteNode] = field(default_factory=list)
    """The `--connect` nodes and their seats, once `execute` asked them."""

    @property
    def pending(self) -> list[Task]:
        return [task for task in self.tasks if task.task_id not in self.done]


def plan(suite: str | type[Suite] = "miniwob", values: dict[str, Any] | None = None, *, agent: Any = None,
         summarizer: Any = None, strict: bool = True, name_of: Callable[[str], str] = str) -> RunPlan:
    """Check a run of `suite` with `values` (option name -> value) without writing anything;
    raise ConfigError (UnknownTask for a task id the suite lacks) naming what is wrong."""
    suite_type, source = plugins.suite_class(suite)
    paths = {name: os.fspath(value) for name, value in (values or {}).items() if isinstance(value, os.PathLike)}
    values = {**(values or {}), **paths, "suite": suite_type.name, "source": source}
    config = build(values, suite_type.Options, strict=strict, name_of=name_of,
                   options_prefix=suite_type.keyword_prefix())
    loaded = suite_type.from_config(config)
    tasks = loaded.selection()
    llm = LLMRoles(config.llm, Capacity("llm", config.llm_slots))
    agent_factory, agent_label = plugins.agent_factory(loaded.default_agent if agent is None else agent, llm)
    summarizer_factory, summarizer_label = plugins.summarizer_factory(
        loaded.default_summarizer if summarizer is None else summarizer, llm)
    if config.concurrency or config.connect:  # --connect: the nodes' seats decide, once `execute` asked them
        concurrency, why = config.concurrency, ""
    else:
        concurrency, why = fitting_concurrency(loaded, config)
    slots, slots_why = _slots_per_browser(loaded, config, concurrency, name_of)
    config = msgspec.structs.replace(config, agent=agent_label, summarizer=summarizer_label, concurrency=concurrency,
                                     slots_per_browser=slots)
    llm.check(used=config.uses_llm())
    config.viewer_address(name_of)
    if config.connect and not _token(config):
        raise ConfigError("--connect needs a token: pass --token or set TROUPE_NODE_TOKEN")
    if config.vm in ("node", "ray") and loaded.node_app is None:
        raise ConfigError(f"{name_of('vm')}: suite {loaded.name!r} has no node app; its VMs run in this process")
    if config.vm == "ray":
        extras.require("ray", "--vm ray")
    out = Path(config.out) if config.out else Path("runs") / f"{loaded.name}-{datetime.datetime.now():%Y%m%d-%H%M%S}"
    _check_writable(out, name_of("out"))
    try:
        done = {line.result.task_id for line in read_results(out)}
    except ResultsError as exc:
        raise ConfigError(str(exc)) from None
    return RunPlan(config=msgspec.structs.replace(config, out=str(out)), suite=loaded, tasks=tasks, done=done,
                   out=out, agent=agent_factory, summarizer=summarizer_factory, llm=llm, concurrency_chosen=why,
                   slots_chosen=slots_why)


def _slots_per_browser(suite: Suite, config: RunConfig, concurrency: int,
                       name_of: Callable[[str], str]) -> tuple[int | None, str]:
    """How many VM slots share a browser (None: the suite's VMs are not browsers that can), and why,
    when the caller did not say; never more than the episodes run at once."""
    given = config.slots_per_browser
    if not suite.shares_browser:
        if given is not None:
            raise ConfigError(f"{name_of('slots_per_browser')}: the {suite.name} suite's VMs are not browsers "
                              f"that can share one")
        return None, ""
    if given is not None and given > 1 and config.connect:
        raise ConfigError(f"{name_of('slots_per_browser')}: --connect nodes host one VM each (one a seat, started "
                          f"with --seats N); browsers are shared only by the node processes a run starts itself")
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
    URL; logged at INFO unless the caller shows them itself)."""
    if plan.config.connect:
        await _greet_connected(plan)
    out, config = plan.out, plan.config
    started = datetime.datetime.now(datetime.timezone.utc)
    _write_json(out / RUN_INFO, _run_info(plan, started, None))
    if plan.concurrency_chosen:
        say(f"concurrency {config.concurrency}: {plan.concurrency_chosen}")
    if plan.slots_chosen:
        say(f"{config.slots_per_browser} VM slot(s) per browser: {plan.slots_chosen}")
    with _configuration_errors_unwrapped():
        async with (_placement(plan, say) as placements, _vm_slots(plan, placements) as vm_slot,
                    anyio.create_task_group() as tg):
            sink = await spawn(tg, ResultSink(out))
            bus = EventBus()
            with ExitStack() as stack:
                relayed = anyio.Event()
                if on_event is not None:
                    tg.start_soon(_relay, stack.enter_context(bus.subscribe()), on_event, relayed)
                else:
                    relayed.set()
                if config.viewer is not None:
                    await _start_viewer(tg, bus, config, out, say)
                await _runner(plan, Outlets(sink=sink, bus=bus), on_result, vm_slot).run(plan.pending)
                await sink.ask(Flush())
                bus.close()
                await relayed.wait()
            tg.cancel_scope.cancel()

    counted = count_results(read_results(out), {task.task_id for task in plan.tasks})
    lines = counted.lines
    episodes, unreadable = read_episodes(out, lines)
    summary = summarize([line.result for line in lines], lines)
    summary["metrics"] = run_metrics(episodes)
    if counted.ignored:
        summary["ignored"] = counted.ignored
    if unreadable:
        summary["unreadable_episodes"] = unreadable
    for line in left_out(summary):
        say(line)
    _write_json(out / SUMMARY, summary)
    write_report(out, summary, lines)
    _write_json(out / RUN_INFO, _run_info(plan, started, datetime.datetime.now(datetime.timezone.utc)))
    return Run(folder=out, results=lines, summary=json.loads((out / SUMMARY).read_text()))


async def run(suite: str | type[Suite] = "miniwob", *, agent: Any = None, summarizer: Any = None,
              on_event: Callable[[Any], Any] | None = None, on_result: Callable[[EpisodeResult], None] | None = None,
              **options: Any) -> Run:
    """Run `suite` and return its run folder, read back. `agent` is a name, `module:attr`,
    a Policy object (shared by every episode) or a factory (one Policy per episode);
    `options` are the command line's flags as keywords (`episodes=20`, `max_steps=10`,
    `concurrency=4`, `vm="node"`, `connect=[url]`, `viewer="127.0.0.1:8765"`, `out="runs/x"`,
    `llm_model=...`) and the suite's own (`tasks=[...]`, `seeds=2` for miniwob).
    Raises ConfigError before writing anything when a setting cannot work."""
    checked = _python_plan("bench.run", suite, agent, summarizer, options)
    return await execute(checked, on_event=on_event, on_result=on_result)


def run_sync(suite: str | type[Suite] = "miniwob", *, backend: str = "asyncio", agent: Any = None,
             summarizer: Any = None, on_event: Callable[[Any], Any] | None = None,
             on_result: Callable[[EpisodeResult], None] | None = None, **options: Any) -> Run:
    """`run` for scripts and notebooks: starts its own event loop (`backend` "asyncio" or "trio")."""
    checked = _python_plan("bench.run_sync", suite, agent, summarizer, options)
    return anyio.run(functools.partial(execute, checked, on_event=on_event, on_result=on_result), backend=backend)


def _python_plan(call: str, suite: str | type[Suite], agent: Any, summarizer: Any, options: dict[str, Any]) -> RunPlan:
    checked = plan(suite, options, agent=agent, summarizer=summarizer)
    checked.entry = {"entry": "python", "call": call}
    return checked


def load_run(folder: str | os.PathLike) -> Run:
    """Any run folder, read back, one result per task (raises ResultsError if `folder` is not one)."""
    from bench.frame import read_run

    folder = Path(folder)
    lines = count_results(read_run(folder)).lines
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
    )
    return EpisodeRunner(crew=crew, vm_slot=vm_slot, limits=config.limits.limits(),
                         concurrency=config.concurrency, max_attempts=config.limits.max_attempts, outlets=outlets,
                         on_result=on_result)


@asynccontextmanager
async def _vm_slots(plan: RunPlan, placements: Any) -> AsyncIterator[Any]:
    """How each worker gets its VM: a seat of a running node named by URL, a node Ray places, a
    seat on a node process whose browser several slots share, a node process each, or in-process
    (never for a suite whose backend must live in its own process)."""
    suite, config = plan.suite, plan.config
    if config.connect:
        yield seat_slots(plan.nodes, _token(config))[: config.concurrency]
        return
    build_actors = suite.vm_actors()
    if config.vm == "ray":
        from runtime.ray_nodes import run_ray_node

        node = functools.partial(run_ray_node, suite.node_app, resources=suite.vm_resources,
                                 num_cpus=suite.vm_cpus, placements=placements)
    elif config.vm == "node" or build_actors is None:
        node = functools.partial(run_local_node, suite.node_app)
    else:
        yield functools.partial(run_local_host, build_actors)
        return
    if (config.slots_per_browser or 1) > 1:
        async with SharedNodes(node, seats=config.slots_per_browser) as nodes:
            yield nodes.slot
    else:
        yield node


async def _greet_connected(plan: RunPlan) -> None:
    """Ask the `--connect` nodes their seats and set the run's concurrency from them."""
    try:
        plan.nodes = await greet_nodes(plan.config.connect, _token(plan.config))
    except (ProtocolError, ValueError) as exc:
        raise ConfigError(f"--connect: {exc}") from None
    concurrency, plan.concurrency_chosen = connected_concurrency(plan.nodes, plan.config.concurrency)
    plan.config = msgspec.structs.replace(plan.config, concurrency=concurrency)


@asynccontextmanager
async def _placement(plan: RunPlan, say: Callable[[str], None]) -> AsyncIterator[Any]:
    """For `--vm ray`: a Ray session for the run and the record of where its nodes are
    (said as it changes, written to run.json at the end); None otherwise."""
    if plan.config.vm != "ray":
        yield None
        return
    from runtime.ray_nodes import Placements, ray_session

    said: list[dict[str, Any]] = []
    seen = plan.placements = {"most_placed": 0, "most_pending": 0, "hosts": {}}

    def changed(placements: Placements) -> None:
        now = placements.snapshot()
        seen["most_placed"] = max(seen["most_placed"], now["placed"])
        seen["most_pending"] = max(seen["most_pending"], now["pending"])
        for host, count in now["hosts"].items():
            seen["hosts"][host] = max(seen["hosts"].get(host, 0), count)
        if not said or said[-1] != now:
            said.append(now)
            say(f"VMs on Ray: {now['placed']} placed, {now['pending']} waiting for resources, hosts {now['hosts']}")

    async with ray_session(plan.config.ray_address, vms=plan.config.concurrency):
        yield Placements(on_change=changed)


def _token(config: RunConfig) -> str | None:
    return config.token or os.environ.get("TROUPE_NODE_TOKEN")


@contextmanager
def _configuration_errors_unwrapped() -> Iterator[None]:
    """A ConfigError the runner raised (a backend that cannot run on this loop)
    comes out as itself, not inside the task group's ExceptionGroup: it is one
    line for the user, not a traceback."""
    try:
        yield
    except BaseExceptionGroup as group:
        found, _ = group.split(ConfigError)
        while isinstance(found, BaseExceptionGroup):
            found = found.exceptions[0]
        if found is None:
            raise
        raise found from None


async def _relay(events, on_event: Callable[[Any], Any], done: anyio.Event) -> None:
    try:
        async for event in events:
            reply = on_event(event)
            if inspect.isawaitable(reply):
                await reply
    finally:
        done.set()


async def _start_viewer(tg, bus: EventBus, config: RunConfig, out: Path, say: Callable[[str], None]) -> None:
    from bench.viewer.server import ViewerServer

    host, port = config.viewer_address()
    token = config.viewer_token or os.environ.get("TROUPE_VIEWER_TOKEN")
    viewer = ViewerServer(bus, token=token, run_dir=out, summarizing=config.summarizer != "none")
    serve = functools.partial(viewer.run, host, port)
    bound = await tg.start(_watching_only, serve, say)
    say(f"viewer: http://{host}:{bound}/" + (" (add ?token=<viewer token>)" if token else ""))


async def _watching_only(serve, say: Callable[[str], None], *, task_status=anyio.TASK_STATUS_IGNORED) -> None:
    """Run a viewer that only watches: once it serves, its failure is said and logged and the
    run goes on without it (issue 17: a viewer's end took a run down). One that cannot start
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
    """Refuse a run folder that cannot be created or written, before anything is written."""
    if out.exists() and not out.is_dir():
        raise ConfigError(f"{name} {out}: exists and is not a folder")
    existing = out
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"{name} {out}: cannot write there ({existing} is not a writable folder)")


def _run_info(plan: RunPlan, started: datetime.datetime, ended: datetime.datetime | None) -> dict[str, Any]:
    return {
        **plan.entry,
        "config": public(plan.config),
        "event_loop": sniffio.current_async_library(),
        "versions": {"python": platform.python_version(), "troupe": bench.__version__,
                     **{name: metadata.version(name) for name in ("anyio", "msgspec", "websockets", "trio")}},
        "started": started.isoformat(),
        "ended": ended.isoformat() if ended else None,
        **({"placements": plan.placements} if plan.placements is not None else {}),
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
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(json.dumps(_finite(data), indent=2, default=str, allow_nan=False).encode() + b"\n")
