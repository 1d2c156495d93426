"""VM nodes placed on a Ray cluster: Ray says where, troupe decides everything else.

Past one host, someone has to pick the machine for each VM node, count what
each machine can take, and notice a machine that is gone. Ray does that, so a
VM slot can ask it: `run_ray_node` is a supervisor child start function like
`connect_node` and `run_local_node`. It asks Ray for an actor with the
resources the suite declares, waits (pending, not failing) while the cluster
is full, has the actor serve the node's actors on its Ray host's address with
a fresh token, and connects to it over the websocket exactly as
`connect_node` does: the data path is troupe's, not Ray's.

Ray never restarts or retries anything here (`max_restarts=0`,
`max_task_retries=0`). When the node, its worker process or its whole Ray
host dies, the websocket drops or Ray reports the actor dead, and
`run_ray_node` raises `NodeDied` saying which; the slot's supervisor decides
what comes next, as for any node. The node's actors run inside the Ray worker
process (on the async actor's event loop), not in a child of it, so a killed
worker or raylet closes the websocket at once and nothing outlives it.

Ray's API blocks, so every call to it runs in a worker thread: the event loop
(asyncio or trio) never waits on Ray. Ray is an optional extra and imported
only when used.
"""

from __future__ import annotations

import math
import os
import secrets
from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from functools import partial
from types import ModuleType
from typing import Any

import anyio
import anyio.to_thread
from anyio.abc import TaskStatus

from runtime.errors import NodeCrashed, NodeDied
from runtime.loop import cancel_scope_at
from runtime.node import load_app, serve_node
from runtime.process_tree import Process, descendants, end_processes, found, processes_with_environ, start_time
from runtime.remote import NodeConnection, connect_node

__all__ = [
    "VM_RESOURCE", "LoopbackCluster", "Placement", "Placements", "RaySession", "bind_ray_to_loopback",
    "ray_session", "run_ray_node",
]

VM_RESOURCE = "troupe_vm"
"""The custom Ray resource a VM host offers, one unit per VM it can run (`ray start --resources`)."""

LOCAL_OBJECT_STORE_BYTES = 80 * 2**20
"""Object store of a Ray started for one run: nodes send their data over the websocket, not through Ray."""

_LOOPBACK_SWITCH = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
_DEATH_NOTICE = 1.0  # how long a dropped connection waits for Ray to say why the node died
_starter = ThreadPoolExecutor(1, thread_name_prefix="ray-starter")
"""The one thread every connection to Ray is made from, alive as long as this process. Ray has the
processes of a local cluster die with the thread that started them (PR_SET_PDEATHSIG), and an event
loop's worker threads end after idling a while: a Ray started from one of those is SIGKILLed mid-run."""


def _import_ray() -> ModuleType:
    try:
        import ray
    except ModuleNotFoundError:
        raise ImportError("placing nodes on Ray needs ray: pip install 'troupe-bench[ray]'") from None
    return ray


# --- the session: which cluster this run uses ----------------------------------------


def bind_ray_to_loopback() -> None:
    """Make every Ray process started from this process bind and advertise 127.0.0.1 only.

    Ray resolves 127.0.0.1 to the host's routable address (so that other hosts
    can reach it) unless multi-host clusters are switched off, its own setting
    for one-machine Ray on macOS and Windows. That switch is read when `ray` is
    imported, so it is set both in the environment (for the GCS, raylets and
    workers Ray starts) and in this process's already imported copy. Only for
    a Ray that lives on this machine: a driver joining a real cluster must
    advertise an address the cluster can reach.
    """
    os.environ[_LOOPBACK_SWITCH] = "0"
    ray = _import_ray()
    ray._private.ray_constants.ENABLE_RAY_CLUSTER = False


@dataclass(frozen=True)
class RaySession:
    """The cluster a run uses: its address, and whether the run started it (and stops it)."""

    address: str
    started_here: bool


@asynccontextmanager
async def ray_session(address: str | None = None, *, vms: int = 1) -> AsyncIterator[RaySession]:
    """Connect this process to Ray for one run, and let go of it at the end.

    `address`: None connects to a running cluster if there is one (`RAY_ADDRESS`,
    or the latest `ray start` on this machine), else starts a local Ray for the
    run, bound to 127.0.0.1, and stops it at the end; "auto" insists on a
    running cluster; "local" always starts one; anything else is a cluster
    address such as "10.0.0.5:6379". A local Ray offers `vms` VM slots (and at
    least as many CPUs), so the run's concurrency decides, as without Ray.
    If this process was connected already, the session uses that connection
    and leaves it open. Raises ImportError (one line, what to install) when
    ray is missing, ConnectionError when "auto" finds no cluster.
    """
    ray = _import_ray()
    if vms < 1:
        raise ValueError(f"vms must be at least 1, got {vms!r}")
    connected_before = ray.is_initialized()
    started_here = await _connected(address, vms)
    try:
        yield RaySession(address=ray.get_runtime_context().gcs_address, started_here=started_here)
    finally:
        if not connected_before:
            with anyio.CancelScope(shield=True):
                heads = found(_head_processes(ray)) if started_here else []
                started = _processes_of(heads)
                await anyio.to_thread.run_sync(ray.shutdown)
                started |= _processes_of(heads)  # and any agent its raylet started late
                await anyio.to_thread.run_sync(end_processes, started, RAY_EXIT_GRACE)


RAY_EXIT_GRACE = 5.0
"""Seconds the processes of a Ray started for a run get to exit after `ray.shutdown`; then SIGKILL."""


def _head_processes(ray: ModuleType) -> list[int]:
    """The head processes of the Ray this process started (GCS, raylet, monitors)."""
    node = ray._private.worker._global_node
    return [info.process.pid for infos in (node.all_processes if node else {}).values() for info in infos]


def _processes_of(heads: list[Process]) -> set[Process]:
    """Every process of the Ray whose head processes are `heads`: those, all below them, and every
    process a raylet of theirs started (its environment names the raylet), wherever it was reparented
    to when its parent died. A worker killed under a run leaves the raylet's agents running after
    `ray.shutdown`, which does not know them."""
    below = [pid for head in heads if head.running() for pid in descendants(head.pid)]
    return {*heads, *found(below), *(process for head in heads for process in _started_by(head))}


def _started_by(raylet: Process) -> list[Process]:
    """The processes whose environment names `raylet`'s pid and that started in its life: after it
    exits, its pid may be another raylet's (another run's Ray), whose processes start after that one."""
    successor = start_time(raylet.pid)
    if successor == raylet.started:
        successor = None  # still the raylet's
    return [process for process in found(processes_with_environ(b"RAY_RAYLET_PID", {str(raylet.pid).encode()}))
            if raylet.started <= process.started and (successor is None or process.started < successor)]


async def _connected(address: str | None, vms: int = 1) -> bool:
    """`_connect` on the starter thread, one call at a time; the event loop does not wait on Ray."""
    return await anyio.to_thread.run_sync(_starter.submit(_connect, address, vms).result)


def _connect(address: str | None, vms: int = 1) -> bool:
    """Connect to Ray unless connected (on `_starter`); True if a local Ray was started for it."""
    ray = _import_ray()
    quiet = dict(log_to_driver=False, logging_level="warning", include_dashboard=False)
    if ray.is_initialized():
        return False
    if address is None:
        # ray.init's own rule for "a cluster is running" (RAY_ADDRESS, or the
        # latest `ray start` here), asked first so that a Ray started for
        # the run can be bound to loopback.
        address = ray._private.services.canonicalize_bootstrap_address(None) or "local"
    if address == "local":
        bind_ray_to_loopback()
        ray.init(
            address="local", _node_ip_address="127.0.0.1", num_cpus=max(os.cpu_count() or 1, vms),
            resources={VM_RESOURCE: vms}, object_store_memory=LOCAL_OBJECT_STORE_BYTES, **quiet,
        )
        return True
    try:
        ray.init(address=address, **quiet)
    except ConnectionError as exc:
        raise ConnectionError(f"cannot connect to the Ray cluster at {address!r}: {exc}") from None
    return False


class LoopbackCluster:
    """A Ray cluster of several raylets on this machine, every Ray process on 127.0.0.1.

    For tests, benchmarks and trying placement without machines: a head
    raylet that offers no VMs (this process's driver attaches to it), plus VM
    raylets added and removed at will, as hosts come and go. A context
    manager: this process is connected on entry, and everything is stopped on
    exit. Ray starts its processes from the main thread only.
    """

    def __init__(self, *, object_store_bytes: int = LOCAL_OBJECT_STORE_BYTES) -> None:
        self.object_store_bytes = object_store_bytes
        self._cluster: Any = None

    def __enter__(self) -> LoopbackCluster:
        bind_ray_to_loopback()
        ray = _import_ray()
        from ray.cluster_utils import Cluster

        self._cluster = Cluster(initialize_head=True, head_node_args=dict(
            num_cpus=0, include_dashboard=False, object_store_memory=self.object_store_bytes))
        ray.init(address=self._cluster.address, log_to_driver=False, logging_level="warning")
        return self

    def __exit__(self, *exc_info: object) -> None:
        _import_ray().shutdown()
        self._cluster.shutdown()

    def add_raylet(self, vms: int, *, cpus: int = 2) -> Any:
        """Start a raylet offering `vms` VMs and `cpus` CPUs; returns it (its `node_id` is Ray's)."""
        return self._cluster.add_node(num_cpus=cpus, resources={VM_RESOURCE: vms},
                                      object_store_memory=self.object_store_bytes)

    def remove_raylet(self, raylet: Any, *, graceful: bool = False) -> None:
        """Stop a raylet and every Ray process of it; not graceful is a host that died (SIGKILL)."""
        self._cluster.remove_node(raylet, allow_graceful=graceful)


# --- where the nodes are: what a run shows ---------------------------------------------


@dataclass(frozen=True)
class Placement:
    """Where Ray put one node: Ray's node id, that host's address, the worker's pid there, the
    node's URL once it listens (empty while its actors start), and its VM slots (seats)."""

    node_id: str
    host: str
    pid: int
    url: str = ""
    seats: int = 1


class Placements:
    """The run's Ray-placed nodes: how many VMs wait for resources, and where the others are.

    One object shared by all of a run's slots, for its progress line, viewer
    and run.json; `on_change(self)` is called after every change, on the
    event loop. A node with seats is that many VMs.
    """

    def __init__(self, on_change: Callable[[Placements], None] | None = None) -> None:
        self.on_change = on_change
        self._pending: dict[object, int] = {}  # VMs of each node waiting to be placed
        self._placed: dict[object, Placement] = {}

    @property
    def pending(self) -> int:
        """VMs waiting for resources."""
        return sum(self._pending.values())

    @property
    def placed(self) -> list[Placement]:
        return list(self._placed.values())

    def by_host(self) -> dict[str, int]:
        """Placed VMs per host address."""
        counts: Counter[str] = Counter()
        for placement in self._placed.values():
            counts[placement.host] += placement.seats
        return dict(counts)

    def snapshot(self) -> dict[str, Any]:
        """A JSON-ready summary in VMs: {"pending": 1, "placed": 4, "hosts": {"10.0.0.5": 2, ...}}."""
        return {"pending": self.pending, "placed": sum(p.seats for p in self._placed.values()), "hosts": self.by_host()}

    def _wait(self, slot: object, vms: int = 1) -> None:
        self._pending[slot] = vms
        self._changed()

    def _place(self, slot: object, placement: Placement) -> None:
        self._pending.pop(slot, None)
        self._placed[slot] = placement
        self._changed()

    def _leave(self, slot: object) -> None:
        if slot in self._pending or slot in self._placed:
            self._pending.pop(slot, None)
            self._placed.pop(slot, None)
            self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self)


# --- the Ray actor: one node, inside a Ray worker ---------------------------------------


class _NodeActor:
    """Hosts one node's actors on this Ray worker's event loop, served on the Ray host's address.

    `serve` is the node's whole life, so the Ray task that runs it is what the
    driver watches and what it cancels to stop the node; `port` answers once
    the node listens (or has failed to).
    """

    def __init__(self) -> None:
        self._port: int | None = None
        self._listening: anyio.Event | None = None

    def _listening_event(self) -> anyio.Event:
        # Made on first use: an Event needs the actor's running event loop.
        if self._listening is None:
            self._listening = anyio.Event()
        return self._listening

    async def where(self) -> Placement:
        ray = _import_ray()
        return Placement(node_id=ray.get_runtime_context().get_node_id(), host=ray.util.get_node_ip_address(),
                         pid=os.getpid())

    async def serve(self, app: str, token: str, seats: int | None = None) -> str:
        """Host `app`'s actors (`seats` copies of them, see runtime.seats) until cancelled; returns
        how the node ended when a hosted actor crashed."""
        ray = _import_ray()
        crashed: list[BaseException] = []
        try:
            actors = list(load_app(app, seats)())
            try:
                async with anyio.create_task_group() as tg:
                    self._port = await tg.start(partial(
                        serve_node, actors, host=ray.util.get_node_ip_address(), token=token, seats=seats))
                    self._listening_event().set()
            except* NodeCrashed as group:
                crashed.extend(group.exceptions)
        finally:
            self._listening_event().set()  # `port` must not wait for a node that failed to start
        return str(crashed[0]) if crashed else "the node stopped serving"

    async def port(self) -> int:
        await self._listening_event().wait()
        if self._port is None:
            raise RuntimeError("the node did not start listening")
        return self._port


_remote_class: Any = None


def _node_actor_class() -> Any:
    global _remote_class
    if _remote_class is None:
        _remote_class = _import_ray().remote(max_restarts=0, max_task_retries=0)(_NodeActor)
    return _remote_class


# --- the driver's side ---------------------------------------------------------------


async def run_ray_node(
    app: str,
    *,
    resources: Mapping[str, float] | None = None,
    num_cpus: float = 1.0,
    seats: int | None = None,
    address: str | None = None,
    placements: Placements | None = None,
    token: str | None = None,
    scheduling_strategy: str = "SPREAD",
    ready_timeout: float = 60.0,
    shutdown_timeout: float = 5.0,
    task_status: TaskStatus[NodeConnection] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Place a node hosting `app` (module:callable) on Ray, connect, and watch it.

    The actor asks for `num_cpus` and `resources` (say {"troupe_vm": 1}), each
    as many times as the node has `seats` (VM slots sharing its browser:
    `runtime.seats.SharedNodes(functools.partial(run_ray_node, app, ...), seats=N)`),
    and waits for them however long the cluster is full; `placements` shows it
    pending, then placed. `scheduling_strategy` "SPREAD" puts nodes on as many
    hosts as it can, so one host's failure costs as few episodes as possible.
    Once placed, the node must listen within `ready_timeout`. Reports the
    connection, then raises NodeDied (with Ray's reason when it has one) when
    the connection drops or Ray reports the actor dead. Connects to Ray
    first if this process is not (see `ray_session` for `address`; a local
    Ray started that way lives as long as the process, so a run enters
    `ray_session` around its slots to have it stopped at its end). On exit
    the node is cancelled, given `shutdown_timeout` to stop its actors, and
    its Ray actor killed: nothing is left on the cluster.
    """
    ray = _import_ray()
    await _connected(address)
    token = token or secrets.token_urlsafe(32)
    placements = placements if placements is not None else Placements()
    slot = object()
    vms = seats or 1
    options = dict(num_cpus=num_cpus * vms, resources={name: amount * vms for name, amount in (resources or {}).items()},
                   scheduling_strategy=scheduling_strategy)
    actor = await anyio.to_thread.run_sync(lambda: _node_actor_class().options(**options).remote())
    serving = None
    try:
        placements._wait(slot, vms)
        placement: Placement = await _result(ray, await anyio.to_thread.run_sync(actor.where.remote), app)
        placement = replace(placement, seats=vms)
        placements._place(slot, placement)
        where = f"node {app} on Ray host {placement.host} (node {placement.node_id[:12]}, pid {placement.pid})"
        serving, listening = await anyio.to_thread.run_sync(
            lambda: (actor.serve.remote(app, token, seats), actor.port.remote()))
        port = await _port(ray, listening, serving, where, ready_timeout)
        url = f"ws://{_url_host(placement.host)}:{port}"
        placements._place(slot, replace(placement, url=url))
        await _watch(ray, url, token, serving, where, task_status)
    finally:
        placements._leave(slot)
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(_stop_actor, ray, actor, serving, shutdown_timeout)


async def _watch(ray: ModuleType, url: str, token: str, serving: Any, where: str,
                 task_status: TaskStatus[NodeConnection]) -> None:
    """Hold the connection until it drops or Ray reports the node's end, then raise NodeDied."""
    try:
        async with anyio.create_task_group() as race:
            task_status.started(await race.start(connect_node, url, token))
            ended = await _outcome(ray, serving)
            race.cancel_scope.cancel()
    except* NodeDied as group:
        lost = group.exceptions[0]
        assert isinstance(lost, NodeDied)
        ended = await _outcome(ray, serving, within=_DEATH_NOTICE)
        raise NodeDied(f"{where}: {lost}" + (f"; Ray: {ended}" if ended else ""),
                       close_code=lost.close_code, close_reason=lost.close_reason) from None
    raise NodeDied(f"{where}: {ended}")


async def _port(ray: ModuleType, listening: Any, serving: Any, where: str, ready_timeout: float) -> int:
    if not await _ready(ray, listening, ready_timeout):
        raise NodeDied(f"{where} did not start listening within {ready_timeout:g} s")
    try:
        return await anyio.to_thread.run_sync(ray.get, listening)
    except ray.exceptions.RayError:
        ended = await _outcome(ray, serving, within=_DEATH_NOTICE)
        raise NodeDied(f"{where} failed to start: {ended or 'no reason given'}") from None


async def _ready(ray: ModuleType, ref: Any, timeout: float = math.inf) -> bool:
    """Whether `ref` is ready within `timeout`, asking Ray without ever holding a thread for long
    (a stall of this process does not count: `runtime.stalls`)."""
    delay = 0.02
    with cancel_scope_at(anyio.current_time() + timeout):
        while True:
            ready, _ = await anyio.to_thread.run_sync(lambda: ray.wait([ref], timeout=0))
            if ready:
                return True
            await anyio.sleep(delay)
            delay = min(delay * 1.5, 1.0)
    return False


async def _result(ray: ModuleType, ref: Any, app: str) -> Any:
    """The value of `ref` to the new actor, however long it takes (a pending placement is not an error)."""
    await _ready(ray, ref)
    try:
        return await anyio.to_thread.run_sync(ray.get, ref)
    except ray.exceptions.RayError as exc:
        raise NodeDied(f"node {app}: Ray could not start its actor: {_one_line(str(exc))}") from None


async def _outcome(ray: ModuleType, serving: Any, within: float = math.inf) -> str | None:
    """How the node's `serve` task ended, in one line, once it has (None if not within `within` s)."""
    if not await _ready(ray, serving, within):
        return None
    try:
        return await anyio.to_thread.run_sync(ray.get, serving)
    except ray.exceptions.RayTaskError as exc:
        return _one_line(f"{type(exc.cause).__name__}: {exc.cause}")
    except ray.exceptions.RayError as exc:
        return _one_line(str(exc))


def _one_line(text: str, limit: int = 400) -> str:
    """Ray's multi-line messages without their tab-indented detail lines, cut to `limit` characters."""
    kept = " ".join(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("\t"))
    return kept if len(kept) <= limit else kept[: limit - 1] + "…"


def _stop_actor(ray: ModuleType, actor: Any, serving: Any, timeout: float) -> None:
    """Cancel the node (its actors stop cleanly), wait up to `timeout`, then kill the Ray actor."""
    if serving is not None:
        ray.cancel(serving)
        ray.wait([serving], timeout=timeout)
    ray.kill(actor)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
