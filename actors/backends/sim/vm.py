"""A simulated VM: the `World` behind VMController and Observer, with latency and faults.

Faults are real failures of the actor hosting it: a crash raises out of the
handler (the actor, or the node process, dies), a hang never answers (only a
call timeout gets the episode out), a slow step takes `slow_factor` times
longer.
"""

from __future__ import annotations

import anyio

from protocols import Acted, Action, Task, UIElement, Viewport, TroupeError
from runtime.errors import Refused

from actors.backends.sim.config import Fault, SimConfig, seeded_rng, sim_config
from actors.backends.sim.draw import draw_png
from actors.backends.sim.png import solid_png
from actors.backends.sim.world import TITLE, VIEWPORT, World

_PLAIN_SIZE = (64, 40)
_FRAMES_KEPT = 256
"""Frames a VM keeps, by screen state: its recent episodes' (a layout's first screen recurs in
every episode), ~2.5 MB drawn, so a VM that lives for a whole run stays small."""


class SimCrash(TroupeError, RuntimeError):
    """The injected crash of a simulated VM."""


class SimVM:
    def __init__(self) -> None:
        self._world: World | None = None
        self._config = SimConfig()
        self._rng = seeded_rng(self._config)
        self._attempt = 1
        self._step = 0
        self._screenshots: dict[tuple[bytes, str, int], bytes] = {}

    @property
    def world(self) -> World:
        if self._world is None:
            raise Refused("the simulated VM has not been reset to a task yet")
        return self._world

    async def reset(self, task: Task, attempt: int) -> None:
        try:
            config = sim_config(task.raw_config)
            world = World.from_layout(list(config.layout))
        except (ValueError, KeyError) as exc:  # the request's bad config, not a broken VM
            raise Refused(f"task {task.task_id}: malformed sim config: {type(exc).__name__}: {exc}") from None
        self._config = config
        self._rng = seeded_rng(self._config, task.task_id, attempt)
        self._attempt = attempt
        self._step = 0
        await self._spend(self._config.latencies.reset.sample(self._rng, self._config.scale))
        self._world = world

    async def act(self, step: int, action: Action) -> Acted:
        world = self.world
        self._step = step
        seconds = self._config.latencies.act.sample(self._rng, self._config.scale)
        for fault in self._firing("crash", "hang", "slow"):
            if fault.kind == "crash":
                raise SimCrash(f"simulated VM crashed at step {step} (attempt {self._attempt})")
            if fault.kind == "hang":
                await anyio.sleep_forever()
            seconds *= fault.slow_factor
        await self._spend(seconds)
        return Acted(duration=seconds, error=world.apply(action))

    async def inspect(self, spec: dict) -> dict:
        return self.world.state()

    async def screenshot(self) -> tuple[bytes, Viewport]:
        world = self.world
        await self._spend(self._config.latencies.screenshot.sample(self._rng, self._config.scale))
        fingerprint = world.fingerprint()
        key = (fingerprint, self._config.screens, self._config.screenshot_bytes)  # tasks may differ in both
        png = self._screenshots.get(key)
        if png is None:
            if len(self._screenshots) >= _FRAMES_KEPT:
                del self._screenshots[next(iter(self._screenshots))]  # the oldest
            png = self._screenshots[key] = self._picture(world, fingerprint)
        return png, VIEWPORT

    def _picture(self, world: World, fingerprint: bytes) -> bytes:
        pad_to = self._config.screenshot_bytes
        if self._config.screens == "plain":
            return solid_png(*_PLAIN_SIZE, tuple(fingerprint[:3]), pad_to=pad_to)  # one colour per screen state
        return draw_png(world, pad_to=pad_to)

    async def tree(self) -> UIElement | None:
        world = self.world
        if self._firing("tree_hang"):
            await anyio.sleep_forever()
        await self._spend(self._config.latencies.tree.sample(self._rng, self._config.scale))
        return world.tree()

    async def details(self) -> dict:
        focused = self.world.focused
        return {"window_title": TITLE, "app_name": "sim",
                "focused_element": focused.node_id if focused else None}

    def _firing(self, *kinds: str) -> list[Fault]:
        return [f for f in self._config.faults if f.kind in kinds and f.fires(self._step, self._attempt, self._rng)]

    @staticmethod
    async def _spend(seconds: float) -> None:
        if seconds > 0:
            await anyio.sleep(seconds)
