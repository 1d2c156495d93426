"""One cheap call before a run spends its suite: is the model there, and does it take the key?

A wrong key, an unknown model or a service that cannot be reached fails every
episode the same way; finding it first turns a run of identical failures into
one clear error. Any other refusal (a 400 about the request's shape) means the
service answered and accepted key and model, so the run goes on.
"""

from __future__ import annotations

import logging
from typing import Any, Awaitable

from actors.errors import ModelServiceError
from actors.llm.client import LLMClient, LLMRequestError

__all__ = ["PREFLIGHT_PROMPT", "confirm", "preflight"]

logger = logging.getLogger(__name__)

PREFLIGHT_PROMPT = "This is a connectivity check. Reply with the word OK."


async def preflight(client: LLMClient) -> None:
    """Raise the client's `ModelServiceError` when the model cannot serve the run."""
    await confirm(client.complete([{"role": "user", "content": PREFLIGHT_PROMPT}], max_tokens=1))


async def confirm(check: Awaitable[Any]) -> None:
    """Await `check`, one cheap call to whatever API a role speaks: raise its
    `ModelServiceError`; a refusal of the check itself is logged and the run goes on."""
    try:
        await check
    except ModelServiceError:
        raise
    except LLMRequestError as exc:
        logger.warning("LLM preflight: the service answered but refused the check itself (%s); going on", exc)
