"""What an actor does when the code it was given fails: refuse that one request.

Agent, Summarizer and Evaluator call code a user or a suite supplies (a
policy, a judge, a checker, an analyst). Its bug, an exception or an answer
that is not what the protocol says, is the failure of that one request: the
caller gets `RequestRefused` with the reason, the episode records it, and the
actor serves the next request. Crashing instead would hand the bug to the
crew's supervisor, whose restart intensity a bug that fails every time
exhausts within a few episodes, stopping the whole run.
"""

from __future__ import annotations

from typing import Any, Awaitable, TypeVar

import msgspec

from runtime.errors import Refused, TroupeError

__all__ = ["Returned", "answer"]

T = TypeVar("T", bound=msgspec.Struct)


async def answer(role: str, call: Awaitable[Any], expected: type[T]) -> T:
    """The `expected` Struct that `call` (the `role`'s code) returns, its fields
    checked as the wire would decode them; otherwise Refused saying what was wrong."""
    try:
        value = await call
    except Refused:
        raise  # the code said itself why it has no answer
    except Exception as exc:
        raise Refused(f"{role} raised {type(exc).__name__}: {exc}") from exc
    if not isinstance(value, expected):
        raise Refused(f"{role} returned {type(value).__name__}, not a {expected.__name__}") from Returned(value)
    try:
        return msgspec.convert(msgspec.to_builtins(value), expected)
    except (msgspec.ValidationError, TypeError) as exc:
        raise Refused(f"{role} returned an invalid {expected.__name__}: {exc}") from Returned(value)


class Returned(TroupeError):
    """What the code returned instead of an answer, as the cause of its refusal: a record of the
    failure shows the value itself, where a traceback would only show this module."""

    def __init__(self, value: Any) -> None:
        text = repr(value)
        super().__init__(text if len(text) <= 2000 else text[:2000] + "...")
