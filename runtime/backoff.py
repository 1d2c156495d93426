"""Capped exponential backoff: the one formula every retry and restart in troupe uses."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Backoff"]


@dataclass(frozen=True)
class Backoff:
    """A pause that grows with consecutive failures, up to `maximum`.

    A VM, browser or server that just failed usually needs a moment before it
    can answer again; retrying or restarting at once mostly burns attempts.
    """

    initial: float = 0.01
    factor: float = 2.0
    maximum: float = 1.0

    def delay(self, attempt: int) -> float:
        """The pause before try or restart number `attempt` (1 = the first in a row)."""
        return min(self.maximum, self.initial * self.factor ** (attempt - 1))
