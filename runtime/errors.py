"""The ways a conversation with an actor can fail, as the caller sees them."""


class ActorError(Exception):
    """Base of every error a caller can get back from `tell` or `ask`."""

    def __init__(self, actor: str, message: str) -> None:
        super().__init__(f"{actor}: {message}")
        self.actor = actor


class ActorCrashed(ActorError):
    """The actor died while the request was in its mailbox or being handled."""


class ActorStopped(ActorError):
    """The actor is not running (stopped, or its node connection is gone)."""


class Refused(Exception):
    """Raised by a handler to reject one request without crashing the actor.

    The caller gets it back (as `RequestRefused`); the actor goes on serving.
    """


class RequestRefused(ActorError):
    """The actor refused the request; the text says why."""
