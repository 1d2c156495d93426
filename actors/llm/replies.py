"""Asking a model for a JSON answer, and what to do when it does not give one.

A reply that cannot be used is not an exception to crash on: the error goes
back to the model as the next turn of the same conversation ("that was not
valid because ..."), and only after `attempts` bad replies in a row does the
caller give up. Giving up, or a request the LLM refused, raises `NoAnswer`,
a `Refused`: the actor refuses that one request and keeps serving, and the
episode sees an agent error whose text says what happened. A failure of the
model service itself (`ModelServiceError`) passes through: it is not the
agent's. Either carries the calls made, for the transcript: each rejected
reply says why it was sent back, and the last call says the request was
given up on.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

import msgspec

from protocols import ModelCall, Usage, TroupeError

from actors.errors import ModelServiceError, NoAnswer
from actors.llm.client import LLMClient, LLMError, add_usage

T = TypeVar("T")


class ReplyError(TroupeError, ValueError):
    """A reply that does not say what was asked; the text is shown to the model."""


def extract_json(text: str) -> dict[str, Any]:
    """The JSON object in a reply, tolerating code fences and prose around it."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ReplyError("the reply contains no JSON object")
    try:
        value = msgspec.json.decode(text[start : end + 1])
    except msgspec.DecodeError as exc:
        raise ReplyError(f"the reply is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ReplyError("the reply must be one JSON object")
    return value


def decode_reply(text: str, shape: type[T]) -> T:
    """The reply's JSON object as a `shape` Struct; a wrong field is named in the error."""
    try:
        return msgspec.convert(extract_json(text), shape)
    except msgspec.ValidationError as exc:
        raise ReplyError(f"the reply object is wrong: {exc}") from None


async def ask(
    client: LLMClient, messages: list[dict[str, Any]], parse: Callable[[str], T], *, attempts: int,
    role: str, step: int = 0,
) -> tuple[T, Usage, tuple[ModelCall, ...]]:
    """Ask until `parse` accepts a reply; return it with the usage of every call made, and the calls
    as the transcript keeps them, marked with the `role` that made them and the `step` they serve."""
    conversation = list(messages)
    usage = Usage()
    calls: list[ModelCall] = []
    last: ReplyError | None = None
    for _ in range(attempts):
        try:
            completion = await client.complete(conversation)
        except LLMError as exc:
            failed = [] if exc.call is None else [msgspec.structs.replace(exc.call, role=role, step=step)]
            tried = given_up([*calls, *failed])
            if isinstance(exc, ModelServiceError):
                exc.calls = tried
                raise
            raise NoAnswer(f"LLM call failed: {exc}", tried) from exc
        usage = add_usage(usage, completion.usage)
        calls.append(msgspec.structs.replace(completion.call, role=role, step=step))
        try:
            return parse(completion.text), usage, tuple(calls)
        except ReplyError as exc:
            last = exc
            calls[-1] = msgspec.structs.replace(calls[-1], rejected=str(exc))
            conversation += [
                {"role": "assistant", "content": completion.text},
                {"role": "user", "content": f"That reply is invalid: {exc}. "
                                            "Answer again with only the JSON object described above."},
            ]
    raise NoAnswer(f"{attempts} invalid replies in a row; last: {last}", given_up(calls))


def given_up(calls: list[ModelCall]) -> tuple[ModelCall, ...]:
    """`calls`, the last one marked as the end of a request that got no usable answer (for every
    policy that asks a model, whatever API it speaks)."""
    return (*calls[:-1], msgspec.structs.replace(calls[-1], gave_up=True)) if calls else ()
