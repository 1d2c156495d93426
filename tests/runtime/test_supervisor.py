import os
import signal
from contextlib import asynccontextmanager
from functools import partial

import anyio
import pytest

from protocols import Flush
from runtime.actor import Actor
from runtime.errors import ActorCrashed, ActorStopped, CallTimeout
from runtime.supervisor import (
    Backoff,
    ChildSpec,
    Intensity,
    Restart,
    RestartIntensityExceeded,
    Strategy,
    Supervisor,
    actor_child,
)
from runtime.remote import run_local_node

pytestmark = pytest.mark.anyio

NO_BACKOFF = Backoff(initial=0, factor=1, maximum=0)


class Worker(Actor):
    """Logs its start and (shielded, awaiting) cleanup; crashes or hangs on request."""

    def __init__(self, name, log, incarnation):
        super().__init__(name)
        self.log = log
        self.incarnation = incarnation

    async def on_start(self):
        self.log.append(("start", self.name))

    async def on_stop(self):
        self.log.append(("stopping", self.name))
        await anyio.sleep(0.002)  # a checkpoint: only completes because cleanup is shielded
        self.log.append(("stop", self.name))

    async def handle(self, message):
        if message == "crash":
            raise RuntimeError(f"{self.name} crashed")
        if message == "hang":
            self.log.append(("hang", self.name))
            await anyio.sleep_forever()
        return (self.name, self.incarnation)


def workers(log, *names, **options):
    def factory(name):
        made = 0

        def make():
            nonlocal made
            made += 1
            return Worker(name, log, made)

        return make

    return [actor_child(name, factory(name), **options) for name in names]


def scripted(log, name, *outcomes):
    """A child whose n-th incarnation starts, then "exit"s or "crash"es as outcomes[n] says.

    Incarnations past the script keep running.
    """
    outcomes = list(outcomes)

    async def start(*, task_status=anyio.TASK_STATUS_IGNORED):
        log.append(name)
        task_status.started(name)
        outcome = outcomes.pop(0) if outcomes else "run"
        if outcome == "crash":
            raise RuntimeError(f"{name} crashed")
        if outcome == "run":
            await anyio.sleep_forever()

    return start


@asynccontextmanager
async def running(supervisor):
    async with anyio.create_task_group() as tg:
        await tg.start(supervisor.run)
        yield supervisor
        await supervisor.stop()


async def wait_until(predicate):
    with anyio.fail_after(2):
        while not predicate():
            await anyio.sleep(0.001)


async def handles(supervisor, ids):
    return {child_id: await supervisor.handle(child_id) for child_id in ids}


def restarted(supervisor):
    return [(child_id, reason) for _, child_id, reason in supervisor.history]


# -- strategies --------------------------------------------------------------------------


@asynccontextmanager
async def b_crashed(names, last_started, **options):
    """A supervisor of workers `names` whose child b has just crashed, once `last_started` has
    started again: yields it, the log since the crash, and the children's handles before and after."""
    log = []
    sup = Supervisor(workers(log, *names), backoff=NO_BACKOFF, **options)
    async with running(sup):
        before = await handles(sup, names)
        log.clear()
        with pytest.raises(ActorCrashed):
            await before["b"].ask("crash")
        await wait_until(lambda: ("start", last_started) in log)
        yield sup, log, before, await handles(sup, names)


async def test_one_for_one_restarts_only_the_failed_child():
    async with b_crashed("abc", "b") as (sup, log, before, after):
        assert log == [("stopping", "b"), ("stop", "b"), ("start", "b")]
        assert after["a"] is before["a"] and after["c"] is before["c"]
        assert await after["b"].ask("who") == ("b", 2)
        assert restarted(sup) == [("b", "RuntimeError: b crashed")]


async def test_one_for_all_stops_the_others_in_reverse_and_restarts_all_in_order():
    async with b_crashed("abc", "c", strategy=Strategy.ONE_FOR_ALL) as (sup, log, before, after):
        assert [event for event in log if event[0] != "stopping"] == [
            ("stop", "b"),  # its own cleanup, as it crashed
            ("stop", "c"),
            ("stop", "a"),
            ("start", "a"),
            ("start", "b"),
            ("start", "c"),
        ]
        assert all(after[i] is not before[i] for i in "abc")
        assert [await after[i].ask("who") for i in "abc"] == [("a", 2), ("b", 2), ("c", 2)]
        assert sup.restarts == 1  # one crash, one restart, however many children it took


async def test_rest_for_one_restarts_the_failed_child_and_those_started_after_it():
    async with b_crashed("abcd", "d", strategy=Strategy.REST_FOR_ONE) as (sup, log, before, after):
        assert [event for event in log if event[0] != "stopping"] == [
            ("stop", "b"),
            ("stop", "d"),
            ("stop", "c"),
            ("start", "b"),
            ("start", "c"),
            ("start", "d"),
        ]
        assert after["a"] is before["a"]
        assert all(after[i] is not before[i] for i in "bcd")


# -- restart types -----------------------------------------------------------------------


async def test_rest_for_one_keeps_a_node_and_the_client_that_uses_it_consistent():
    """The embedding use of rest_for_one that Supervisor's docstring names, with a real node process."""
    pids = []

    async def client(*, task_status):
        connection = await sup.handle("node")
        pids.append(connection.pid)
        task_status.started(connection.ref("echo"))
        await anyio.sleep_forever()

    sup = Supervisor([ChildSpec("node", partial(run_local_node, "tests.node_apps:build")), ChildSpec("client", client)],
                     strategy=Strategy.REST_FOR_ONE, backoff=NO_BACKOFF, intensity=Intensity(5, 60))
    echo = sup.ref("client")
    async with anyio.create_task_group() as tg:
        await tg.start(sup.run)
        with anyio.fail_after(60):
            assert await echo.ask(Flush()) == Flush()
            os.kill(pids[0], signal.SIGKILL)  # the node dies: the client holding its refs restarts with it
            while len(pids) < 2:
                await anyio.sleep(0.05)
            assert pids[1] != pids[0] and (await sup.handle("node")).pid == pids[1]
            assert await echo.ask(Flush()) == Flush()
            await sup.restart("client", "the client misbehaved")  # the client alone: the node stays
            assert len(pids) == 3 and pids[2] == pids[1]
            assert [child for _, child, _ in sup.history] == ["node", "client"]
        await sup.stop()


async def test_restart_type_decides_which_exits_bring_a_child_back():
    log = []
    sup = Supervisor(
        [
            ChildSpec("permanent", scripted(log, "permanent", "exit", "crash")),
            ChildSpec("transient-exit", scripted(log, "transient-exit", "exit"), Restart.TRANSIENT),
            ChildSpec("transient-crash", scripted(log, "transient-crash", "crash"), Restart.TRANSIENT),
            ChildSpec("temporary", scripted(log, "temporary", "crash"), Restart.TEMPORARY),
        ],
        intensity=Intensity(max_restarts=10),
        backoff=NO_BACKOFF,
    )
    async with running(sup):
        await wait_until(lambda: log.count("permanent") == 3 and log.count("transient-crash") == 2)
        with pytest.raises(ActorStopped, match="transient-exit: ended"):
            await sup.handle("transient-exit")
        with pytest.raises(ActorStopped, match="temporary: ended"):
            await sup.handle("temporary")
        assert await sup.handle("permanent") == "permanent"
        assert await sup.handle("transient-crash") == "transient-crash"

    assert log.count("transient-exit") == 1 and log.count("temporary") == 1
    assert sorted(restarted(sup)) == [
        ("permanent", "RuntimeError: permanent crashed"),
        ("permanent", "exited normally"),
        ("transient-crash", "RuntimeError: transient-crash crashed"),
    ]


async def test_temporary_sibling_stopped_by_a_group_restart_is_not_restarted():
    log = []
    sup = Supervisor(
        [*workers(log, "a"), ChildSpec("temp", scripted(log, "temp"), Restart.TEMPORARY)],
        strategy=Strategy.ONE_FOR_ALL,
        backoff=NO_BACKOFF,
    )
    async with running(sup):
        with pytest.raises(ActorCrashed):
            await sup.ref("a").ask("crash")
        assert await sup.ref("a").ask("who") == ("a", 2)
        with pytest.raises(ActorStopped, match="temp: ended"):
            await sup.handle("temp")
    assert log.count("temp") == 1


async def test_run_returns_once_no_child_remains():
    log = []
    sup = Supervisor(
        [
            ChildSpec("done", scripted(log, "done", "exit"), Restart.TRANSIENT),
            ChildSpec("oops", scripted(log, "oops", "crash"), Restart.TEMPORARY),
        ]
    )
    with anyio.fail_after(1):
        await sup.run()
    assert log == ["done", "oops"] and sup.restarts == 0


async def test_a_child_failing_to_start_counts_as_a_crash():
    attempts = []

    async def start(*, task_status):
        attempts.append(1)
        if len(attempts) < 3:
            raise OSError("display :99 not ready")
        task_status.started("up")
        await anyio.sleep_forever()

    sup = Supervisor([ChildSpec("x", start)], backoff=NO_BACKOFF)
    async with running(sup):  # run() reports started only once x has started
        assert await sup.handle("x") == "up"
    assert restarted(sup) == [("x", "failed to start: OSError: display :99 not ready")] * 2


# -- intensity and escalation ------------------------------------------------------------


async def test_exceeding_intensity_stops_everything_and_raises_with_the_crash_as_cause():
    log = []
    sup = Supervisor(
        [*workers(log, "steady"), ChildSpec("flaky", scripted(log, "flaky", *["crash"] * 10))],
        intensity=Intensity(max_restarts=2, within_seconds=1),
        backoff=NO_BACKOFF,
        name="vm-pool",
    )
    with anyio.fail_after(2), pytest.raises(RestartIntensityExceeded) as info:
        await sup.run()

    message = str(info.value)
    assert "vm-pool" in message and "'flaky'" in message and "3 restarts within 1 s" in message
    assert isinstance(info.value.__cause__, RuntimeError)
    assert str(info.value.__cause__) == "flaky crashed"
    assert log.count("flaky") == 3 and sup.restarts == 2
    assert log[-1] == ("stop", "steady")  # the healthy sibling was stopped on the way out


async def test_a_nested_supervisors_escalation_is_a_crash_in_its_parent():
    log = []
    sub = Supervisor(
        [ChildSpec("flaky", scripted(log, "flaky", *["crash"] * 20))],
        intensity=Intensity(max_restarts=1),
        backoff=NO_BACKOFF,
        name="sub",
    )
    parent = Supervisor(
        [*workers(log, "sibling"), ChildSpec("sub", sub.run)],
        intensity=Intensity(max_restarts=1),
        backoff=NO_BACKOFF,
        name="parent",
    )
    with anyio.fail_after(2), pytest.raises(RestartIntensityExceeded) as info:
        await parent.run()

    assert str(info.value).startswith("parent: 2 restarts") and "child 'sub'" in str(info.value)
    inner = info.value.__cause__
    assert isinstance(inner, RestartIntensityExceeded) and "child 'flaky'" in str(inner)
    assert isinstance(inner.__cause__, RuntimeError)
    # the parent restarted the sub-supervisor once, and each of its two runs restarted flaky once
    assert [child_id for child_id, _ in restarted(parent)] == ["sub"]
    assert sub.restarts == 2 and log.count("flaky") == 4
    assert log[-1] == ("stop", "sibling")


# -- backoff -----------------------------------------------------------------------------


def test_backoff_grows_by_factor_up_to_maximum():
    assert [Backoff().delay(n) for n in (1, 2, 3)] == [0.01, 0.02, 0.04]
    assert Backoff(initial=0.5, factor=3, maximum=2).delay(5) == 2


async def test_consecutive_restarts_back_off_and_start_over_once_out_of_the_window():
    starts = []

    async def start(*, task_status):
        starts.append(anyio.current_time())
        task_status.started(len(starts))
        if len(starts) <= 2:
            raise RuntimeError("crash")
        await anyio.sleep_forever()

    sup = Supervisor(
        [ChildSpec("x", start)],
        intensity=Intensity(max_restarts=10, within_seconds=0.15),
        backoff=Backoff(initial=0.03, factor=4, maximum=1),
    )
    async with running(sup):
        await wait_until(lambda: len(starts) == 3)
        first, second = starts[1] - starts[0], starts[2] - starts[1]
        assert 0.025 <= first < 0.1  # attempt 1: 0.03 s
        assert 0.11 <= second < 0.3  # attempt 2: 0.12 s

        await anyio.sleep(0.2)  # both restarts leave the 0.15 s window
        began = anyio.current_time()
        await sup.restart("x", "again")
        assert anyio.current_time() - began < 0.2  # attempt 1 again (0.03 s), not 3 (0.48 s)


# -- shutdown ----------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["stop", "cancel"])
async def test_shutdown_stops_children_one_by_one_in_reverse_order(how):
    log = []
    sup = Supervisor(workers(log, "a", "b", "c"))
    async with anyio.create_task_group() as tg:
        await tg.start(sup.run)
        log.clear()
        if how == "stop":
            await sup.stop()
        else:
            tg.cancel_scope.cancel()

    assert log == [
        ("stopping", "c"),
        ("stop", "c"),
        ("stopping", "b"),
        ("stop", "b"),
        ("stopping", "a"),
        ("stop", "a"),
    ]
    with pytest.raises(ActorStopped, match="supervisor: stopped"):
        await sup.handle("a")


async def test_a_child_overrunning_its_shutdown_timeout_does_not_hold_up_the_others():
    log = []

    async def slow(*, task_status):
        task_status.started()
        try:
            await anyio.sleep_forever()
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.sleep(0.3)
                log.append("slow cleaned up")

    sup = Supervisor([*workers(log, "a"), ChildSpec("slow", slow, shutdown_timeout=0.05)])
    async with anyio.create_task_group() as tg:
        await tg.start(sup.run)
        log.clear()
        began = anyio.current_time()
        await sup.stop()
        elapsed = anyio.current_time() - began

    assert log == [("stopping", "a"), ("stop", "a"), "slow cleaned up"]
    assert elapsed >= 0.29  # stop() still waited for it: the task is owned, not abandoned


class ClosableHandle:
    """A child's handle that can end it without a cancellation while `idle` says it may."""

    def __init__(self, idle):
        self.idle = idle
        self.asked = 0
        self.closed = anyio.Event()

    def close_if_idle(self):
        self.asked += 1
        if self.idle:
            self.closed.set()
        return self.idle


@pytest.mark.parametrize("idle", [True, False])
async def test_a_child_whose_handle_can_end_it_is_asked_first_and_cancelled_only_if_busy(idle):
    handle, seen = ClosableHandle(idle), []

    async def child(*, task_status):
        task_status.started(handle)
        try:
            await handle.closed.wait()
            seen.append("ended by itself")
        except anyio.get_cancelled_exc_class():
            seen.append("cancelled")
            raise

    sup = Supervisor([ChildSpec("c", child)])
    async with anyio.create_task_group() as tg:
        await tg.start(sup.run)
        await sup.stop()
    assert handle.asked == 1
    assert seen == ["ended by itself" if idle else "cancelled"]


async def test_stop_cuts_short_a_restart_backing_off():
    log = []
    sup = Supervisor([ChildSpec("x", scripted(log, "x", "crash"))], backoff=Backoff(initial=30, maximum=30))
    async with anyio.create_task_group() as tg:
        await tg.start(sup.run)
        await wait_until(lambda: sup.restarts == 1)  # crashed: the restart waits 30 s
        with anyio.fail_after(2):
            await sup.stop()
    assert log == ["x"]


# -- restart(), handle(), ref() ----------------------------------------------------------


async def test_restart_kills_a_hung_child_and_counts_it_as_a_crash():
    log = []
    sup = Supervisor(workers(log, "w"), backoff=NO_BACKOFF)
    async with running(sup):
        old = await sup.handle("w")

        async def stuck_caller():
            with pytest.raises(ActorCrashed):
                await old.ask("hang")

        async with anyio.create_task_group() as tg:
            tg.start_soon(stuck_caller)
            await wait_until(lambda: ("hang", "w") in log)
            with anyio.fail_after(1):
                await sup.restart("w", "watchdog: no answer in 10 s")

        new = await sup.handle("w")
        assert new is not old and await new.ask("who") == ("w", 2)
        assert restarted(sup) == [("w", "watchdog: no answer in 10 s")]


async def test_restart_if_handle_restarts_only_that_incarnation_and_never_counts_a_crash_twice():
    log = []
    sup = Supervisor(workers(log, "w"), backoff=NO_BACKOFF)
    async with running(sup):
        first = await sup.handle("w")
        with pytest.raises(ActorCrashed):
            await first.ask("crash")
        # The caller saw the crash; the supervisor restarts on its own: no second restart.
        with anyio.fail_after(1):
            await sup.restart("w", "caller saw it fail", if_handle=first)
        second = await sup.handle("w")
        assert second is not first and await second.ask("who") == ("w", 2)
        assert restarted(sup) == [("w", "RuntimeError: w crashed")]
        # A live incarnation named by its handle (it hangs, say) is restarted and counted.
        await sup.restart("w", "watchdog", if_handle=second)
        assert await (await sup.handle("w")).ask("who") == ("w", 3)
        assert restarted(sup) == [("w", "RuntimeError: w crashed"), ("w", "watchdog")]


async def test_restart_beyond_intensity_raises_in_the_caller_and_escalates():
    sup = Supervisor(workers([], "w"), intensity=Intensity(max_restarts=0), name="sup")
    with pytest.raises(ExceptionGroup) as group:
        async with anyio.create_task_group() as tg:
            await tg.start(sup.run)
            with pytest.raises(RestartIntensityExceeded, match=r"child 'w' \(manual\)"):
                await sup.restart("w", "manual")
    assert group.group_contains(RestartIntensityExceeded, match="sup: 1 restarts")
    assert sup.restarts == 0


async def test_handle_waits_while_the_child_restarts():
    crash, slow_start = anyio.Event(), anyio.Event()
    incarnations = []

    async def start(*, task_status):
        incarnations.append(len(incarnations) + 1)
        if len(incarnations) == 2:
            await slow_start.wait()
        task_status.started(len(incarnations))
        if len(incarnations) == 1:
            await crash.wait()
            raise RuntimeError("first one dies")
        await anyio.sleep_forever()

    sup = Supervisor([ChildSpec("x", start)], backoff=NO_BACKOFF)
    async with running(sup):
        assert await sup.handle("x") == 1
        crash.set()
        await wait_until(lambda: len(incarnations) == 2)  # restarting, not started yet
        got = []

        async def fetch():
            got.append(await sup.handle("x"))

        async with anyio.create_task_group() as tg:
            tg.start_soon(fetch)
            await anyio.sleep(0.02)
            assert got == []
            slow_start.set()
        assert got == [2]


async def test_ref_outlives_a_crash_and_its_timeout_covers_the_restart():
    log = []
    sup = Supervisor(workers(log, "w"), backoff=Backoff(initial=0.3))
    async with running(sup):
        ref = sup.ref("w")
        assert ref.name == "w"
        assert await ref.ask("who") == ("w", 1)

        with pytest.raises(ActorCrashed, match="w crashed"):
            await ref.ask("crash")
        began = anyio.current_time()
        with pytest.raises(CallTimeout, match="w did not answer str within 0.05 s"):
            await ref.ask("who", timeout=0.05)  # the restart is still backing off
        assert anyio.current_time() - began < 0.25

        assert await ref.ask("who", timeout=2) == ("w", 2)
        await ref.tell("hello")


async def test_a_running_childs_ask_times_out_naming_the_child_and_the_whole_timeout():
    sup = Supervisor(workers([], "w"))
    async with running(sup):
        ref = sup.ref("w")
        began = anyio.current_time()
        with pytest.raises(CallTimeout, match="w did not answer str within 0.05 s"):
            await ref.ask("hang", timeout=0.05)
        assert 0.05 <= anyio.current_time() - began < 0.5


async def test_unknown_child_ids_are_named_in_the_error():
    sup = Supervisor(workers([], "a"), name="sup")
    with pytest.raises(LookupError, match="sup has no child 'nope'"):
        await sup.handle("nope")
    with pytest.raises(LookupError, match="'nope'"):
        sup.ref("nope")
    with pytest.raises(LookupError, match="'nope'"):
        await sup.restart("nope", "because")


def test_duplicate_child_ids_are_rejected():
    with pytest.raises(ValueError, match=r"duplicate child ids \['a'\]"):
        Supervisor(workers([], "a", "b", "a"))
