"""Actors for node tests; `python -m runtime.node --app tests.node_apps:build` hosts them."""

from __future__ import annotations

import os
from pathlib import Path

import anyio

from actors.backends.sim.vm import SimVM
from actors.observer import Observer
from actors.vm_controller import VMController
from protocols import Acted, Inspect, Inspected, Observation, Observe, Observed
from runtime.actor import Actor
from runtime.errors import Refused
from runtime.seats import seat_name


class Echo(Actor):
    """Replies with the message it was asked (Observe: an observation of `step` bytes)."""

    def __init__(self, name: str = "echo") -> None:
        super().__init__(name)

    async def handle(self, message):
        if isinstance(message, Observe):
            if not 0 <= message.step <= 16 * 2**20:  # property tests send any step
                raise Refused(f"step {message.step} is not a screenshot size this echo makes")
            return Observed(observation=Observation(screenshot=b"\x89PNG" + bytes(message.step), url="about:echo"))
        return message


NEVER = 10**9
"""The step an Observe to `Slow` carries to never be answered (steps are not negative)."""


class Slow(Actor):
    """Observe(step=n) answers after n tenths of a second (never, if n is NEVER)."""

    def __init__(self) -> None:
        super().__init__("slow")

    async def handle(self, message):
        if isinstance(message, Observe):
            if message.step >= NEVER:
                await anyio.sleep_forever()
            await anyio.sleep(message.step / 10)
        return None  # the node replies Ack


class Keeper(Actor):
    """Records tells; `Inspect` returns them. `Inspect(spec={"refuse": ...})` refuses,
    `Inspect(spec={"crash": ...})` crashes the actor (and with it, the node)."""

    def __init__(self) -> None:
        super().__init__("keeper")
        self.steps: list[int] = []

    async def handle(self, message):
        if isinstance(message, Observe):
            self.steps.append(message.step)
            return None
        if isinstance(message, Inspect):
            if "refuse" in message.spec:
                raise Refused(message.spec["refuse"])
            if "crash" in message.spec:
                raise RuntimeError(message.spec["crash"])
            return Inspected(state={"steps": self.steps})
        if isinstance(message, Acted):
            return {"not": "a protocols message"}
        raise Refused(f"keeper does not handle {type(message).__name__}")


class Lifecycle(Slow):
    """`Slow`, counting its starts and stops: a node runs it again when it is stuck on an abandoned ask."""

    def __init__(self) -> None:
        super().__init__()
        self.starts = self.stops = 0

    async def on_start(self) -> None:
        self.starts += 1

    async def on_stop(self) -> None:
        self.stops += 1


class Named(Actor):
    """`Inspect` returns its name: which seat's actor a host reached."""

    async def handle(self, message):
        if isinstance(message, Inspect):
            return Inspected(state={"name": self.name})
        raise Refused(f"{self.name} does not handle {type(message).__name__}")


def build():
    return [Echo(), Slow(), Keeper()]


class SlowToStop(Actor):
    """Stops cleanly, but slowly: `TROUPE_TEST_STOP_SECONDS` after it is told to stop it writes the
    file `TROUPE_TEST_STOPPED` names, which a node killed before then never does."""

    def __init__(self) -> None:
        super().__init__("slow-to-stop")
        self.shutdown_timeout = 60.0

    async def handle(self, message):
        return message

    async def on_stop(self) -> None:
        await anyio.sleep(float(os.environ["TROUPE_TEST_STOP_SECONDS"]))
        Path(os.environ["TROUPE_TEST_STOPPED"]).write_text("stopped cleanly")


def build_slow_to_stop():
    return [SlowToStop()]


def build_seated(seats: int):
    """A `vm` per seat (`python -m runtime.node --seats N`)."""
    return [Named(seat_name("vm", seat)) for seat in range(seats)]


class SeatVM(SimVM):
    """A simulated VM that names its seat as the screen's app, so a run's steps say where they ran."""

    def __init__(self, seat: str) -> None:
        super().__init__()
        self.seat = seat

    async def details(self) -> dict:
        return {**await super().details(), "app_name": self.seat}


def build_sim(seats: int):
    """Simulated VMs, a seat each (`python -m runtime.node --seats N`)."""
    vms = [SeatVM(seat_name("sim", seat)) for seat in range(seats)]
    return [actor for seat, vm in enumerate(vms)
            for actor in (VMController(vm, seat_name("vm", seat)), Observer(vm, name=seat_name("observer", seat)))]


def build_broken(seats: int | None = None):
    raise RuntimeError("this app cannot be built: missing display :99")
