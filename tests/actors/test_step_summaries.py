"""An episode's change summaries asked without waiting: `LocalRef.ask_soon` and `StepSummaries`."""

import logging
import math

import anyio
import pytest

from actors.step_summaries import StepSummaries
from actors.summarizer import Summarizer
from protocols import ChangeSummary, Click, Observation, Point, Summarize, Summarized, Task, Viewport
from runtime.actor import Actor, spawn
from runtime.errors import ActorCrashed, RequestRefused, Refused
from runtime.loop import task_group
from runtime.supervisor import Supervisor, actor_child

pytestmark = pytest.mark.anyio

TASK = Task(task_id="t", instruction="do it")
SCREEN = Observation(screenshot=b"", viewport=Viewport(width=1, height=1))


def request(step: int) -> Summarize:
    return Summarize(task=TASK, episode_id="e#1", step=step, action=Click(point=Point(x=0, y=0)), before=SCREEN, after=SCREEN)


class Echo(Actor):
    """Answers a number with itself; refuses 0 and crashes on -1."""

    def __init__(self, gate: anyio.Event | None = None) -> None:
        super().__init__("echo")
        self.gate = gate
        self.handled: list[int] = []

    async def handle(self, message):
        if self.gate is not None:
            await self.gate.wait()
        self.handled.append(message)
        if message == 0:
            raise Refused("zero")
        if message == -1:
            raise RuntimeError("minus one")
        return message


class Judge:
    """Summarizes a step after `delays[step]` seconds (none: at once); counts the steps it was asked."""

    def __init__(self, delays: dict[int, float] | None = None, crash_at: int | None = None) -> None:
        self.delays = delays or {}
        self.crash_at = crash_at
        self.asked: list[int] = []

    async def summarize(self, request: Summarize) -> ChangeSummary:
        self.asked.append(request.step)
        await anyio.sleep(self.delays.get(request.step, 0))
        return ChangeSummary(step=request.step, changes=f"step {request.step}")


class Crashing(Summarizer):
    """A Summarizer actor that crashes (not just refuses) when asked about `step`."""

    def __init__(self, judge: Judge, step: int) -> None:
        super().__init__(judge)
        self.step = step

    async def handle(self, message):
        if message.step == self.step:
            raise RuntimeError(f"crashed at step {message.step}")
        return await super().handle(message)


class AskOnly:
    """A Ref with `ask` and `tell` only, as a remote one: no `ask_soon`."""

    def __init__(self, ref) -> None:
        self.name = ref.name
        self._ref = ref

    async def tell(self, message):
        await self._ref.tell(message)

    async def ask(self, message, timeout=math.inf):
        return await self._ref.ask(message, timeout=timeout)


async def test_ask_soon_hands_the_reply_or_the_error_to_the_function_in_the_actors_task():
    replies = []

    def then(reply, error):
        replies.append((reply, type(error)))

    with pytest.raises(ExceptionGroup) as crash:  # the actor's crash reaches its owner, as always
        async with anyio.create_task_group() as tg:
            ref = await spawn(tg, Echo())
            assert ref.ask_soon(7, then) and ref.ask_soon(0, then)
            assert replies == []  # nothing is answered before the actor runs
            with anyio.fail_after(5):
                await anyio.wait_all_tasks_blocked()
            assert replies == [(7, type(None)), (None, RequestRefused)]
            assert ref.ask_soon(-1, then) and ref.ask_soon(8, then)  # -1 crashes the actor
    assert crash.group_contains(RuntimeError, match="minus one")
    assert replies[2:] == [(None, ActorCrashed), (None, ActorCrashed)]  # 8 was queued behind it


async def test_ask_soon_posts_nothing_into_a_full_or_closed_mailbox():
    gate = anyio.Event()
    async with anyio.create_task_group() as tg:
        echo = Echo(gate)
        echo.mailbox_size = 1
        ref = await spawn(tg, echo)
        assert ref.ask_soon(1, lambda reply, error: None)
        await anyio.wait_all_tasks_blocked()  # the actor holds 1, waiting at the gate
        assert ref.ask_soon(2, lambda reply, error: None)
        assert not ref.ask_soon(3, lambda reply, error: None)  # full
        gate.set()
        await anyio.wait_all_tasks_blocked()
        tg.cancel_scope.cancel()
    assert echo.handled == [1, 2]
    assert not ref.ask_soon(4, lambda reply, error: None)  # the actor has ended


async def test_a_reply_function_that_raises_is_logged_and_the_actor_goes_on(caplog):
    def broken(reply, error):
        raise ValueError("bug in the caller")

    async with anyio.create_task_group() as tg:
        ref = await spawn(tg, Echo())
        with caplog.at_level(logging.ERROR, logger="runtime.actor"):
            assert ref.ask_soon(1, broken)
            with anyio.fail_after(5):
                assert await ref.ask(2) == 2
        tg.cancel_scope.cancel()
    assert "reply function of a int ask raised" in caplog.text


async def summarize_steps(summarizer, steps, *, call_seconds=5.0, idle=0.0):
    """Ask for `steps` in turn as an episode does; the (step, summary) pairs answered, once finished."""
    answered = []
    async with task_group() as group:
        summaries = StepSummaries(summarizer, group, call_seconds, episode_id="e#1",
                                  answered=lambda step, summary: answered.append((step, summary)))
        for step in steps:
            summaries.ask(request(step))
        await anyio.sleep(idle)  # the episode's next steps
        with anyio.fail_after(10):
            await summaries.finish()
        summaries.abandon()
    return answered


async def summarize_with(judge, steps, *, wrap=lambda ref: ref, **options):
    """`summarize_steps` with a Summarizer actor over `judge` (its ref passed through `wrap`),
    and the seconds it took."""
    async with anyio.create_task_group() as tg:
        ref = await spawn(tg, Summarizer(judge))
        started = anyio.current_time()
        answered = await summarize_steps(wrap(ref), steps, **options)
        seconds = anyio.current_time() - started
        tg.cancel_scope.cancel()
    return answered, seconds


@pytest.mark.parametrize("wrap", [lambda ref: ref, AskOnly], ids=["local", "ask only"])
async def test_summaries_are_answered_in_step_order_with_when_asked_and_answered(wrap):
    judge = Judge({1: 0.05})
    answered, _ = await summarize_with(judge, [1, 2, 3], wrap=wrap)
    assert [step for step, _ in answered] == [1, 2, 3] == judge.asked
    assert [summary.changes for _, summary in answered] == ["step 1", "step 2", "step 3"]
    assert all(0 < summary.asked_at <= summary.answered_at for _, summary in answered)
    assert answered[0][1].answered_at - answered[0][1].asked_at >= 0.04


async def test_a_summary_later_than_the_call_limit_is_dropped_and_the_next_is_asked(caplog):
    with caplog.at_level(logging.WARNING, logger="actors.step_summaries"):
        answered, waited = await summarize_with(Judge({1: 0.6}), [1, 2], call_seconds=1.0)
    # Step 2 waited its turn behind step 1 (0.6 s of its 1 s) and was answered in time.
    assert [step for step, _ in answered] == [1, 2]
    assert waited < 1.0

    judge = Judge({1: 3.0})
    with caplog.at_level(logging.WARNING, logger="actors.step_summaries"):
        answered, waited = await summarize_with(judge, [1, 2], call_seconds=0.3)
    # Step 1 passed its limit unanswered; step 2's turn came after its own limit: not asked at all.
    assert answered == []
    assert judge.asked == [1]
    assert 0.25 < waited < 2.5
    assert "step 1: no change summary: summarizer did not answer Summarize within 0.3 s" in caplog.text
    assert "step 2: no change summary" in caplog.text


async def test_an_answer_that_comes_past_the_call_limit_before_the_end_is_dropped(caplog):
    judge = Judge({1: 0.5})
    with caplog.at_level(logging.WARNING, logger="actors.step_summaries"):
        answered, _ = await summarize_with(judge, [1, 2], call_seconds=0.3, idle=0.8)
    assert answered == []  # 1 came at 0.5 s, past its 0.3; 2's turn came then, past its own
    assert judge.asked == [1]
    assert "step 1: no change summary: summarizer did not answer Summarize within 0.3 s" in caplog.text


async def test_an_answer_after_abandon_is_ignored_and_nothing_more_is_asked():
    judge = Judge({1: 0.1})
    answered = []
    async with anyio.create_task_group() as tg:
        ref = await spawn(tg, Summarizer(judge))
        async with task_group() as group:
            summaries = StepSummaries(ref, group, 5.0, episode_id="e#1",
                                      answered=lambda step, summary: answered.append(step))
            summaries.ask(request(1))
            summaries.ask(request(2))
            await anyio.sleep(0)
            summaries.abandon()
            summaries.ask(request(3))
            await anyio.sleep(0.3)
            await summaries.finish()  # nothing to wait for
        tg.cancel_scope.cancel()
    assert answered == []
    assert judge.asked == [1]


async def test_a_supervised_summarizer_that_crashes_costs_one_summary(caplog):
    judge = Judge()
    supervisor = Supervisor([actor_child("summarizer", lambda: Crashing(judge, step=2))], name="crew")
    async with anyio.create_task_group() as tg:
        await tg.start(supervisor.run)
        with caplog.at_level(logging.WARNING, logger="actors.step_summaries"):
            answered = await summarize_steps(supervisor.ref("summarizer"), [1, 2, 3, 4])
        await supervisor.stop()
    assert [step for step, _ in answered] == [1, 3, 4]
    assert supervisor.restarts == 1
    assert "step 2: no change summary: summarizer: RuntimeError: crashed at step 2" in caplog.text


async def test_an_answer_that_is_not_summarized_is_a_missed_summary_saying_so(caplog):
    class Wrong(Actor):
        async def handle(self, message):
            return Summarized(summary=ChangeSummary(step=1, changes="x")) if message.step == 1 else "a string"

    async with anyio.create_task_group() as tg:
        ref = await spawn(tg, Wrong("summarizer"))
        with caplog.at_level(logging.WARNING, logger="actors.step_summaries"):
            answered = await summarize_steps(ref, [1, 2, 3])
        tg.cancel_scope.cancel()
    assert [step for step, _ in answered] == [1]
    assert "step 2: no change summary: summarizer answered str, not Summarized" in caplog.text
