"""Several VM slots on one node process: the node's seats.

A node process costs CPU to start and memory to keep (a browser node: its
driver, its Python, its browser), paid once per slot if each slot had one.
A node started with `--seats N` hosts N copies of its app's actors instead,
each copy named for its seat (`seat_name`), all sharing what the node owns
(one browser, each seat with its own contexts). `SharedNodes` runs such
nodes for a run and hands their seats to the runner's VM slots: its `slot`
is a `VMSlot`, and the host it hands out answers to the names the slot
knows (`vm`, `observer`), mapped to the seat's own.

A seat is a VM: one slot incarnation has it, and nobody after it.

- A slot takes a free seat of the newest node that still gives seats out,
  and starts a node when there is none; the slots that start together (a
  run's beginning, every slot of a node that died) share one node.
- When the node dies, every slot on it crashes with `NodeDied`: their
  supervisors start them again, on a fresh node, and their episodes are
  retried as with a node each.
- When a slot is stopped or restarted while its node lives (its episode
  failed on the VM side: a hung call, a refusal), the node gives out no more
  seats: the slot's next incarnation gets a fresh node, as it would with a
  node each, and the other slots on the old one finish undisturbed. A node
  that no slot holds any more is stopped.

The nodes run in the task group `SharedNodes` owns (`async with`); leaving it
stops whatever still runs.

A node someone else started (`--connect URL`) serves a slot per seat too:
`greet_nodes` asks each node its seats (its `Welcome`), and `seat_slots`
gives a VMSlot per seat (`connect_seat`), taking the nodes' seats in turn so
that a run with fewer slots than seats spreads them over the nodes. The run
can neither start nor stop such a node, so a slot is its own connection to
its own seat:

- A slot's restart is a new connection to the same seat; the seat's actors
  are not restarted unless one is stuck (below). The episode's first message is `Reset`, which gives the
  seat's environment a fresh start (a new context, a new world) as it does
  between any two episodes, and a seat's mailbox takes it only after what
  the slot's last incarnation still had in flight. A seat's actor stuck in a
  call that never returns is run again by the node (`runtime.node`) once the
  connection that asked it closes, which the slot's restart does: its
  `on_stop` and `on_start` run, and the restarted slot's `Reset` finds it
  serving. A call that cannot be cancelled (a thread that never returns)
  keeps the seat stuck: the slot's calls time out, its restart intensity is
  exceeded and its episodes are recorded as environment errors.
- When the node dies or closes the connection, every slot on it raises
  `NodeDied` (from `connect_node`); their restarts find no node to connect
  to until someone starts it again, and their episodes are retried, then
  recorded as environment errors, as with a node each.
- Two slots never share a seat: each seat goes to one slot, and
  `greet_nodes` refuses a node named twice (the same URL, or two URLs whose
  nodes gave the same id).
- A node without seats is one VM: its seat 0 is the node's own actors. A
  node that could not be asked (not up yet, a refused token) gets one slot,
  seat 0, which fails as a node without seats does until the node answers.
  A slot whose seat the node no longer has (started again with fewer
  `--seats`) fails with `NodeDied` saying so.
"""

from __future__ import annotations

import functools
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Sequence

import anyio
from anyio.abc import TaskGroup, TaskStatus

from runtime.actor import Ref
from runtime.errors import NodeDied, ProtocolError, describe, first_error
from runtime.remote import CANNOT_OPEN, NodeConnection, connect_node, open_connection

__all__ = ["RemoteNode", "SeatHost", "SharedNodes", "connect_seat", "greet_nodes", "seat_name", "seat_slots"]

NodeStart = Callable[..., Awaitable[None]]
"""A supervisor child start function of a node that takes `seats=` (`functools.partial(run_local_node, app)`)."""


def seat_name(name: str, seat: int) -> str:
    """What a node with seats calls actor `name` of seat `seat` (from 0)."""
    return f"{name}@{seat}"


class SeatHost:
    """One seat of a node: `ref(name)` reaches that seat's actor `name`."""

    def __init__(self, connection: NodeConnection, seat: int) -> None:
        self.connection = connection
        self.seat = seat

    def ref(self, name: str, /) -> Ref:
        return self.connection.ref(seat_name(name, self.seat))


class _Node:
    """One node process of the pool, from its start to its end."""

    def __init__(self, seats: int) -> None:
        self.free = list(range(seats))
        self.holders = 0
        self.retired = False
        """Gives out no more seats: a slot left it while it lived."""
        self.connection: NodeConnection | None = None
        self.ready = anyio.Event()
        """It started, or it ended before it could."""
        self.ended = anyio.Event()
        self.error: BaseException | None = None
        self.scope = anyio.CancelScope()

    @property
    def open(self) -> bool:
        return bool(self.free) and not self.retired and not self.ended.is_set()

    def gone(self, seat: int) -> NodeDied:
        """What a slot on this node raises when it is gone (or never came up)."""
        error = self.error
        if isinstance(error, NodeDied):
            return NodeDied(f"{error} (seat {seat})", returncode=error.returncode, close_code=error.close_code,
                            close_reason=error.close_reason, stderr=error.stderr)
        return NodeDied(f"the node of seat {seat} ended: {describe(error) if error else 'stopped'}")


class SharedNodes:
    """Node processes with `seats` seats each, started as `slot`s need them.

        async with SharedNodes(functools.partial(run_local_node, app), seats=4) as nodes:
            await EpisodeRunner(crew, vm_slot=nodes.slot, concurrency=8).run(tasks)
    """

    def __init__(self, start: NodeStart, seats: int) -> None:
        if seats < 1:
            raise ValueError(f"a node has at least one seat, got {seats}")
        self.start = start
        self.seats = seats
        self.started = 0
        """Nodes started so far."""
        self._nodes: list[_Node] = []
        self._tg: TaskGroup | None = None
        self._stack = AsyncExitStack()

    async def __aenter__(self) -> SharedNodes:
        self._tg = await self._stack.enter_async_context(anyio.create_task_group())
        return self

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        assert self._tg is not None
        self._tg.cancel_scope.cancel()
        self._tg = None
        return await self._stack.__aexit__(*exc_info)

    async def slot(self, *, task_status: TaskStatus[SeatHost] = anyio.TASK_STATUS_IGNORED) -> None:
        """A VMSlot: take a seat, report its host once the node is up, raise NodeDied when the node dies."""
        node = next((node for node in reversed(self._nodes) if node.open), None) or self._start_node()
        seat = node.free.pop(0)
        node.holders += 1
        try:
            await node.ready.wait()
            if node.connection is None or node.ended.is_set():
                raise node.gone(seat)
            task_status.started(SeatHost(node.connection, seat))
            await node.ended.wait()
            raise node.gone(seat)
        finally:
            node.holders -= 1
            if not node.ended.is_set():
                node.retired = True
            if node.holders == 0:
                node.scope.cancel()

    def _start_node(self) -> _Node:
        if self._tg is None:
            raise RuntimeError("SharedNodes hands out seats only inside `async with`")
        node = _Node(self.seats)
        self._nodes.append(node)
        self.started += 1
        self._tg.start_soon(self._run, node)
        return node

    async def _run(self, node: _Node) -> None:
        try:
            with node.scope:
                async with anyio.create_task_group() as tg:
                    node.connection = await tg.start(self._start_seated)
                    node.ready.set()
        except Exception as exc:  # noqa: BLE001 - how it ended is told to every slot on it
            node.error = first_error(exc)
        finally:
            node.ready.set()
            node.ended.set()
            self._nodes.remove(node)

    async def _start_seated(self, *, task_status: TaskStatus[NodeConnection]) -> None:
        await self.start(seats=self.seats, task_status=task_status)


# --- nodes someone else started ------------------------------------------------------


@dataclass(frozen=True)
class RemoteNode:
    """A running node as a run found it: `seats` VM slots (1 for a node without seats),
    `problem` why it could not be asked (then it is given one slot, seat 0)."""

    url: str
    seats: int = 1
    problem: str = ""


async def greet_nodes(urls: Sequence[str], token: str) -> list[RemoteNode]:
    """Ask each node at `urls` (at once) how many seats it has.

    Raises ValueError for a node named twice, ProtocolError (naming the URL)
    for one whose Welcome is nonsense: using either would put two slots on a seat,
    or a slot on a seat that is not there."""
    repeated = sorted({url for url in urls if urls.count(url) > 1})
    if repeated:
        raise ValueError(f"{', '.join(repeated)} named more than once: two slots would share each seat")
    found: dict[str, RemoteNode] = {}
    reached: dict[str, str] = {}
    """The first URL that reached each node, by the node's id."""

    async def greet(url: str) -> None:
        try:
            connection = await open_connection(url, token)
        except ProtocolError as exc:
            raise ProtocolError(f"node at {url}: {exc}") from None
        except CANNOT_OPEN as exc:
            found[url] = RemoteNode(url, problem=describe(exc))
            return
        await connection.aclose()
        welcome = connection.welcome
        if welcome.node and (other := reached.setdefault(welcome.node, url)) != url:
            raise ValueError(f"{other} and {url} reach the same node: two slots would share each seat")
        found[url] = RemoteNode(url, seats=welcome.seats or 1)

    try:
        async with anyio.create_task_group() as tg:
            for url in urls:
                tg.start_soon(greet, url)
    except BaseExceptionGroup as group:
        raise first_error(group) from None
    return [found[url] for url in urls]


def seat_slots(nodes: Sequence[RemoteNode], token: str) -> list[functools.partial]:
    """A VMSlot (`connect_seat`) per seat of `nodes`: every node's seat 0 first, then every seat 1, ..."""
    return [functools.partial(connect_seat, node.url, token, seat)
            for seat in range(max((node.seats for node in nodes), default=0))
            for node in nodes if seat < node.seats]


async def connect_seat(url: str, token: str, seat: int, *, task_status: TaskStatus[Any] = anyio.TASK_STATUS_IGNORED) -> None:
    """A VMSlot on seat `seat` of the running node at `url` (the node itself for seat 0 of a
    node without seats): `connect_node`, reporting the seat's host."""
    await connect_node(url, token, host=functools.partial(_seat_of, seat), task_status=task_status)


def _seat_of(seat: int, connection: NodeConnection) -> SeatHost | NodeConnection:
    seats = connection.welcome.seats
    if seats is None and seat == 0:
        return connection
    if seats is not None and seat < seats:
        return SeatHost(connection, seat)
    raise NodeDied(f"node at {connection.url} has {seats or 'no'} seat(s) now: seat {seat} is gone "
                   f"(was it started again with fewer --seats?)")
