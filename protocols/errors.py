"""The base of every exception troupe raises on purpose, and the one the data layer raises.

The base lives here, in the bottom layer, so that every layer's errors can
derive from it; `runtime.errors` holds all the others and re-exports both.
"""

__all__ = ["ProtocolError", "TroupeError"]


class TroupeError(Exception):
    """Base of every exception troupe raises on purpose: `except TroupeError` catches
    what troupe itself decided was wrong, and lets programming errors through."""


class ProtocolError(TroupeError):
    """Bytes that are not a valid message; the text says what was wrong."""
