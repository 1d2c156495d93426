"""Package names imported when first asked for, so that importing one submodule stays cheap.

A node process imports one backend (or one suite's node app) each time it
starts; a package `__init__` that imported its whole public surface would make
every node pay for the runner, the harness and their libraries.
"""

from __future__ import annotations

import importlib
import sys
from typing import Callable


def lazy_exports(package: str, homes: dict[str, tuple[str, ...]]) -> tuple[list[str], Callable, Callable]:
    """`__all__`, `__getattr__` and `__dir__` for `package`, whose public names live in the
    modules `homes` maps to them."""
    home_of = {name: module for module, names in homes.items() for name in names}
    public = sorted(home_of)

    def __getattr__(name: str) -> object:
        module = home_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # asked once
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(public))

    return public, __getattr__, __dir__
