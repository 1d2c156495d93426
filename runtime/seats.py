"""Several VM slots on one node process: the node's seats.

A node process costs CPU to start and memory to keep (a browser node: its
driver, its Python, its browser), and a slot used to have one of its own.
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
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any, Awaitable, Callable

import anyio
from anyio.abc import TaskGroup, TaskStatus

from runtime.actor import Ref
from runtime.errors import NodeDied, describe, first_error
from runtime.remote import NodeConnection

__all__ = ["SeatHost", "SharedNodes", "seat_name"]

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
