"""One error model: one base for everything troupe raises on purpose, and one table for the wire."""

import asyncio
import inspect

import anyio
import pytest

import actors
import protocols
import runtime
from protocols import Failure, decode, encode
from runtime.errors import (
    ActorCrashed, ActorError, ActorStopped, CallTimeout, LimitExceeded, NodeDied, RequestRefused, TroupeError,
    UnknownActor, describe, first_error, from_failure, to_failure,
)
from runtime.actor import Actor, spawn


def exported_exceptions():
    for package in (protocols, runtime, actors):
        for name in package.__all__:
            value = getattr(package, name)
            if inspect.isclass(value) and issubclass(value, BaseException):
                yield f"{package.__name__}.{name}", value


@pytest.mark.parametrize(("name", "kind"), list(exported_exceptions()))
def test_every_exported_exception_is_a_troupe_error(name, kind):
    assert issubclass(kind, TroupeError), name


def test_a_call_timeout_is_an_actor_error_and_a_limit():
    timeout = CallTimeout("agent", "Decide", 0.5)
    assert isinstance(timeout, ActorError) and isinstance(timeout, LimitExceeded)
    assert (timeout.actor, timeout.limit, str(timeout)) == ("agent", "call", "agent did not answer Decide within 0.5 s")


def over_the_wire(exc: BaseException, actor: str = "vm") -> ActorError:
    """What the caller of `actor` gets when the node's ask failed with `exc`."""
    _, failure = decode(encode("error", to_failure(exc), id=7, to=actor))
    assert isinstance(failure, Failure)
    return from_failure(actor, failure)


@pytest.mark.parametrize("kind", [RequestRefused, ActorCrashed])
def test_refusals_and_crashes_arrive_as_themselves_with_the_same_text(kind):
    back = over_the_wire(kind("vm", "not reset to a task yet"))
    assert type(back) is kind
    assert (back.actor, str(back)) == ("vm", "vm: not reset to a task yet")


@pytest.mark.parametrize(("exc", "text"), [
    (ActorStopped("vm", "not running"), "vm: ActorStopped: not running"),
    (UnknownActor("no actor named 'vm' on this node"), "vm: UnknownActor: no actor named 'vm' on this node"),
    (CallTimeout("screen", "Observe", 2), "vm: CallTimeout: screen did not answer Observe within 2 s"),
    (ValueError("bad coordinates"), "vm: ValueError: bad coordinates"),
])
def test_anything_else_arrives_as_a_crash_naming_what_it_was(exc, text):
    """An ActorStopped over there is not this side's connection stopping: a SupervisedRef
    that took it for one would wait for a restart of a node that is still up."""
    back = over_the_wire(exc)
    assert type(back) is ActorCrashed
    assert str(back) == text


def test_errors_keep_the_facts_code_needs():
    died = NodeDied("node x exited with code 3", returncode=3, close_code=1011, close_reason="crashed", stderr="boom")
    assert (died.returncode, died.close_code, died.close_reason, died.stderr) == (3, 1011, "crashed", "boom")
    assert isinstance(UnknownActor("x"), LookupError)


# --- errors as text name the root cause (issue 17) ---------------------------------------


def _group_around(leaf: BaseException) -> BaseExceptionGroup:
    """What a task group raises: the leaf beside cancellations, nested once more."""
    return BaseExceptionGroup("outer", [asyncio.CancelledError(), BaseExceptionGroup("inner", [leaf, KeyError("later")])])


def test_first_error_unwraps_nested_groups_to_the_first_real_error():
    boom = OSError("disk on fire")
    assert first_error(_group_around(boom)) is boom
    assert first_error(boom) is boom
    only_cancelled = BaseExceptionGroup("g", [KeyboardInterrupt()])
    assert isinstance(first_error(only_cancelled), KeyboardInterrupt)


def test_describe_and_failures_name_the_root_cause_not_the_group():
    text = describe(_group_around(OSError("disk on fire")))
    assert text == "OSError: disk on fire"
    failure = to_failure(ExceptionGroup("unhandled errors in a TaskGroup", [ValueError("bad pixel")]))
    assert (failure.error, failure.message) == ("ValueError", "bad pixel")


@pytest.mark.anyio
async def test_an_actor_crashing_with_a_group_reports_its_first_real_error():
    class Crasher(Actor):
        async def handle(self, message):
            async with anyio.create_task_group() as tg:
                tg.start_soon(anyio.sleep_forever)
                raise RuntimeError("tree walker lost the window")

    with pytest.raises(BaseExceptionGroup):
        async with anyio.create_task_group() as tg:
            ref = await spawn(tg, Crasher("observer"))
            with pytest.raises(ActorCrashed) as info:
                await ref.ask("observe")
    assert str(info.value) == "observer: RuntimeError: tree walker lost the window"
