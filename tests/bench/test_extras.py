"""bench/extras.py names the modules of each extra pyproject.toml declares, and a missing one in one line."""

import tomllib
from importlib import metadata

import pytest
from packaging.requirements import Requirement

from actors.errors import ConfigError
from bench import extras
from bench.suites import BUILT_IN
from tests.paths import ROOT

OPTIONAL = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def _declared(extra: str) -> set[str]:
    """The distributions pyproject.toml's `extra` installs on this platform."""
    requirements = [Requirement(text) for text in OPTIONAL[extra]]
    return {r.name.lower() for r in requirements if r.marker is None or r.marker.evaluate({"extra": extra})}


@pytest.mark.parametrize("extra", sorted(extras.EXTRAS))
def test_each_extras_modules_come_from_exactly_the_distributions_pyproject_gives_it(extra):
    providers = metadata.packages_distributions()
    found = {provider.lower() for module in extras.EXTRAS[extra] for provider in providers[module]}
    declared = _declared(extra)
    assert found == declared, (f"pyproject.toml's [{extra}] installs {sorted(declared - found)} whose modules "
                               f"bench/extras.py's EXTRAS[{extra!r}] does not name; it names modules of "
                               f"{sorted(found - declared)}, which [{extra}] does not install")


def test_every_extra_of_a_built_in_suite_is_declared_and_all_holds_every_extra():
    assert {extra for _, _, extra in BUILT_IN.values() if extra} <= set(extras.EXTRAS) <= set(OPTIONAL)
    assert OPTIONAL["all"] == [f"troupe-bench[{','.join(extras.EXTRAS)}]"]


def test_a_missing_module_names_the_extra_and_what_of_it_is_missing(monkeypatch):
    monkeypatch.setitem(extras.EXTRAS, "waa", ("openpyxl", "no_such_module_here"))
    with pytest.raises(ConfigError) as raised:
        extras.require("waa", "the waa suite")
    assert str(raised.value) == ("the waa suite needs the [waa] extra: pip install 'troupe-bench[waa]' "
                                 "(missing: no_such_module_here)")
    extras.require("osworld", "the osworld suite")  # nothing to miss
