"""Every error troupe defines for its callers, in any module, derives from the one base."""

import importlib
import inspect
import pkgutil

import actors
import bench
from protocols import TroupeError

PRIVATE = "_"
STANDARD_LIBRARY_ONLY = {"bench.installation.ForeignPackageError"}
"""Raised before troupe's own packages may be imported (one of them may be another distribution's),
so it cannot derive from TroupeError; it is an ImportError, as what it reports is."""


def defined_exceptions():
    for package in (actors, bench):
        for module_info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if ".windows." in module_info.name or module_info.name.endswith("__main__"):
                continue  # the Windows backend imports Windows-only packages
            module = importlib.import_module(module_info.name)
            for name, value in vars(module).items():
                if (inspect.isclass(value) and issubclass(value, BaseException)
                        and value.__module__ == module.__name__ and not name.startswith(PRIVATE)):
                    yield f"{module.__name__}.{name}", value


def test_every_public_exception_of_actors_and_bench_is_a_troupe_error():
    outside = sorted(name for name, kind in defined_exceptions()
                     if not issubclass(kind, TroupeError) and name not in STANDARD_LIBRARY_ONLY)
    assert outside == []
