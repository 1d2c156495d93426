"""How a simulated VM and LLM behave: latency distributions and injected failures.

The configuration travels inside the task (`raw_config["sim"]`), so a node
hosting simulated VMs needs no configuration of its own and every episode can
be given its own faults.
"""

from __future__ import annotations

import random
import zlib
from typing import Annotated, Any, Literal

import msgspec

from protocols import Action
from protocols.numbers import Seconds

_Factor = Annotated[float, msgspec.Meta(ge=0, le=1e6)]
"""A multiplier: finite and not negative (a NaN scale would make every sleep fail)."""


class Latency(msgspec.Struct, frozen=True, omit_defaults=True):
    """Seconds an operation takes: `mean`, spread by `jitter` (a fraction of it)."""

    mean: Seconds = 0.0
    jitter: _Factor = 0.0
    distribution: Literal["fixed", "uniform", "lognormal"] = "fixed"

    def sample(self, rng: SeededRandom, scale: float) -> float:
        if self.mean <= 0:
            return 0.0
        if self.distribution == "fixed" or self.jitter == 0:
            seconds = self.mean
        elif self.distribution == "uniform":
            seconds = rng.uniform(self.mean * (1 - self.jitter), self.mean * (1 + self.jitter))
        else:
            seconds = self.mean * rng.lognormvariate(0.0, self.jitter)
        return max(0.0, seconds * scale)


class Fault(msgspec.Struct, frozen=True, omit_defaults=True):
    """One injected VM failure: at `step` (or with `rate` per step) on the given attempts.

    `attempts` empty means every attempt, so a fault that never clears can
    exhaust the retries and show the environment-error path.
    """

    kind: Literal["crash", "hang", "slow", "tree_hang"]
    step: int | None = None
    rate: float = 0.0
    attempts: tuple[int, ...] = ()
    slow_factor: _Factor = 10.0

    def fires(self, step: int, attempt: int, rng: SeededRandom) -> bool:
        if self.attempts and attempt not in self.attempts:
            return False
        if self.step is not None:
            return step == self.step
        return self.rate > 0 and rng.random() < self.rate


class SimLatencies(msgspec.Struct, frozen=True, omit_defaults=True):
    """Defaults are the realistic figures of a Windows VM with a hosted LLM."""

    reset: Latency = Latency(1.0)
    act: Latency = Latency(0.2)
    screenshot: Latency = Latency(0.05)
    tree: Latency = Latency(0.5)
    agent: Latency = Latency(2.0)
    summarizer: Latency = Latency(1.5)


class SimConfig(msgspec.Struct, frozen=True, omit_defaults=True):
    """`scale` multiplies every latency, so benchmarks keep the ratios and run fast.

    `layout` is the window's widgets; `agent_error_rate` is the chance the
    simulated agent picks a wrong element at a step; `script`, when given,
    replaces the agent's own choices; `screenshot_bytes` pads screenshots to a
    realistic size. `screens` is "drawn" (the window drawn as a form, each
    widget at its bbox: actors.backends.sim.draw, ~3 ms a new frame) or
    "plain" (a 64x40 frame of one colour per screen state, tens of us): plain is
    for measuring the runtime's own CPU, which drawing would swamp.
    """

    layout: tuple[dict[str, str], ...] = ()
    seed: int = 0
    scale: _Factor = 1.0
    latencies: SimLatencies = SimLatencies()
    faults: tuple[Fault, ...] = ()
    agent_error_rate: float = 0.0
    script: tuple[Action, ...] = ()
    screenshot_bytes: int = 0
    screens: Literal["drawn", "plain"] = "drawn"


class SeededRandom:
    """A `random.Random` that depends only on a seed and `parts`, never on process hash salt,
    made on its first draw.

    The simulated agent and judge take one at every step, and most steps draw
    nothing (no jitter, no error rate): seeding a Mersenne Twister costs ~6.5 us,
    13 us a step, a seventh of the simulated work per step in bench/perf/pipeline."""

    __slots__ = ("_parts", "_random")

    def __init__(self, *parts: object) -> None:
        self._parts = parts
        self._random: random.Random | None = None

    def __getattr__(self, name: str) -> Any:
        if self._random is None:
            self._random = random.Random(zlib.crc32(repr(self._parts).encode()))
        return getattr(self._random, name)


def seeded_rng(config: SimConfig, *parts: object) -> SeededRandom:
    """A generator that depends only on the seed and `parts`."""
    return SeededRandom(config.seed, *parts)


def sim_config(raw_config: dict) -> SimConfig:
    """Read a task's simulation settings, raising a ValidationError that names the field."""
    return msgspec.convert(raw_config.get("sim", {}), SimConfig)
