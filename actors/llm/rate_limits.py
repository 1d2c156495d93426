"""How long a model service asks to be left alone, and whether it wants a retry at all.

A refused or failed call may say so in its headers, in the words of the provider's own SDKs:
`retry-after-ms` (OpenAI, Anthropic) or Retry-After (seconds, or an HTTP date) say how long to
wait; a 429 without either may still say when the exhausted limit resets, OpenAI as a duration
(`x-ratelimit-reset-requests: 6m0s`, beside `x-ratelimit-remaining-requests: 0`), Anthropic as
a time (`anthropic-ratelimit-tokens-reset: 2026-01-01T00:00:30Z`); `x-should-retry` overrides
the client's own judgement either way. Waiting as asked rather than by a guessed backoff keeps a
run that shares a rate limit from spending its retries in the same second.
"""

from __future__ import annotations

import datetime
import email.utils
import re
import time
from collections.abc import Mapping

__all__ = ["should_retry", "wait_asked"]

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
_LIMITS = ("requests", "tokens", "input-tokens", "output-tokens")


def wait_asked(headers: Mapping[str, str]) -> float | None:
    """Seconds the answer asks to wait before the next attempt; None when it does not say."""
    try:
        return max(0.0, float(headers["retry-after-ms"]) / 1000)
    except (KeyError, ValueError):
        pass
    value = headers.get("retry-after")
    if value is not None:
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
        try:
            return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            pass
    resets = [_reset(headers, limit) for limit in _LIMITS]
    known = [seconds for seconds in resets if seconds is not None]
    return max(known) if known else None


def should_retry(headers: Mapping[str, str]) -> bool | None:
    """The service's own word on retrying this answer (`x-should-retry`); None when it gives none."""
    value = headers.get("x-should-retry", "").strip().lower()
    return {"true": True, "false": False}.get(value)


def _reset(headers: Mapping[str, str], limit: str) -> float | None:
    """Seconds until the `limit` resets, when the answer says it is exhausted."""
    for remaining, reset, seconds in (
            (f"x-ratelimit-remaining-{limit}", f"x-ratelimit-reset-{limit}", _duration),
            (f"anthropic-ratelimit-{limit}-remaining", f"anthropic-ratelimit-{limit}-reset", _until)):
        if remaining in headers and reset in headers:
            return seconds(headers[reset]) if headers[remaining].strip() == "0" else None
    return None


def _duration(text: str) -> float | None:
    """`6m0s`, `1.5s`, `20ms` as seconds."""
    parts = _DURATION.findall(text.strip())
    if not parts or "".join(number + unit for number, unit in parts) != text.strip():
        return None
    return sum(float(number) * _SECONDS[unit] for number, unit in parts)


def _until(stamp: str) -> float | None:
    """Seconds until an RFC 3339 time."""
    try:
        moment = datetime.datetime.fromisoformat(stamp.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    return max(0.0, moment.timestamp() - time.time())
