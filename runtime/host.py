"""Actors hosted in this process, by name: the in-process twin of a node.

A supervisor child that runs a set of actors together (a VMController and an
Observer sharing one screen) has one life: if any of them crashes, the host
crashes, and the supervisor restarts all of them on a fresh backend.
"""

from __future__ import annotations

from typing import Callable, Sequence

import anyio
from anyio.abc import TaskStatus

from runtime.actor import Actor, LocalRef, spawn
from runtime.loop import task_group

__all__ = ["LocalHost", "run_local_host"]


class LocalHost:
    def __init__(self, refs: dict[str, LocalRef]) -> None:
        self._refs = refs

    def ref(self, name: str) -> LocalRef:
        try:
            return self._refs[name]
        except KeyError:
            raise LookupError(f"no actor named {name!r} here; hosted: {sorted(self._refs)}") from None

    def close_if_idle(self) -> bool:
        """End every hosted actor at once if all of them wait for a letter (the host then
        returns); False, closing none, if one is busy. See `LocalRef.close_if_idle`."""
        refs = list(self._refs.values())
        if not all(ref.idle for ref in refs):
            return False
        return all([ref.close_if_idle() for ref in refs])


async def run_local_host(
    build: Callable[[], Sequence[Actor]],
    *,
    task_status: TaskStatus[LocalHost] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Spawn `build()`'s actors, report the host, and run until one of them crashes."""
    async with task_group() as tg:
        refs = {}
        for actor in build():
            refs[actor.name] = await spawn(tg, actor)
        task_status.started(LocalHost(refs))
