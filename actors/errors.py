"""Errors of the run as a whole, as opposed to failures of one episode."""

from __future__ import annotations

from protocols import ModelCall
from runtime.errors import Refused, TroupeError

__all__ = ["ConfigError", "ModelServiceError", "NoAnswer"]


class ConfigError(TroupeError, ValueError):
    """A setting, file or programming choice that cannot work and that no retry can
    fix: an option out of range, a malformed task or LLM config file, a setup step
    a backend cannot run, a VM slot that cannot be called as one, a backend that
    cannot run on this event loop. The text is one line naming what is wrong;
    the CLI prints it as one `error:` line and exits with status 2. Raised while
    a run is planned, it stops it before anything is written."""


class ModelServiceError(TroupeError):
    """The model a policy calls failed for a reason the agent did not cause: it could not be
    reached or kept failing past its retries, refused the key, or has no such model. A policy
    raises it to end the episode as a `model_service` error, never an agent failure."""

    calls: tuple[ModelCall, ...] = ()
    """The model calls made for the request that failed, the failed one last, for the transcript."""


class NoAnswer(Refused):
    """A model gave no usable answer: it refused the request, or every reply it gave was of no use.
    The role that asked refuses that one request (an agent error, a step without a change summary,
    an episode without a classification); `calls` are the calls that tried, for the transcript."""

    def __init__(self, message: str, calls: tuple[ModelCall, ...]) -> None:
        super().__init__(message)
        self.calls = calls
