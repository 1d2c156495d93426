"""VM nodes placed on a real Ray cluster of several raylets on this machine, every Ray
process bound to 127.0.0.1: placement spread and capped by the raylets' VM resources,
slots that wait while the cluster is full, Chromium in Ray-placed nodes, and a raylet
removed or a node process SIGKILLed mid-run costing retries on the survivors and nothing
else. troupe's supervisor decides every retry; Ray only places."""

from __future__ import annotations

import functools
import json
import math
import os
import subprocess
import sys
import tempfile
import textwrap
from collections import Counter

import anyio
import anyio.to_thread
import pytest

from actors.backends.browser.processes import browser_mains
from actors.episode import Outlets
from actors.runner import EpisodeRunner
from bench.suites.miniwob.agent import ScriptedMiniWobAgent
from bench.suites.miniwob.suite import MiniWobChecker, miniwob_task
from bench.suites.sim.suite import sim_tasks
from protocols import Reset, StepTaken
from runtime.errors import NodeDied
from runtime.events import EventBus
from runtime.limits import Limits
from runtime.ray_liveness import watch_cluster
from runtime.ray_nodes import VM_RESOURCE, LoopbackCluster, Placements, RaySession, ray_session, run_ray_node
from runtime.seats import SharedNodes
from tests.faults import run_killing_after_first_step
from tests.crews import crew, sim_crew

pytestmark = pytest.mark.anyio
SIM_APP = "actors.backends.sim.node:build"
VMS_PER_RAYLET = 2
STORE = 80 * 2**20  # bytes of object store per raylet: nodes send their data over the websocket


@pytest.fixture(scope="module")
def cluster():
    """A head raylet (the driver's, no VMs) and two VM raylets, started once for the module."""
    with LoopbackCluster(object_store_bytes=STORE) as cluster:
        for _ in range(2):
            cluster.add_raylet(VMS_PER_RAYLET)
        yield cluster


class PlacementLog:
    """Every state of the run's placements, as Placements reports them."""

    def __init__(self) -> None:
        self.placements = Placements(on_change=self.record)
        self.states: list[tuple[int, Counter[str]]] = []  # (pending, placed per Ray node)
        self.placed_on: list[str] = []  # the Ray node of each placement, in order
        self.node_of: dict[str, str] = {}  # Ray node by node URL
        self.snapshots: list[dict] = []

    def record(self, placements: Placements) -> None:
        self.states.append((placements.pending, Counter(p.node_id for p in placements.placed)))
        self.snapshots.append(placements.snapshot())
        for placement in placements.placed:
            if placement.url and placement.url not in self.node_of:
                self.node_of[placement.url] = placement.node_id
                self.placed_on.append(placement.node_id)


def sim_runner(placements: Placements, concurrency: int, **overrides) -> EpisodeRunner:
    settings = dict(
        crew=sim_crew(summaries=False),
        vm_slot=functools.partial(run_ray_node, SIM_APP, resources={VM_RESOURCE: 1}, num_cpus=0,
                                  placements=placements),
        limits=Limits(call_seconds=20),
        concurrency=concurrency,
    )
    settings.update(overrides)
    return EpisodeRunner(**settings)


def one_result_per_task(results, tasks) -> None:
    assert Counter(r.task_id for r in results) == Counter(t.task_id for t in tasks)


async def test_sim_episodes_spread_over_the_raylets_and_capped_by_their_vm_resources(cluster):
    log = PlacementLog()
    tasks = sim_tasks(12, sim={"scale": 0.05})
    results = await sim_runner(log.placements, concurrency=6).run(tasks)
    one_result_per_task(results, tasks)
    assert all(r.success and r.attempt == 1 for r in results), [r.reason for r in results]
    assert len(set(log.placed_on)) == 2  # both VM raylets hosted nodes
    assert all(url.startswith("ws://127.0.0.1:") for url in log.node_of)  # each on its Ray host's address
    assert max(max(per_node.values(), default=0) for _, per_node in log.states) <= VMS_PER_RAYLET
    # Six slots, four VMs: while the cluster was full, slots waited instead of failing.
    assert any(pending and sum(per_node.values()) == 2 * VMS_PER_RAYLET for pending, per_node in log.states)
    assert log.placements.snapshot() == {"pending": 0, "placed": 0, "hosts": {}}  # every actor released


@pytest.fixture
def doomed(cluster):
    """A third VM raylet, for a test to remove."""
    return cluster.add_raylet(VMS_PER_RAYLET)


class ResetsSeen:
    """A node's host whose VM controller notes, per episode, the node (URL) it was reset on."""

    def __init__(self, connection, node_of: dict[str, str]) -> None:
        self._connection, self._node_of = connection, node_of

    def ref(self, name: str):
        ref = self._connection.ref(name)
        ask = ref.ask

        async def noting_ask(message, timeout=math.inf):
            if isinstance(message, Reset):
                self._node_of[message.episode_id] = self._connection.url
            return await ask(message, timeout)

        ref.ask = noting_ask
        return ref


def noting_resets(slot, node_of: dict[str, str]):
    """`slot`, reporting hosts that note where each episode runs."""

    class Status:
        def __init__(self, task_status) -> None:
            self.task_status = task_status

        def started(self, connection) -> None:
            self.task_status.started(ResetsSeen(connection, node_of))

    async def start(*, task_status) -> None:
        await slot(task_status=Status(task_status))

    return start


async def test_a_raylet_removed_mid_run_costs_retries_on_the_survivors_and_nothing_else(cluster, doomed):
    import ray

    log, bus, url_of = PlacementLog(), EventBus(), {}
    runner = sim_runner(log.placements, concurrency=6, outlets=Outlets(bus=bus))
    runner.vm_slot = noting_resets(runner.vm_slot, url_of)
    tasks = sim_tasks(8, sim={"scale": 0.5})  # seconds after its first step: time to remove the raylet, even at load
    caught: list[str] = []  # the episode in flight on the raylet when it was removed

    async def remove_the_raylet_under_one_of_its_episodes() -> None:
        with bus.subscribe() as events:
            async for event in events:
                if not isinstance(event, StepTaken) or event.record.step != 1:
                    continue
                if log.node_of.get(url_of.get(event.record.episode_id)) == doomed.node_id:
                    caught.append(event.record.episode_id)
                    await anyio.to_thread.run_sync(cluster.remove_raylet, doomed)  # as a host that died
                    return

    async with anyio.create_task_group() as tg:
        # a VM host lost is no lost cluster: the watch over the driver's raylet and the GCS stays quiet
        tg.start_soon(watch_cluster, RaySession(ray.get_runtime_context().gcs_address, started_here=False))
        tg.start_soon(remove_the_raylet_under_one_of_its_episodes)
        await anyio.sleep(0)
        results = await runner.run(tasks)
        tg.cancel_scope.cancel()
    assert caught, "no episode ran on the raylet"
    one_result_per_task(results, tasks)
    assert all(r.success for r in results), [r.reason for r in results]
    (retried,) = [r for r in results if r.task_id == caught[0].split("#")[0]]
    assert retried.attempt == 2  # its episode ran again...
    assert log.node_of[url_of[retried.episode_id]] != doomed.node_id  # ...on a survivor
    again = [r.episode_id for r in results if r.attempt > 1]
    assert 1 <= len(again) <= VMS_PER_RAYLET  # only the raylet's episodes ran twice


async def test_a_sigkilled_node_process_costs_one_retry_on_a_fresh_node(cluster):
    log, bus = PlacementLog(), EventBus()
    tasks = sim_tasks(3, sim={"scale": 0.05})
    runner = sim_runner(log.placements, concurrency=3, outlets=Outlets(bus=bus))
    results, killed = await run_killing_after_first_step(
        runner, bus, tasks, victim=lambda: next(p.pid for p in log.placements.placed if p.url))
    one_result_per_task(results, tasks)
    assert all(r.success for r in results), [r.reason for r in results]
    assert sorted(r.attempt for r in results) == [1, 1, 2]


async def test_miniwob_episodes_run_in_chromium_inside_ray_placed_nodes(cluster):
    log = PlacementLog()
    tasks = [miniwob_task("click-button", 1), miniwob_task("enter-text", 2)]
    runner = EpisodeRunner(
        crew=crew(ScriptedMiniWobAgent, MiniWobChecker),
        vm_slot=functools.partial(run_ray_node, "bench.suites.miniwob.node:build",
                                  resources={VM_RESOURCE: 1}, num_cpus=1, placements=log.placements),
        limits=Limits(call_seconds=30),
        concurrency=2,
    )
    results = await runner.run(tasks)
    one_result_per_task(results, tasks)
    assert all(r.success and r.attempt == 1 for r in results), [r.reason for r in results]
    assert browser_mains(os.getpid()) == []  # every Chromium stopped with its node


async def test_miniwob_slots_share_the_browser_of_a_node_ray_places(cluster):
    log = PlacementLog()
    tasks = [miniwob_task("click-button", seed) for seed in range(4)]
    node = functools.partial(run_ray_node, "bench.suites.miniwob.node:build", resources={VM_RESOURCE: 1},
                             num_cpus=1, seats=2, placements=log.placements)
    async with SharedNodes(node, seats=2) as nodes:
        runner = EpisodeRunner(
            crew=crew(ScriptedMiniWobAgent, MiniWobChecker),
            vm_slot=nodes.slot, limits=Limits(call_seconds=30), concurrency=2,
        )
        results = await runner.run(tasks)
    one_result_per_task(results, tasks)
    assert all(r.success and r.attempt == 1 for r in results), [r.reason for r in results]
    assert nodes.started == 1  # one Ray actor, one browser, for both slots
    # It asked Ray for two VMs' resources on one host, and counts as two VMs there.
    assert {"pending": 2, "placed": 0, "hosts": {}} in log.snapshots
    assert {"pending": 0, "placed": 2, "hosts": {"127.0.0.1": 2}} in log.snapshots
    assert all(len(per_node) <= 1 for _, per_node in log.states)
    assert browser_mains(os.getpid()) == []


async def test_a_node_with_more_seats_than_any_host_has_vms_waits_for_such_a_host(cluster):
    log = PlacementLog()
    node = functools.partial(run_ray_node, SIM_APP, resources={VM_RESOURCE: 1}, num_cpus=0,
                             seats=VMS_PER_RAYLET + 1, placements=log.placements)
    with anyio.move_on_after(3):
        async with anyio.create_task_group() as tg:
            await tg.start(node)
    assert log.snapshots[0] == {"pending": VMS_PER_RAYLET + 1, "placed": 0, "hosts": {}}
    assert all(snapshot["placed"] == 0 for snapshot in log.snapshots)  # no raylet has that many VMs
    assert log.placements.snapshot() == {"pending": 0, "placed": 0, "hosts": {}}


async def test_a_node_app_that_cannot_be_loaded_is_a_node_that_died_saying_why(cluster):
    with pytest.raises(NodeDied, match=r"failed to start: ModuleNotFoundError: No module named 'no_such_module'"):
        await run_ray_node("no_such_module:build", resources={VM_RESOURCE: 1}, num_cpus=0)


async def test_a_session_needs_at_least_one_vm():
    with pytest.raises(ValueError, match="vms must be at least 1, got 0"):
        async with ray_session(vms=0):
            pass


async def test_without_ray_installed_one_line_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ImportError, match=r"^placing nodes on Ray needs ray: pip install 'troupe-bench\[ray\]'$"):
        async with ray_session():
            pass


LOCAL_RUN = textwrap.dedent("""
    import anyio, ray
    from protocols import Observe, Reset
    from bench.suites.sim.suite import sim_tasks
    from runtime.ray_nodes import ray_session, run_ray_node

    async def main():
        async with ray_session(vms=1) as session:
            print("started", session.started_here, session.address.split(":")[0], flush=True)
            async with anyio.create_task_group() as tg:
                node = await tg.start(run_ray_node, "actors.backends.sim.node:build")
                await node.ref("vm").ask(Reset(task=sim_tasks(1, sim={"scale": 0})[0], episode_id="t#1"))
                await node.ref("observer").ask(Observe(step=0, tree_timeout=5))
                print("observed", node.url, flush=True)
                tg.cancel_scope.cancel()
        print("connected after the run", ray.is_initialized(), flush=True)

    anyio.run(main, backend="trio")
""")


def test_without_a_cluster_a_local_ray_on_loopback_is_started_for_the_run_and_stopped():
    """In a process of its own that finds no cluster: RAY_ADDRESS unset, a temp dir of its own
    (short: Ray's socket paths must fit in 107 bytes)."""
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="ray") as temp:
        env = {**os.environ, "RAY_ADDRESS": "", "RAY_TMPDIR": temp}
        done = subprocess.run([sys.executable, "-c", LOCAL_RUN], env=env, capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == [
        "started True 127.0.0.1", f"observed {done.stdout.split()[4]}", "connected after the run False"]
    assert done.stdout.split()[4].startswith("ws://127.0.0.1:")


async def test_bench_run_with_vm_ray_places_the_runs_vms_and_records_where(cluster, tmp_path):
    import bench

    # the test process is connected to the module's cluster already: the run uses that connection
    run = await bench.run("sim", vm="ray", options={"episodes": 6, "scale": 0.001}, concurrency=4, out=tmp_path / "run")
    assert len(run.results) == 6 and all(line.result.error_kind.value != "environment" for line in run.results)
    placements = json.loads((run.folder / "run.json").read_text())["placements"]
    assert 1 <= placements["most_placed"] <= 4  # never more than the run's concurrency
    assert placements["hosts"] and set(placements["hosts"]) <= {"127.0.0.1"}


async def test_bench_run_with_vm_ray_and_slots_per_browser_places_nodes_of_that_many_vms(cluster, tmp_path):
    import bench

    run = await bench.run("miniwob", vm="ray", options={"tasks": ["click-button"], "seeds": 4}, concurrency=2,
                          slots_per_browser=2, out=tmp_path / "run")
    assert len(run.results) == 4 and all(line.result.success for line in run.results), \
        [line.result.reason for line in run.results]
    placements = json.loads((run.folder / "run.json").read_text())["placements"]
    assert placements["most_placed"] == 2 and placements["hosts"] == {"127.0.0.1": 2}  # one node of two VMs


async def test_vm_ray_without_the_ray_package_is_one_configuration_error(monkeypatch, tmp_path):
    from bench.api import ConfigError, plan

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ConfigError, match=r"^--vm ray needs the \[ray\] extra: pip install 'troupe-bench\[ray\]'$"):
        await plan("sim", {"vm": "ray", "out": str(tmp_path / "never")})
    assert not (tmp_path / "never").exists()
