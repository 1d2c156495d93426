"""The node app for simulated VMs: `python -m runtime.node --app actors.backends.sim.node:build`."""

from actors.observer import Observer
from actors.backends.sim.vm import SimVM
from actors.vm_controller import VMController


def build() -> list:
    """A VMController and an Observer sharing one simulated screen."""
    vm = SimVM()
    return [VMController(vm), Observer(vm)]
