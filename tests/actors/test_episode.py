import dataclasses

import anyio
import msgspec
import pytest

from actors.agent import Agent
from actors.episode import Crew, EnvironmentFailure, Outlets, run_episode
from actors.evaluator import Evaluator
from actors.observer import Observer
from bench.suites.sim.checker import SimChecker
from bench.suites.sim.agent import SimJudge, SimPolicy
from actors.backends.sim.vm import SimVM
from actors.summarizer import Summarizer
from actors.vm_controller import VMController
from bench.suites.sim.suite import sim_tasks
from protocols import ErrorKind, StepSummarized, StepTaken, Viewport
from runtime.actor import Actor, spawn
from runtime.events import EventBus
from runtime.limits import Limits

pytestmark = pytest.mark.anyio

FAST = {"scale": 0.001}


async def crew_in(tg, bus=None):
    vm = SimVM()
    return Crew(
        vm=await spawn(tg, VMController(vm)),
        observer=await spawn(tg, Observer(vm)),
        agent=await spawn(tg, Agent(SimPolicy())),
        summarizer=await spawn(tg, Summarizer(SimJudge())),
        evaluator=await spawn(tg, Evaluator(SimChecker())),
        outlets=Outlets(bus=bus),
    )


async def test_simulated_episode_succeeds_with_a_summary_per_action_step():
    (task,) = sim_tasks(1, seed=3, sim=FAST)
    bus = EventBus()
    async with anyio.create_task_group() as tg:
        crew = await crew_in(tg, bus)
        with bus.subscribe() as events:
            outcome = await run_episode(task, crew, Limits(call_seconds=5), episode_id="e1")
        tg.cancel_scope.cancel()
    assert outcome.result.success, outcome.result.reason
    assert outcome.result.error_kind is ErrorKind.NONE
    assert outcome.steps[-1].action.terminal
    action_steps = [r for r in outcome.steps if not r.action.terminal]
    assert action_steps and all(r.summary is not None and r.summary.correct for r in action_steps)
    assert events.dropped == 0


async def test_step_limit_ends_the_episode_with_its_reason_and_it_is_still_evaluated():
    (task,) = sim_tasks(1, seed=3, sim=FAST)
    async with anyio.create_task_group() as tg:
        crew = await crew_in(tg)
        outcome = await run_episode(task, crew, Limits(max_steps=1, call_seconds=5), episode_id="e1")
        tg.cancel_scope.cancel()
    assert not outcome.result.success
    assert outcome.result.steps == 1
    assert outcome.result.reason.startswith("step limit of 1 reached; ")
    assert 0 < outcome.result.score < 1  # evaluated: the one step typed into a field
    assert outcome.result.error_kind is ErrorKind.AGENT
    typed = outcome.steps[0].action
    field = next(e for e in outcome.final.tree.walk() if e.node_id == typed.target.node_id)
    assert field.text == typed.text  # the final screen is the one after the step, not the one before it


async def test_time_limit_ends_the_episode_with_its_reason():
    (task,) = sim_tasks(1, seed=3, sim={"scale": 0.02})
    async with anyio.create_task_group() as tg:
        crew = await crew_in(tg)
        outcome = await run_episode(task, crew, Limits(episode_seconds=0.1, call_seconds=5), episode_id="e1")
        tg.cancel_scope.cancel()
    assert outcome.result.reason.startswith("time limit of 0.1 s reached")
    assert not outcome.result.success


async def test_agent_call_timeout_ends_the_episode_with_the_call_limit_reason():
    (task,) = sim_tasks(1, seed=3, sim={"scale": 0.001, "latencies": {"agent": {"mean": 10000.0}}})
    async with anyio.create_task_group() as tg:
        crew = await crew_in(tg)
        outcome = await run_episode(task, crew, Limits(call_seconds=0.5), episode_id="e1")
        tg.cancel_scope.cancel()
    assert outcome.result.reason.startswith("agent did not answer Decide within 0.5 s")
    assert outcome.result.steps == 0


async def test_hanging_vm_is_an_environment_failure():
    # Plain frames: the first drawn one (~14 ms, fonts loaded) once held the reset's Observe past the
    # 0.1 s call limit on a loaded CI machine, before the Act this test is about.
    (task,) = sim_tasks(1, seed=3, sim={"scale": 0.001, "screens": "plain", "faults": [{"kind": "hang", "step": 1}]})
    async with anyio.create_task_group() as tg:
        crew = await crew_in(tg)
        with pytest.raises(EnvironmentFailure, match="Act failed: vm did not answer Act within 0.1 s"):
            await run_episode(task, crew, Limits(call_seconds=0.1), episode_id="e1")
        tg.cancel_scope.cancel()


class Recorder(Actor):
    """A ResultSink stand-in: keeps what it is told."""

    def __init__(self) -> None:
        super().__init__("sink")
        self.events: list = []

    async def handle(self, message):
        self.events.append(message)


def told(events, kind):
    """(kind, step) of each StepTaken and StepSummarized, in order."""
    return [(type(e).__name__, e.record.step if isinstance(e, StepTaken) else e.summary.step)
            for e in events if isinstance(e, (StepTaken, StepSummarized)) and isinstance(e, kind)]


async def test_the_sink_is_told_every_summary_after_its_step_and_before_the_episode_returns():
    (task,) = sim_tasks(1, seed=3, goals=(5, 5), sim=FAST)
    bus, recorder = EventBus(), Recorder()
    async with anyio.create_task_group() as tg:
        crew = dataclasses.replace(await crew_in(tg), outlets=Outlets(sink=await spawn(tg, recorder), bus=bus))
        with bus.subscribe() as events:
            outcome = await run_episode(task, crew, Limits(call_seconds=5), episode_id="e1")
            bus.close()
            published = [event async for event in events if isinstance(event, StepSummarized)]
        await anyio.wait_all_tasks_blocked()
        tg.cancel_scope.cancel()
    action_steps = [r.step for r in outcome.steps if not r.action.terminal]
    summarized = told(recorder.events, StepSummarized)
    assert summarized == [("StepSummarized", step) for step in action_steps]
    sequence = told(recorder.events, (StepTaken, StepSummarized))
    assert all(sequence.index(("StepTaken", step)) < sequence.index(("StepSummarized", step)) for step in action_steps)
    # As the steps go, not all at the end: step 1's summary has come while steps 2 and 3 ran.
    assert sequence.index(("StepSummarized", 1)) < sequence.index(("StepTaken", 4))
    assert [e.summary.step for e in published] == action_steps


async def test_summaries_that_arrived_are_told_to_the_sink_when_the_vm_fails():
    (task,) = sim_tasks(1, seed=3, goals=(5, 5),
                        sim={"scale": 0.001, "screens": "plain", "faults": [{"kind": "hang", "step": 3}]})
    recorder = Recorder()
    async with anyio.create_task_group() as tg:
        crew = dataclasses.replace(await crew_in(tg), outlets=Outlets(sink=await spawn(tg, recorder)))
        with pytest.raises(EnvironmentFailure, match="Act failed"):
            await run_episode(task, crew, Limits(call_seconds=0.5), episode_id="e1")
        await anyio.wait_all_tasks_blocked()
        tg.cancel_scope.cancel()
    assert told(recorder.events, StepSummarized) == [("StepSummarized", 1), ("StepSummarized", 2)]


async def test_tree_capture_past_its_limit_yields_a_partial_observation():
    (task,) = sim_tasks(1, seed=3, sim={"scale": 0.001, "faults": [{"kind": "tree_hang", "rate": 1.0}]})
    async with anyio.create_task_group() as tg:
        crew = await crew_in(tg)
        outcome = await run_episode(task, crew, Limits(max_steps=2, call_seconds=5, tree_seconds=0.02), episode_id="e1")
        tg.cancel_scope.cancel()
    assert outcome.final.partial == ("tree",)
    assert outcome.final.screenshot.startswith(b"\x89PNG")
    assert outcome.result.reason.startswith("step limit of 2 reached")


class SettlingVM(SimVM):
    """A sim VM that says how long each action waited for the screen to settle."""

    async def act(self, step, action):
        return msgspec.structs.replace(await super().act(step, action), settle=0.001 * step)


async def test_step_records_carry_the_settle_time_the_vm_reported():
    (task,) = sim_tasks(1, seed=3, sim=FAST)
    async with anyio.create_task_group() as tg:
        vm = SettlingVM()
        crew = Crew(vm=await spawn(tg, VMController(vm)), observer=await spawn(tg, Observer(vm)),
                    agent=await spawn(tg, Agent(SimPolicy())), evaluator=await spawn(tg, Evaluator(SimChecker())))
        outcome = await run_episode(task, crew, Limits(call_seconds=5), episode_id="e1")
        tg.cancel_scope.cancel()
    acted = [r for r in outcome.steps if not r.action.terminal]
    assert acted and [r.timings.settle for r in acted] == [0.001 * r.step for r in acted]
    assert outcome.steps[-1].timings.settle is None  # a terminal action does not touch the screen
    decoded = msgspec.json.decode(msgspec.json.encode(acted[0].timings), type=type(acted[0].timings))
    assert decoded.settle == acted[0].timings.settle


class OverlappingScreen:
    """A screen whose screenshot can only finish once the details have been asked for."""

    def __init__(self) -> None:
        self.details_asked = anyio.Event()

    async def screenshot(self):
        with anyio.fail_after(5):
            await self.details_asked.wait()
        return b"png", Viewport(10, 10)

    async def tree(self):
        return None

    async def details(self):
        self.details_asked.set()
        return {"window_title": "overlap"}


async def test_the_observer_asks_for_details_while_the_screenshot_is_taken():
    seen = await Observer(OverlappingScreen()).capture(tree_timeout=5)
    assert seen.window_title == "overlap" and seen.screenshot == b"png" and seen.partial == ()


async def test_captures_of_an_observer_that_is_not_an_actor_may_run_at_once():
    screen = OverlappingScreen()  # each screenshot waits for a details call: both captures are in flight at once
    observer = Observer(screen)
    seen = []

    async def capture():
        seen.append(await observer.capture(tree_timeout=5))

    async with anyio.create_task_group() as tg:
        tg.start_soon(capture)
        tg.start_soon(capture)
    assert [observation.window_title for observation in seen] == ["overlap", "overlap"]


class TimeoutRecorder(Observer):
    """An Observer that notes the tree timeout each request carried."""

    def __init__(self, backend) -> None:
        super().__init__(backend)
        self.timeouts: list[float] = []

    async def handle(self, message):
        self.timeouts.append(message.tree_timeout)
        return await super().handle(message)


@pytest.mark.parametrize("limits", [Limits(call_seconds=5), Limits(call_seconds=5, tree_seconds=7.5)])
async def test_every_observation_is_captured_under_the_runs_tree_limit(limits):
    (task,) = sim_tasks(1, seed=3, sim=FAST)
    async with anyio.create_task_group() as tg:
        vm = SimVM()
        observer = TimeoutRecorder(vm)
        crew = Crew(vm=await spawn(tg, VMController(vm)), observer=await spawn(tg, observer),
                    agent=await spawn(tg, Agent(SimPolicy())), evaluator=await spawn(tg, Evaluator(SimChecker())))
        await run_episode(task, crew, limits, episode_id="e1")
        tg.cancel_scope.cancel()
    assert len(observer.timeouts) > 1 and set(observer.timeouts) == {limits.tree_seconds}
