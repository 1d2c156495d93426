"""One decision of a computer-use agent: call the model until it names an action troupe can take.

A provider's dialect (`anthropic`, `openai`) says how a conversation is written and read; the
loop is the same for both. The model may first ask to see the screen (its `screenshot`
action): the current screenshot goes back at once, as many times as `max_looks` allows. An
action troupe cannot carry out (one it has no counterpart for, a malformed one, an unknown
action name) goes back as the tool's error, and `max_bad_replies` of those in a row end the
episode with an agent error naming the last; a failing model service passes through as a
`ModelServiceError` carrying the calls made, as the chat agent's does. A provider that keeps
the conversation itself may answer that it no longer has it (expired, deleted): the dialect's
`restart` rebuilds it from the episode's record and it is sent again once; refused again, the
decision ends as a model-service error (`ConversationLost`), since the agent caused neither. When the model stops
calling the tool, its last message ends the episode: `ANSWER: ...` answers the task,
`FAIL: ...` gives up, anything else says it is done.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from protocols import Action, Answer, Decide, Decision, Done, Fail, ModelCall, Observation, StepRecord, Usage

from actors.errors import ModelServiceError, NoAnswer
from actors.llm.client import Exchange, LLMClient, LLMError, add_usage
from actors.llm.replies import ReplyError
from actors.llm.screen import ModelScreen, Scale
from actors.llm.transcript import without_images

__all__ = [
    "FINISHING", "HELD_SCROLL", "ComputerUsePolicy", "ConversationLost", "Turn", "final_action", "model_action",
    "outcome", "read_action",
]

FINISHING = """\
When the task is complete, stop using the tool and reply with a last message whose final line is \
DONE, or ANSWER: <the answer> when the task asks a question, or FAIL: <why> when it cannot be done."""

HELD_SCROLL = "troupe cannot hold keys while scrolling; scroll left or right to scroll sideways"


@dataclass(frozen=True)
class Turn:
    """What one reply asks for: an `action` in the model's frame, or None to see the screen;
    `then` the actions it asked for after that one (a batch), in order."""

    action: Action | None
    reasoning: str
    then: tuple[Action, ...] = ()


class ConversationLost(ModelServiceError):
    """The provider no longer had the conversation a decision continued, and refused it sent again
    from the episode's own record too: the service failed, not the agent."""


class ComputerUsePolicy:
    """The loop; a dialect supplies the methods below "the dialect" (how a request is made, a reply
    read and answered). `screen` fixes the size the model is shown (`--llm-screen`); without it
    the dialect's `fit` chooses."""

    role = "agent"

    def __init__(self, client: LLMClient, *, history: int = 5, summaries: bool = True, max_bad_replies: int = 3,
                 max_looks: int = 3, screen: ModelScreen | None = None) -> None:
        if max_bad_replies < 1:
            raise ValueError(f"max_bad_replies must be at least 1, got {max_bad_replies}")
        self.client = client
        self.history = history
        self.summaries = summaries
        self.max_bad_replies = max_bad_replies
        self.max_looks = max_looks
        self.screen = screen

    async def decide(self, request: Decide) -> Decision:
        if not request.observation.screenshot:
            raise NoAnswer("a computer-use agent needs a screenshot, and this observation has none", ())
        scale = self.scale(request.observation)
        queued = self.queued(request)
        if queued is not None:
            action = queued.action if scale is None else scale.to_screen(queued.action)
            return Decision(action=action, reasoning=queued.reasoning)
        seen = request.observation if scale is None else scale.observation(
            msgspec.structs.replace(request.observation, tree=None))
        conversation = self.opening(request, seen, scale)
        usage, calls, bad, looks = Usage(), [], 0, 0
        while True:
            payload, call, used = await self._call(conversation, seen, request, scale, calls)
            usage = add_usage(usage, used)
            calls.append(call)
            try:
                turn = self.read(payload)
                if turn.action is None:
                    looks += 1
                    if looks > self.max_looks:
                        raise ReplyError(f"asked to see the screen {looks} times in a row; it has not changed")
            except ModelServiceError as exc:  # an answer that is not the API's (LLMBadResponse)
                exc.calls = _given_up(calls)
                raise
            except ReplyError as exc:
                bad += 1
                calls[-1] = msgspec.structs.replace(calls[-1], rejected=str(exc))
                if bad >= self.max_bad_replies:
                    raise NoAnswer(f"{bad} replies in a row named no action troupe can carry out; last: {exc}",
                                   _given_up(calls)) from None
                conversation = self.refused(conversation, payload, str(exc), seen)
                continue
            if turn.action is None:
                conversation = self.looked(conversation, payload, seen)
                continue
            self.decided(request, turn, payload)
            action = turn.action if scale is None else scale.to_screen(turn.action)
            return Decision(action=action, reasoning=turn.reasoning, usage=usage, calls=tuple(calls))

    async def preflight(self) -> None:
        """One cheap call to the provider's API with this agent's key, model and headers: what
        `actors.llm.preflight.confirm` checks before a run."""
        body = self.preflight_body()
        await self.client.exchange(self.endpoint(), body, headers=self.headers(), transcript=[body])

    def scale(self, observation: Observation) -> Scale | None:
        if self.screen is not None:
            return self.screen.scale(observation)
        fitted = self.fit(observation)
        return None if fitted is None else fitted.scale(observation)

    def fit(self, observation: Observation) -> ModelScreen | None:
        """The size the provider wants this screen shown at; None: as it is."""
        return None

    async def _call(self, conversation: Any, seen: Observation, request: Decide, scale: Scale | None,
                    calls: list[ModelCall]) -> tuple[Any, ModelCall, Usage]:
        """One call of the decision. When the provider answers that it no longer has the conversation
        the request continues (`restart`), the conversation is sent again, once, as the episode's
        own record tells it, and that call says so (`restarted`); the failed call is kept in `calls`."""
        try:
            return await self._send(conversation, seen, request.step)
        except LLMError as exc:
            fresh = None if isinstance(exc, ModelServiceError) else self.restart(conversation, exc, request, seen,
                                                                                   scale)
            if fresh is None:
                raise self._failure(exc, calls, request.step)
            lost = exc
        calls.extend(self._failed_call(lost, request.step))
        try:
            payload, call, used = await self._send(fresh, seen, request.step)
        except LLMError as exc:
            raise self._failure(exc, calls, request.step, lost=lost)
        restarted = f"the provider no longer has the conversation ({lost}); it was sent again without it"
        return payload, msgspec.structs.replace(call, restarted=restarted), used

    async def _send(self, conversation: Any, seen: Observation, step: int) -> tuple[Any, ModelCall, Usage]:
        transcript = self.transcript(conversation)
        exchange = await self.client.exchange(self.endpoint(), self.body(conversation, seen),
                                              headers=self.headers(), transcript=transcript)
        used = self._usage(exchange)
        return exchange.payload, self._record(exchange, transcript, step, used), used

    def _failed_call(self, error: LLMError, step: int) -> list[ModelCall]:
        return [] if error.call is None else [msgspec.structs.replace(error.call, role=self.role, step=step)]

    def _failure(self, error: LLMError, calls: list[ModelCall], step: int, *,
                 lost: LLMError | None = None) -> Exception:
        """What a failed call ends the decision with, carrying the calls made: a model-service error
        as it is; a refused request, the agent's `NoAnswer`, unless it was the conversation sent
        again after the provider `lost` it, which the agent did not cause either."""
        made = _given_up([*calls, *self._failed_call(error, step)])
        if isinstance(error, ModelServiceError):
            error.calls = made
            return error
        if lost is None:
            failure: Exception = NoAnswer(f"LLM call failed: {error}", made)
        else:
            failure = ConversationLost(f"the provider no longer has the conversation ({lost}), and refused it "
                                       f"sent again without it: {error}")
            failure.calls = made
        failure.__cause__ = error
        return failure

    def _usage(self, exchange: Exchange) -> Usage:
        input_tokens, output_tokens = self.usage(exchange.payload)
        return Usage(input_tokens=input_tokens, output_tokens=output_tokens,
                     cost=self.client.config.cost(input_tokens, output_tokens), latency=exchange.latency)

    def _record(self, exchange: Exchange, transcript: Any, step: int, used: Usage) -> ModelCall:
        images: dict[str, bytes] = {}
        return ModelCall(role=self.role, step=step, messages=without_images(transcript, images),
                         reply=json.dumps(self.reply(exchange.payload)), input_tokens=used.input_tokens,
                         output_tokens=used.output_tokens, cost=used.cost, latency=exchange.latency,
                         retries=exchange.retries, images=images)

    # --- the dialect ------------------------------------------------------------------

    def queued(self, request: Decide) -> Turn | None:
        """An action the model already chose for this step (a batch's next), in the model's frame."""
        return None

    def decided(self, request: Decide, turn: Turn, payload: Any) -> None:
        """`turn`, read from `payload`, is this step's decision."""

    def endpoint(self) -> str:
        raise NotImplementedError

    def headers(self) -> dict[str, str]:
        raise NotImplementedError

    def body(self, conversation: Any, seen: Observation) -> dict[str, Any]:
        raise NotImplementedError

    def preflight_body(self) -> dict[str, Any]:
        raise NotImplementedError

    def transcript(self, conversation: Any) -> Any:
        """The request's messages as the episode's transcript keeps them (images referenced)."""
        raise NotImplementedError

    def opening(self, request: Decide, seen: Observation, scale: Scale | None) -> Any:
        raise NotImplementedError

    def read(self, payload: Any) -> Turn:
        raise NotImplementedError

    def reply(self, payload: Any) -> Any:
        """What of the answer the transcript keeps as the reply."""
        raise NotImplementedError

    def usage(self, payload: Any) -> tuple[int, int]:
        raise NotImplementedError

    def looked(self, conversation: Any, payload: Any, seen: Observation) -> Any:
        raise NotImplementedError

    def restart(self, conversation: Any, error: LLMError, request: Decide, seen: Observation,
                scale: Scale | None) -> Any | None:
        """The conversation to send again when `error` says the provider lost the state `conversation`
        continues; None: `error` is not that (a dialect that sends the whole conversation never is)."""
        return None

    def refused(self, conversation: Any, payload: Any, error: str, seen: Observation) -> Any:
        raise NotImplementedError


def final_action(text: str) -> Action:
    """The episode's end a last message asks for (see the module's docstring)."""
    for line in reversed(text.strip().splitlines()):
        line = line.strip().strip("*").strip()
        head, _, rest = line.partition(":")
        if head.strip().upper() == "ANSWER":
            return Answer(text=rest.strip())
        if head.strip().upper() == "FAIL":
            return Fail(reason=rest.strip())
        if line.upper().startswith("DONE"):
            return Done()
    return Done()


def outcome(record: StepRecord, summaries: bool) -> str:
    """What the model is told of an earlier step's result: it failed, or was done, and what the
    Summarizer judged of it when `summaries`."""
    text = f"The action failed: {record.error}" if record.error else "Done."
    summary = record.summary if summaries else None
    if summary is not None:
        verdict = {True: "correct", False: "incorrect", None: "unclear"}[summary.correct]
        text += f" An observer saw: {summary.changes}; judged {verdict}"
        text += f" ({summary.reason})." if summary.reason else "."
    return text


def read_action(kind: Any, given: dict[str, Any], build: Callable[[Any, dict[str, Any]], Action],
                known: Collection[str], unsupported: Mapping[str, str] | None = None) -> Action | None:
    """The action a tool action of `kind` with its fields `given` asks for (`build` makes it; the tool
    has the `known` kinds, and troupe cannot take the `unsupported` ones, for the reason given),
    None for a screenshot; a ReplyError naming what is wrong with it otherwise."""
    if kind == "screenshot":
        return None
    if unsupported and kind in unsupported:
        raise ReplyError(f"the action {kind!r} cannot be carried out here: {unsupported[kind]}")
    if kind not in known:
        raise ReplyError(f"the computer tool has no action {kind!r}")
    try:
        return build(kind, given)
    except (KeyError, TypeError, ValueError) as exc:
        detail = f"`{exc.args[0]}` is missing" if isinstance(exc, KeyError) else str(exc)
        raise ReplyError(f"the {kind!r} action is malformed: {detail}") from None


def model_action(action: Action, scale: Scale | None) -> Action:
    return action if scale is None else scale.to_model(action)


def _given_up(calls: list[ModelCall]) -> tuple[ModelCall, ...]:
    """`calls`, the last one marked as the end of a decision that got no usable answer."""
    return (*calls[:-1], msgspec.structs.replace(calls[-1], gave_up=True)) if calls else ()
