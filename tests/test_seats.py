"""Several VM slots on one node process (`runtime.seats`), with real node processes, from asyncio
and trio: each slot reaches its own seat; a node takes as many slots as it has seats; a node that
dies ends every slot on it and their restarts share a fresh one; a slot restarted while its node
lives gets a fresh node and leaves the others on the old one alone; nodes are stopped and reaped."""

import functools
import os
import signal

import anyio
import pytest

from protocols import Inspect
from runtime.errors import NodeDied
from runtime.node import main as node_main
from runtime.remote import run_local_node
from runtime.seats import SharedNodes
from runtime.supervisor import ChildSpec, Supervisor
from tests.faults import descendants

pytestmark = pytest.mark.anyio
SEATED = functools.partial(run_local_node, "tests.node_apps:build_seated")


async def seat_of(host) -> str:
    return (await host.ref("vm").ask(Inspect(spec={}), timeout=10)).state["name"]


async def replaced(supervisor: Supervisor, child: str, old):
    """The child's host once it is not `old` any more."""
    with anyio.fail_after(30):
        while (host := await supervisor.handle(child)) is old:
            await anyio.sleep(0.02)
    return host


async def gone(pid: int) -> bool:
    with anyio.move_on_after(10):
        while True:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            await anyio.sleep(0.02)
    return False


def slots(nodes: SharedNodes, *names: str) -> Supervisor:
    return Supervisor([ChildSpec(name, nodes.slot) for name in names], name="slots")


async def test_slots_take_the_seats_of_one_node_until_it_has_none_left():
    async with SharedNodes(SEATED, seats=2) as nodes, anyio.create_task_group() as tg:
        hosts = [await tg.start(nodes.slot) for _ in range(3)]
        assert [await seat_of(host) for host in hosts] == ["vm@0", "vm@1", "vm@0"]
        assert hosts[0].connection is hosts[1].connection and hosts[2].connection.pid != hosts[0].connection.pid
        assert nodes.started == 2
        tg.cancel_scope.cancel()
    assert descendants(b"runtime.node") == []


async def test_a_node_that_dies_ends_every_slot_on_it_and_their_restarts_share_a_fresh_one():
    async with SharedNodes(SEATED, seats=2) as nodes, anyio.create_task_group() as tg:
        supervisor = await tg.start(slots(nodes, "a", "b").run)
        a, b = [await supervisor.handle(name) for name in "ab"]
        killed = a.connection.pid
        os.kill(killed, signal.SIGKILL)
        a2, b2 = await replaced(supervisor, "a", a), await replaced(supervisor, "b", b)
        assert a2.connection is b2.connection and a2.connection.pid != killed
        assert {await seat_of(a2), await seat_of(b2)} == {"vm@0", "vm@1"}
        assert nodes.started == 2 and supervisor.restarts == 2
        assert all("was killed by SIGKILL" in reason for _, _, reason in supervisor.history), supervisor.history
        await supervisor.stop()
    assert descendants(b"runtime.node") == []


async def test_a_slot_restarted_while_its_node_lives_gets_a_fresh_node_and_the_others_stay():
    async with SharedNodes(SEATED, seats=2) as nodes, anyio.create_task_group() as tg:
        supervisor = await tg.start(slots(nodes, "a", "b").run)
        a, b = [await supervisor.handle(name) for name in "ab"]
        await supervisor.restart("a", "its episode hung", if_handle=a)
        a2 = await supervisor.handle("a")
        assert a2.connection.pid != a.connection.pid and await seat_of(a2) == "vm@0"
        assert await supervisor.handle("b") is b and await seat_of(b) == "vm@1"  # undisturbed, on the old node
        # The old node gave out no seat after a left it, and stops once b leaves it too; b joins a's.
        await supervisor.restart("b", "its episode hung too", if_handle=b)
        b2 = await supervisor.handle("b")
        assert b2.connection is a2.connection and await seat_of(b2) == "vm@1"
        assert await gone(a.connection.pid) and nodes.started == 2
        await supervisor.stop()
    assert descendants(b"runtime.node") == []


async def test_a_node_that_cannot_start_fails_every_slot_waiting_for_it_with_the_reason():
    broken = functools.partial(run_local_node, "tests.node_apps:build_broken")
    failures = []

    async def slot(nodes: SharedNodes) -> None:
        try:
            await nodes.slot()
        except NodeDied as exc:
            failures.append(str(exc))

    async with SharedNodes(broken, seats=2) as nodes, anyio.create_task_group() as tg:
        tg.start_soon(slot, nodes)
        tg.start_soon(slot, nodes)
    assert len(failures) == 2 and all("missing display :99" in text for text in failures), failures
    assert nodes.started == 1


async def test_seats_are_handed_out_only_inside_async_with():
    with pytest.raises(RuntimeError, match="only inside `async with`"):
        await SharedNodes(SEATED, seats=2).slot()


@pytest.mark.parametrize(("app", "seats", "message"), [
    ("tests.node_apps:build_seated", "0", "--seats must be at least 1, got 0"),
    ("tests.node_apps:build", "2", "tests.node_apps:build takes no `seats` argument: it cannot host several VM slots"),
])
def test_a_node_needs_a_seat_at_least_and_an_app_that_takes_seats(app, seats, message, capsys):
    with pytest.raises(SystemExit) as exited:
        node_main(["--token", "t", "--app", app, "--seats", seats])
    assert exited.value.code == 2 and message in capsys.readouterr().err
    with pytest.raises(ValueError, match="^a node has at least one seat, got 0$"):
        SharedNodes(SEATED, seats=0)
