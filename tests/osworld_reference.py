"""OSWorld's own evaluator modules, loaded from ../shared/osworld/reference for parity tests only.

A module is loaded from its file with the imports it names but the compared
functions never call stood in (`stubs`: module name -> names it must offer),
so a test needs neither OSWorld's package nor its heavy dependencies. The
product never imports any of this.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

from tests.paths import ROOT

REFERENCE = ROOT.parent / "shared" / "osworld" / "reference"
METRICS = REFERENCE / "desktop_env" / "evaluators" / "metrics"


def _unused(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a stood-in import was called: the parity test reaches code it does not compare")


def load(path: Path, stubs: dict[str, tuple[str, ...]]) -> types.ModuleType:
    """The module in `path`, its `stubs` in sys.modules only while it is imported."""
    saved = {name: sys.modules.get(name) for name in stubs}
    try:
        for name, names in stubs.items():
            module = types.ModuleType(name)
            for attribute in names:
                setattr(module, attribute, _unused)
            sys.modules[name] = module
        spec = importlib.util.spec_from_file_location(f"osworld_reference_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        for name, previous in saved.items():
            if previous is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = previous


def general() -> types.ModuleType:
    """metrics/general.py; its two helpers from utils.py (which needs formulas and tldextract) stood in."""
    return load(METRICS / "general.py", {"desktop_env": (), "desktop_env.evaluators": (),
                                         "desktop_env.evaluators.metrics": (),
                                         "desktop_env.evaluators.metrics.utils": ("_match_record",
                                                                                  "_match_value_to_rule")})
