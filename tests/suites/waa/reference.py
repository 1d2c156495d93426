"""WAA's own host-side code (../shared/waa/reference), imported for tests that compare troupe's verdicts with it.

The reference is WAA's client as WAA runs it: its metric functions
(`desktop_env.evaluators.metrics`), its getters (`...evaluators.getters`) and
`desktop_env.envs.desktop_env`, whose `DesktopEnv.evaluate()` turns getters,
metrics, `conj` and exceptions into a score. The product never imports it and
none of it is copied into the repository: tests load it from the shared folder
with the libraries its compared code paths call installed (the `test` extra).

A few of its module-level imports are libraries no compared path ever calls
and that are heavy or unmaintained (OCR models, a PDF toolkit, Google Drive,
audio fingerprints). Those alone are stood in for by stub modules, registered in
`sys.modules` under their real names only when the real library is absent; every
attribute of a stub is a callable that raises `ReferenceStubCalled`, so a path
that does reach one fails loudly instead of scoring silently.

    metrics = reference.metrics()      # skips the calling test when ../shared is absent
    metrics.compare_table(path_a, path_b, rules=[...])
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import Any

import pytest

from tests.paths import ROOT

SHARED = ROOT.parent / "shared"
WAA = SHARED / "waa"
TASKS = WAA / "evaluation_examples_windows"
CLIENT = WAA / "reference" / "src" / "win-arena-container" / "client"
METRICS_DIR = CLIENT / "desktop_env" / "evaluators" / "metrics"

STUBBED: dict[str, tuple[str, ...]] = {
    "easyocr": ("easyocr",),
    "borb": ("borb", "borb.pdf"),
    "acoustid": ("acoustid",),
    "pydrive": ("pydrive", "pydrive.auth", "pydrive.drive"),
}
"""Libraries imported at module level by the reference but called by none of the compared paths:
the top-level name, and the submodules the reference imports from."""


class ReferenceStubCalled(RuntimeError):
    """A compared path called a library this loader stands in for: the stub list is wrong."""


class StubModule(types.ModuleType):
    """A stand-in for a library the reference imports but the compared paths never call."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)

        def called(*args: Any, **kwargs: Any) -> Any:
            raise ReferenceStubCalled(
                f"{self.__name__}.{name} is a stub of tests/suites/waa/reference.py; install the real library")

        called.__name__ = name
        return called


def _stand_in(library: str, modules: tuple[str, ...]) -> None:
    if library in sys.modules or importlib.util.find_spec(library) is not None:
        return
    for name in modules:
        if name not in sys.modules:
            stub = StubModule(name, f"stub of {name} registered by tests/suites/waa/reference.py")
            stub.__path__ = []  # a package, so that its submodules can be imported from it
            sys.modules[name] = stub


def available() -> bool:
    return METRICS_DIR.is_dir()


def require() -> None:
    """Skip the calling test when the shared reference is not there (a clone without ../shared)."""
    if not available():
        pytest.skip(f"WAA's reference code is not at {CLIENT} (../shared/waa/reference)")


def load(module: str) -> types.ModuleType:
    """`desktop_env.<module>` from the reference, e.g. "evaluators.metrics.table"; skips when absent."""
    require()
    for library, modules in STUBBED.items():
        _stand_in(library, modules)
    if str(CLIENT) not in sys.path:
        sys.path.append(str(CLIENT))
    return importlib.import_module(f"desktop_env.{module}")


def metrics() -> types.ModuleType:
    """`desktop_env.evaluators.metrics`: every metric function by the name a task file gives it."""
    return load("evaluators.metrics")


def getters() -> types.ModuleType:
    """`desktop_env.evaluators.getters`: `get_<type>(env, config)` for each getter type."""
    return load("evaluators.getters")


def desktop_env() -> types.ModuleType:
    """`desktop_env.envs.desktop_env`: `DesktopEnv`, whose `evaluate()` combines getters and metrics."""
    return load("envs.desktop_env")
