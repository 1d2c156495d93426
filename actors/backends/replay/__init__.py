"""Replaying a recording as an environment: recorded screens served step by step, no live VM."""

from actors.backends.replay.vm import RECORDED_STEPS, RecordedStep, Recording, ReplayError, ReplayVM
from actors.observer import Observer
from actors.vm_controller import VMController

__all__ = ["RECORDED_STEPS", "RecordedStep", "Recording", "ReplayError", "ReplayVM", "replay_actors"]


def replay_actors(recording: Recording) -> list:
    """A VMController and an Observer sharing one replay of `recording`."""
    vm = ReplayVM(recording)
    return [VMController(vm), Observer(vm)]
