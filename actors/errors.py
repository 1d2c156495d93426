"""Errors of the run as a whole, as opposed to failures of one episode."""

from __future__ import annotations

from runtime.errors import TroupeError

__all__ = ["ConfigurationError"]


class ConfigurationError(TroupeError):
    """A configuration or programming error that no retry can fix (a VM slot
    that cannot be called as one, a backend that cannot run on this event
    loop). It stops the run before any episode; the text is one line saying
    what to change."""
