"""Every exception the runtime raises on purpose, under one base, and how they cross the wire.

`TroupeError` is the base of them all. The families:

- `ActorError`: a conversation with an actor failed, as the caller sees it
  (`ActorCrashed`, `ActorStopped`, `RequestRefused`, `CallTimeout`); the
  actor's name is in `actor` and leads the text.
- `LimitExceeded`: a limit was hit (`StepLimitExceeded`, `TimeLimitExceeded`,
  `CallTimeout`); `limit` names its kind, so an episode records which one
  ended it. A call timeout is both: the actor did not answer, and the call
  limit is what gave up on it.
- `Refused`: raised by a handler to reject one request and go on serving.
- transports and processes: `ConnectionClosed`, `HandshakeError`, `NodeDied`,
  `NodeCrashed`, `UnknownActor`, `ClusterLost`; supervision: `RestartIntensityExceeded`;
  bytes that are no message: `ProtocolError`.

Across a node connection an error travels as a `Failure` message;
`to_failure` and `from_failure` are the one table for both directions.
"""

from __future__ import annotations

from protocols.errors import ProtocolError, TroupeError
from protocols.messages import Failure

__all__ = [
    "ActorCrashed", "ActorError", "ActorStopped", "CallTimeout", "ClusterLost", "ConnectionClosed",
    "HandshakeError", "LimitExceeded", "NodeCrashed", "NodeDied", "ProtocolError", "Refused", "RequestRefused",
    "RestartIntensityExceeded", "StepLimitExceeded", "TimeLimitExceeded", "TroupeError", "UnknownActor",
    "describe", "first_error", "from_failure", "to_failure",
]


# --- conversations with actors -----------------------------------------------------


class ActorError(TroupeError):
    """Base of every error a caller can get back from `tell` or `ask`."""

    def __init__(self, actor: str, message: str) -> None:
        super().__init__(f"{actor}: {message}")
        self.actor = actor


class ActorCrashed(ActorError):
    """The actor died while the request was in its mailbox or being handled."""


class ActorStopped(ActorError):
    """The actor is not running (stopped, or its node connection is gone)."""


class RequestRefused(ActorError):
    """The actor refused the request; the text says why."""


class Refused(TroupeError):
    """Raised by a handler to reject one request without crashing the actor.

    The caller gets it back (as `RequestRefused`); the actor goes on serving.
    """


# --- limits -----------------------------------------------------------------------


class LimitExceeded(TroupeError):
    """A limit was hit. `limit` names its kind: "steps", "time" or "call"."""

    limit = "limit"


class StepLimitExceeded(LimitExceeded):
    limit = "steps"


class TimeLimitExceeded(LimitExceeded):
    limit = "time"


class CallTimeout(ActorError, LimitExceeded):
    """One request to an actor took longer than its timeout."""

    limit = "call"

    def __init__(self, actor: str, request: str, seconds: float) -> None:
        # Not ActorError's "actor: message": the actor's name starts the sentence.
        Exception.__init__(self, f"{actor} did not answer {request} within {seconds:g} s")
        self.actor = actor


# --- transports, nodes, supervision --------------------------------------------------


class ConnectionClosed(TroupeError):
    """A websocket connection is over; `code` and `reason` say how (1006: no close frame)."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(f"websocket closed: {code} {reason}".rstrip())
        self.code = code
        self.reason = reason


class HandshakeError(TroupeError, ConnectionError):
    """The server refused the opening handshake (`status` is its HTTP status, if any)."""

    def __init__(self, message: str, status: int | None = None, body: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class NodeDied(TroupeError):
    """A node is gone: its process exited or its connection dropped.

    The text names the node and says how it ended; the attributes carry the
    same facts for code: exit code, close code and reason, last stderr lines.
    """

    def __init__(
        self,
        message: str,
        *,
        returncode: int | None = None,
        close_code: int | None = None,
        close_reason: str | None = None,
        stderr: str = "",
    ) -> None:
        super().__init__(message)
        self.returncode = returncode
        self.close_code = close_code
        self.close_reason = close_reason
        self.stderr = stderr


class ClusterLost(TroupeError):
    """The cluster that places the run's nodes is gone (Ray's GCS, or this machine's raylet):
    no node can be placed or kept, so the run ends; the text names what died."""


class NodeCrashed(TroupeError):
    """A hosted actor crashed, so its node stops."""


class UnknownActor(TroupeError, LookupError):
    """An envelope named an actor the node does not host."""


class RestartIntensityExceeded(TroupeError):
    """Restarts came too fast: the supervisor stopped its children and gave up.

    `__cause__` is the exception of the last crash (None if that child exited
    normally or was restarted on request).
    """


# --- errors as text -------------------------------------------------------------------


def first_error(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups, or `exc` itself.

    A task group wraps whatever its tasks raised; "ExceptionGroup: unhandled
    errors in a TaskGroup (3 sub-exceptions)" hides what happened. The first
    leaf that is an `Exception` is the one worth naming: the others are
    cancellations and exits, consequences of it.
    """
    if not isinstance(exc, BaseExceptionGroup):
        return exc
    leaves = [first_error(inner) for inner in exc.exceptions]
    real = [leaf for leaf in leaves if isinstance(leaf, Exception)]
    return (real or leaves)[0]


def describe(exc: BaseException) -> str:
    """`Class: text` of the first real error: what a log line or a record says about a failure."""
    error = first_error(exc)
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


# --- the wire -------------------------------------------------------------------------

_KEPT_ACROSS_THE_WIRE: dict[str, type[ActorError]] = {kind.__name__: kind for kind in (ActorCrashed, RequestRefused)}
"""The errors that arrive as themselves. Whatever else failed over there arrives
as an ActorCrashed naming the original class: the caller can do nothing more
with it, and an ActorStopped of a node's actor must not look like the node
connection itself stopping (a SupervisedRef would wait for a restart that
never comes)."""


def to_failure(exc: BaseException) -> Failure:
    """The wire form of an exception: its class name and its text.

    An ActorError's text starts with the actor's name; it is left out here
    because `from_failure` on the caller's side puts it back.
    """
    exc = first_error(exc)
    text = str(exc)
    if isinstance(exc, ActorError) and text.startswith(f"{exc.actor}: "):
        text = text[len(exc.actor) + 2:]
    return Failure(error=type(exc).__name__, message=text)


def from_failure(actor: str, failure: Failure) -> ActorError:
    """The error a caller of `actor` gets for a `Failure` that came back over the wire."""
    kind = _KEPT_ACROSS_THE_WIRE.get(failure.error)
    if kind is None:
        return ActorCrashed(actor, f"{failure.error}: {failure.message}")
    return kind(actor, failure.message)
