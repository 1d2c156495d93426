"""Several VM slots on one node process (`runtime.seats`), with real node processes, from asyncio
and trio: each slot reaches its own seat; a node takes as many slots as it has seats; a node that
dies ends every slot on it and their restarts share a fresh one; a slot restarted while its node
lives gets a fresh node and leaves the others on the old one alone; nodes are stopped and reaped.

A node someone else started with seats (`--connect`) serves a run a slot per seat: all at once,
never two on a seat, a node killed mid-run leaves every episode exactly one result, and a seat
whose VM hangs in a call serves the slot's next attempt."""

import functools
import json
import os
import signal
import subprocess
import sys
from collections import Counter
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import msgspec
import pytest

from actors.runner import EpisodeRunner
from bench.api import ConfigError, execute, plan
from bench.fit import connected_concurrency
from bench.suites.sim.suite import sim_tasks
from protocols import EpisodeStarted, ErrorKind, Inspect, StepTaken, decode
from runtime.errors import NodeDied, ProtocolError
from runtime.limits import Limits
from runtime.node import main as node_main
from runtime.node import serve_node
from runtime.remote import TOKEN_ENV, run_local_node
from runtime.seats import RemoteNode, SharedNodes, connect_seat, greet_nodes, seat_slots
from runtime.supervisor import ChildSpec, Supervisor
from runtime.websocket import serve
from tests import node_apps
from tests.faults import descendants
from tests.paths import ROOT
from tests.crews import sim_crew

pytestmark = pytest.mark.anyio
SEATED = functools.partial(run_local_node, "tests.node_apps:build_seated")
TOKEN = "seats-token"


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
    ("tests.node_apps:build_seated", "0", "--seats must be from 1 to 1024, got 0"),
    ("tests.node_apps:build_seated", "1025", "--seats must be from 1 to 1024, got 1025"),
    ("tests.node_apps:build", "2", "tests.node_apps:build takes no `seats` argument: it cannot host several VM slots"),
])
def test_a_node_needs_a_seat_at_least_and_an_app_that_takes_seats(app, seats, message, capsys):
    with pytest.raises(SystemExit) as exited:
        node_main(["--token", "t", "--app", app, "--seats", seats])
    assert exited.value.code == 2 and message in capsys.readouterr().err
    with pytest.raises(ValueError, match="^a node has at least one seat, got 0$"):
        SharedNodes(SEATED, seats=0)


# --- nodes someone else started (--connect) ------------------------------------------------


@pytest.fixture
def sim_node():
    """`python -m runtime.node --seats 3` with simulated VMs, started by hand as a user would on
    another host (here 127.0.0.1); yields its URL and process."""
    process = subprocess.Popen(
        [sys.executable, "-m", "runtime.node", "--listen", "127.0.0.1:0", "--app", "tests.node_apps:build_sim",
         "--seats", "3"],
        cwd=ROOT, stdout=subprocess.PIPE, env={**os.environ, TOKEN_ENV: TOKEN},
    )
    try:
        yield "ws://" + json.loads(process.stdout.readline())["listening"], process
    finally:
        process.kill()
        process.wait()


async def run_connected(url: str, out: Path, on_event, **options):
    """A bench.api run of 6 sim episodes on the node at `url`; the run and the lines it said."""
    said: list[str] = []
    checked = await plan("sim", {"connect": [url], "token": TOKEN, "episodes": 6, "scale": 0.05, "out": out, **options})
    return await execute(checked, on_event=on_event, say=said.append), said


def one_result_each(run) -> Counter:
    return Counter(line.result.task_id for line in run.results)


def most_at_once(events: list) -> int:
    """The most episodes between their start and their last step at one time."""
    last_step = {event.record.episode_id: i for i, event in enumerate(events) if isinstance(event, StepTaken)}
    ends = sorted(last_step.values())
    starts = [i for i, event in enumerate(events) if isinstance(event, EpisodeStarted)]
    return max(sum(start <= at for start in starts) - sum(end < at for end in ends) for at in starts)


async def test_a_run_on_a_node_with_three_seats_has_a_slot_on_each_all_at_once(sim_node, tmp_path):
    url, _ = sim_node
    events: list = []
    run, said = await run_connected(url, tmp_path / "run", events.append)
    assert f"concurrency 3: a VM slot per seat of the --connect nodes: {url} 3" in said
    assert one_result_each(run) == Counter({f"sim-0-{index:04d}": 1 for index in range(6)})
    assert all(line.result.success for line in run.results), [line.result.reason for line in run.results]
    assert most_at_once(events) == 3
    # Each seat served its own slot: its episodes' steps come one episode after the other.
    seat_runs = [(event.before.app_name, event.record.episode_id) for event in events if isinstance(event, StepTaken)]
    by_seat = {seat: [episode for s, episode in seat_runs if s == seat] for seat, _ in seat_runs}
    assert sorted(by_seat) == ["sim@0", "sim@1", "sim@2"]
    for episodes in by_seat.values():
        in_turn = [episode for i, episode in enumerate(episodes) if i == 0 or episodes[i - 1] != episode]
        assert len(in_turn) == len(set(in_turn)), f"two slots shared a seat: {in_turn}"
    recorded = (tmp_path / "run" / "run.json").read_text()
    assert json.loads(recorded)["config"]["concurrency"] == 3 and TOKEN not in recorded


async def test_a_smaller_concurrency_takes_that_many_seats(sim_node, tmp_path):
    url, _ = sim_node
    seats: set[str] = set()
    run, said = await run_connected(url, tmp_path / "run", lambda event: isinstance(event, StepTaken) and seats.add(
        event.before.app_name), concurrency=2)
    assert f"concurrency 2: --concurrency 2 of the 3 seats of the --connect nodes: {url} 3" in said
    assert seats == {"sim@0", "sim@1"} and len(one_result_each(run)) == 6


async def test_a_node_killed_mid_run_leaves_every_episode_exactly_one_result(sim_node, tmp_path):
    url, process = sim_node

    def kill_at_the_first_step(event) -> None:
        if isinstance(event, StepTaken) and process.returncode is None:
            process.kill()
            process.wait()

    run, _ = await run_connected(url, tmp_path / "run", kill_at_the_first_step)
    assert process.returncode == -signal.SIGKILL
    assert one_result_each(run) == Counter({f"sim-0-{index:04d}": 1 for index in range(6)})
    failed = [line.result for line in run.results if not line.result.success]
    assert failed and all(result.error_kind is ErrorKind.ENVIRONMENT for result in failed), failed
    assert all(url in result.reason or "connection lost" in result.reason for result in failed), failed


async def test_a_seat_whose_vm_hangs_in_a_call_serves_the_slots_next_attempt(sim_node):
    """The run cannot restart a node it did not start: the node itself runs an actor again
    once the connection of the ask it is stuck on closes (the slot restarting)."""
    url, process = sim_node
    hang_once = {"scale": 0.0, "faults": [{"kind": "hang", "step": 2, "attempts": [1]}]}
    runner = EpisodeRunner(
        crew=sim_crew(summaries=False),
        vm_slot=functools.partial(connect_seat, url, TOKEN, 1), limits=Limits(call_seconds=1.0),
    )
    with anyio.fail_after(30):
        results = await runner.run(sim_tasks(2, seed=3, sim=hang_once, goals=(3, 3)))
    assert [(r.attempt, r.success, r.error_kind) for r in results] == [(2, True, ErrorKind.NONE)] * 2, \
        [r.reason for r in results]
    assert process.poll() is None  # the node lived on; only the seat's actor ran again


def test_a_connected_run_has_a_slot_per_seat_or_fewer_if_told_and_says_which():
    nodes = [RemoteNode("ws://a:1", seats=3), RemoteNode("ws://b:1", problem="OSError: refused")]
    found = "ws://a:1 3, ws://b:1 1 (could not be asked: OSError: refused)"
    assert connected_concurrency(nodes, None) == (4, f"a VM slot per seat of the --connect nodes: {found}")
    assert connected_concurrency(nodes, 2) == (2, f"--concurrency 2 of the 4 seats of the --connect nodes: {found}")
    assert connected_concurrency(nodes, 9) == (4, f"--concurrency 9, but the --connect nodes have 4 seat(s): {found}")


@pytest.mark.parametrize(("where", "token", "why"), [
    ("nowhere", TOKEN, "All connection attempts failed"),
    ("the node", "wrong", "invalid token"),
])
async def test_a_run_on_nodes_none_of_which_can_be_asked_is_refused_in_one_line(where, token, why, sim_node, tmp_path):
    url = "ws://127.0.0.1:9" if where == "nowhere" else sim_node[0]
    with pytest.raises(ConfigError) as refused:
        await run_connected(url, tmp_path / "run", None, token=token, episodes=2)
    assert str(refused.value).startswith(f"--connect: no node answered: {url}: ") and why in str(refused.value)
    assert "\n" not in str(refused.value) and not (tmp_path / "run").exists()


async def test_a_node_that_cannot_be_asked_beside_one_that_answers_gets_one_slot_whose_episodes_say_why(
        sim_node, tmp_path):
    url, nobody = sim_node[0], "ws://127.0.0.1:9"
    said: list[str] = []
    checked = await plan("sim", {"connect": [url, nobody], "token": TOKEN, "episodes": 2, "scale": 0.0,
                                 "max_attempts": 1, "out": tmp_path / "run"})
    run = await execute(checked, say=said.append)
    assert f"concurrency 2: a VM slot per seat of the --connect nodes: {url} 3, {nobody} 1 (could not be asked: " \
           "OSError: All connection attempts failed); capped at the 2 episode(s) to run" in said
    assert len(one_result_each(run)) == 2
    failed = [line.result for line in run.results if line.result.error_kind is ErrorKind.ENVIRONMENT]
    assert all(nobody in result.reason and "All connection attempts failed" in result.reason for result in failed), \
        [result.reason for result in failed]


@asynccontextmanager
async def seated_node(seats: int = 2):
    """A node with `seats` seats served from this process, and its URL."""
    async with anyio.create_task_group() as tg:
        port = await tg.start(functools.partial(serve_node, node_apps.build_seated(seats), token=TOKEN, seats=seats))
        yield f"ws://127.0.0.1:{port}"
        tg.cancel_scope.cancel()


async def test_greeting_nodes_says_their_seats_and_why_one_could_not_be_asked():
    async with seated_node(2) as url, anyio.create_task_group() as tg:
        seatless = await tg.start(functools.partial(serve_node, node_apps.build(), token=TOKEN))
        nobody = "ws://127.0.0.1:9"
        nodes = await greet_nodes([url, f"ws://127.0.0.1:{seatless}", nobody], TOKEN)
        assert nodes[:2] == [RemoteNode(url, seats=2), RemoteNode(f"ws://127.0.0.1:{seatless}", seats=1)]
        assert nodes[2] == RemoteNode(nobody, problem="OSError: All connection attempts failed")
        (refused,) = await greet_nodes([url], "wrong")
        assert refused.seats == 1 and "HTTP 401" in refused.problem and "invalid token" in refused.problem
        assert [slot.args for slot in seat_slots([*nodes[:2], RemoteNode(nobody, seats=3)], TOKEN)] == [
            (url, TOKEN, 0), (f"ws://127.0.0.1:{seatless}", TOKEN, 0), (nobody, TOKEN, 0),
            (url, TOKEN, 1), (nobody, TOKEN, 1), (nobody, TOKEN, 2)]
        tg.cancel_scope.cancel()


async def test_a_seat_slot_reaches_its_own_seat_and_fails_saying_so_for_a_seat_the_node_lacks():
    async with seated_node(2) as url, anyio.create_task_group() as tg:
        assert await seat_of(await tg.start(connect_seat, url, TOKEN, 1)) == "vm@1"
        with pytest.raises(NodeDied, match=r"has 2 seat\(s\) now: seat 2 is gone \(was it started again with fewer"):
            await connect_seat(url, TOKEN, 2)
        tg.cancel_scope.cancel()


async def test_a_node_named_twice_is_refused_as_two_slots_would_share_its_seats():
    async with seated_node(2) as url:
        with pytest.raises(ValueError, match="named more than once: two slots would share each seat"):
            await greet_nodes([url, url], TOKEN)
        also = url.replace("127.0.0.1", "localhost")
        with pytest.raises(ValueError, match=f"^{url} and {also} reach the same node"):
            await greet_nodes([url, also], TOKEN)


async def fake_node(welcome: dict, *, task_status=anyio.TASK_STATUS_IGNORED) -> None:
    """A node that answers Hello with `welcome`, whatever it holds."""

    async def handle(ws) -> None:
        envelope, _ = decode(await ws.receive())
        await ws.send(msgspec.msgpack.encode([1, "reply", envelope.id, envelope.to, {"msg": "welcome", **welcome}]))
        await ws.receive()

    await serve(handle, token=TOKEN, task_status=task_status)


@pytest.mark.parametrize(("welcome", "wrong"), [
    ({"seats": 0}, "Expected `int` >= 1 - at `$.seats`"),
    ({"seats": -3}, "Expected `int` >= 1 - at `$.seats`"),
    ({"seats": 10**6}, "Expected `int` <= 1024 - at `$.seats`"),
    ({"seats": "three"}, "Expected `int | null`, got `str` - at `$.seats`"),
])
async def test_a_node_that_says_a_nonsensical_seat_count_is_refused_naming_it(welcome, wrong, tmp_path):
    async with anyio.create_task_group() as tg:
        url = f"ws://127.0.0.1:{await tg.start(fake_node, welcome)}"
        with pytest.raises(ProtocolError, match=f"^node at {url}: it answered Hello with what this side cannot use"):
            await greet_nodes([url], TOKEN)
        with pytest.raises(ConfigError) as refused:
            await run_connected(url, tmp_path / "run", None)
        assert str(refused.value).startswith(f"--connect: node at {url}") and wrong in str(refused.value)
        assert not (tmp_path / "run").exists()  # refused before anything was written
        tg.cancel_scope.cancel()
