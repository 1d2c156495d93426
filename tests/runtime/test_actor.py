import contextlib

import anyio
import pytest

from runtime.actor import Actor, spawn
from runtime.host import run_local_host
from runtime.errors import ActorCrashed, ActorStopped, CallTimeout, Refused, RequestRefused

pytestmark = pytest.mark.anyio


class Echo(Actor):
    def __init__(self):
        super().__init__("echo")
        self.told = []
        self.stopped = False

    async def handle(self, message):
        if message == "refuse":
            raise Refused("not that one")
        if message == "crash":
            raise RuntimeError("boom")
        if message == "hang":
            await anyio.sleep_forever()
        self.told.append(message)
        return ("echo", message)

    async def on_stop(self):
        self.stopped = True


async def test_ask_returns_the_handlers_reply_and_tell_is_delivered_in_order():
    echo = Echo()
    async with anyio.create_task_group() as tg:
        ref = await spawn(tg, echo)
        await ref.tell(1)
        await ref.tell(2)
        assert await ref.ask(3) == ("echo", 3)
        assert echo.told == [1, 2, 3]
        tg.cancel_scope.cancel()
    assert echo.stopped


async def test_refused_request_reaches_the_caller_and_the_actor_keeps_serving():
    async with anyio.create_task_group() as tg:
        ref = await spawn(tg, Echo())
        with pytest.raises(RequestRefused, match="not that one"):
            await ref.ask("refuse")
        assert await ref.ask("still here") == ("echo", "still here")
        tg.cancel_scope.cancel()


async def test_crash_fails_the_caller_and_propagates_to_the_owner():
    caught = []
    with pytest.raises(ExceptionGroup) as info:
        async with anyio.create_task_group() as tg:
            ref = await spawn(tg, Echo())
            try:
                await ref.ask("crash")
            except ActorCrashed as exc:
                caught.append(exc)
    assert "boom" in str(caught[0])
    assert info.group_contains(RuntimeError, match="boom")
    with pytest.raises(ActorStopped):
        await ref.tell("after")


async def test_ask_times_out_with_a_call_timeout_naming_actor_and_request():
    async with anyio.create_task_group() as tg:
        ref = await spawn(tg, Echo())
        with pytest.raises(CallTimeout, match="echo did not answer str within 0.05 s"):
            await ref.ask("hang", timeout=0.05)
        tg.cancel_scope.cancel()


async def test_full_mailbox_applies_backpressure_to_tell():
    class Slow(Echo):
        mailbox_size = 2

    async with anyio.create_task_group() as tg:
        ref = await spawn(tg, Slow())
        await ref.tell("hang")  # occupies the actor
        await anyio.sleep(0.01)
        await ref.tell(1)
        await ref.tell(2)
        with anyio.move_on_after(0.05) as scope:
            await ref.tell(3)
        assert scope.cancelled_caught
        tg.cancel_scope.cancel()


async def test_an_ask_waiting_for_room_times_out_and_a_stopping_actor_frees_its_waiting_senders():
    class Slow(Echo):
        mailbox_size = 1

    actor_scope = anyio.CancelScope()

    async def host(*, task_status):
        with actor_scope:
            async with anyio.create_task_group() as inner:
                task_status.started(await spawn(inner, Slow()))

    stopped = []

    async def send_when_room(ref):
        with pytest.raises(ActorStopped, match="echo: not running"):
            await ref.tell(3)
        stopped.append(True)

    async with anyio.create_task_group() as tg:
        ref = await tg.start(host)
        await ref.tell("hang")  # occupies the actor
        await anyio.sleep(0.01)
        await ref.tell(1)  # fills the mailbox
        with pytest.raises(CallTimeout, match="echo did not answer int within 0.05 s"):
            await ref.ask(2, timeout=0.05)
        tg.start_soon(send_when_room, ref)
        await anyio.sleep(0.01)
        assert stopped == []
        actor_scope.cancel()
    assert stopped == [True]


async def test_letters_left_in_the_mailbox_when_the_actor_crashes_fail_their_callers():
    gate = anyio.Event()

    class CrashesLater(Echo):
        async def handle(self, message):
            if message == "crash later":
                await gate.wait()
                raise RuntimeError("boom")
            return await super().handle(message)

    async def host(*, task_status):
        with pytest.raises(ExceptionGroup):  # the crash, which the actor's owner sees
            async with anyio.create_task_group() as inner:
                task_status.started(await spawn(inner, CrashesLater()))

    failures = []

    async def ask(ref, message):
        with pytest.raises(ActorCrashed) as info:
            await ref.ask(message)
        failures.append(str(info.value))

    async with anyio.create_task_group() as tg:
        ref = await tg.start(host)
        await ref.tell("crash later")
        tg.start_soon(ask, ref, "a")
        tg.start_soon(ask, ref, "b")
        await anyio.sleep(0.01)
        gate.set()
    assert failures == ["echo: stopped before handling the request"] * 2


async def test_an_idle_actor_closed_ends_by_itself_and_later_requests_are_refused():
    echo = Echo()
    with anyio.fail_after(2):  # the task group ends only if the actor's task does, uncancelled
        async with anyio.create_task_group() as tg:
            ref = await spawn(tg, echo)
            assert await ref.ask(1) == ("echo", 1)
            await anyio.sleep(0)
            assert ref.idle
            assert ref.close_if_idle()
    assert echo.stopped
    with pytest.raises(ActorStopped, match="echo"):
        await ref.tell(2)


async def test_an_actor_in_its_handler_or_with_a_letter_waiting_is_not_closed():
    echo = Echo()
    async with anyio.create_task_group() as tg:
        ref = await spawn(tg, echo)
        busy = anyio.Event()

        async def ask_slow():
            busy.set()
            with pytest.raises(CallTimeout):
                await ref.ask("hang", timeout=0.05)

        tg.start_soon(ask_slow)
        await busy.wait()
        await anyio.sleep(0)
        assert not ref.idle and not ref.close_if_idle()  # in its handler
        await ref.tell("queued")
        assert not ref.close_if_idle()  # a letter waits
        tg.cancel_scope.cancel()


async def test_a_host_closes_its_actors_only_when_every_one_is_idle():
    first, second = Echo(), Echo()
    second.name = "second"
    with anyio.fail_after(2):
        async with anyio.create_task_group() as tg:
            host = await tg.start(run_local_host, lambda: [first, second])
            busy = anyio.Event()

            async def hang():
                busy.set()
                with pytest.raises(CallTimeout):
                    await host.ref("second").ask("hang", timeout=0.05)

            tg.start_soon(hang)
            await busy.wait()
            await anyio.sleep(0)
            assert not host.close_if_idle()  # one is busy: none is closed
            assert await host.ref("echo").ask("open") == ("echo", "open")
            tg.cancel_scope.cancel()

    with anyio.fail_after(2):  # run_local_host returns by itself: its actors end uncancelled
        async with anyio.create_task_group() as tg:
            host = await tg.start(run_local_host, lambda: [Echo()])
            await anyio.sleep(0)
            assert host.close_if_idle()


class FailsToStart(Echo):
    async def on_start(self):
        raise LookupError("no backend")


async def test_spawn_raises_an_on_start_failure_in_the_caller_and_an_actor_without_one_serves_at_once():
    async with anyio.create_task_group() as tg:
        with pytest.raises(LookupError, match="no backend"):
            await spawn(tg, FailsToStart())
        echo = Echo()
        ref = await spawn(tg, echo)
        await ref.tell("before its task ran")
        assert await ref.ask("then") == ("echo", "then")
        assert echo.told == ["before its task ran", "then"]
        tg.cancel_scope.cancel()
    assert echo.stopped


class Companioned(Echo):
    """An actor that holds a task group open while it lives, with a task in it."""

    def __init__(self, fails_to_open: bool = False):
        super().__init__()
        self.fails_to_open = fails_to_open
        self.companion_cancelled = False

    @contextlib.asynccontextmanager
    async def lifetime(self):
        if self.fails_to_open:
            await anyio.sleep(0.05)  # letters come meanwhile
            raise LookupError("no display")
        async with anyio.create_task_group() as group:
            group.start_soon(self._companion)
            yield
            group.cancel_scope.cancel()

    async def _companion(self):
        try:
            await anyio.sleep_forever()
        finally:
            self.companion_cancelled = True


async def test_an_actors_lifetime_is_open_while_it_serves_and_closed_when_it_stops():
    async with anyio.create_task_group() as tg:
        actor = Companioned()
        ref = await spawn(tg, actor)
        assert await ref.ask("hello") == ("echo", "hello")
        assert not actor.companion_cancelled
        assert ref.close_if_idle()
        await anyio.sleep(0.01)
    assert actor.companion_cancelled and actor.stopped


async def test_a_lifetime_that_fails_to_open_fails_the_letters_sent_meanwhile():
    async def own(*, task_status):
        with pytest.raises(ExceptionGroup) as raised:
            async with anyio.create_task_group() as group:
                task_status.started(await spawn(group, Companioned(fails_to_open=True)))  # no on_start: at once
        assert raised.group_contains(LookupError, match="no display")

    async with anyio.create_task_group() as tg:
        ref = await tg.start(own)
        with pytest.raises(ActorCrashed, match="stopped before handling the request"):
            await ref.ask("hello", timeout=2)
