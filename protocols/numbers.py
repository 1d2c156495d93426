"""Numbers that cross a boundary: durations and counts, checked at decode.

A NaN or infinite duration from a peer (`Observe(tree_timeout=nan)`) is not a
value any handler can act on: it would turn into a crash or a wait forever
deep inside an actor. msgspec checks these constraints while decoding, so the
message is refused with the field's path before it reaches anyone. `ge=0`
already rejects NaN (every comparison with it is false); the upper bound
rejects infinity.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

__all__ = ["MAX_SECONDS", "Count", "Seconds"]

MAX_SECONDS = 1e9
"""About 32 years: longer than anything troupe waits for, and finite."""

Seconds = Annotated[float, msgspec.Meta(ge=0, le=MAX_SECONDS)]
"""A duration: finite, not negative."""

Count = Annotated[int, msgspec.Meta(ge=0)]
"""A step number or a count of things: not negative."""
