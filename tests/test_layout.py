"""The dependency arrow points down only: protocols <- runtime <- actors <- bench."""

import ast
import re
from pathlib import Path

import pytest
from tests.paths import ROOT

ALLOWED = {
    "protocols": {"protocols"},
    "runtime": {"protocols", "runtime"},
    "actors": {"protocols", "runtime", "actors"},
}
OURS = {"protocols", "runtime", "actors", "bench", "tests"}


def imported_packages(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found & OURS


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_what_lies_below_it(package):
    offenders = {
        str(path.relative_to(ROOT)): sorted(imported_packages(path) - ALLOWED[package])
        for path in (ROOT / package).rglob("*.py")
        if imported_packages(path) - ALLOWED[package]
    }
    assert offenders == {}


BENCHMARK_NAMES = re.compile(r"miniwob|osworld|windows agent arena|\bwaa\b", re.IGNORECASE)
VM_SERVER_PROTOCOL = ROOT / "actors" / "backends" / "waa"
"""The one place under actors/ that names a benchmark: the HTTP protocol of WAA's VM server
is an environment (any suite may drive a VM through it), not a benchmark's knowledge."""


def test_nothing_under_actors_names_a_benchmark():
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in (ROOT / "actors").rglob("*.py") if not path.is_relative_to(VM_SERVER_PROTOCOL)
        for number, line in enumerate(path.read_text().splitlines(), start=1) if BENCHMARK_NAMES.search(line)
    ]
    assert offenders == []


def test_a_suite_imports_no_other_suite():
    suites = sorted(p for p in (ROOT / "bench" / "suites").iterdir() if (p / "__init__.py").exists())
    assert {p.name for p in suites} >= {"sim", "miniwob", "desktop", "waa", "replay"}
    offenders = {}
    for suite in suites:
        for path in suite.rglob("*.py"):
            modules = imported_modules(path)
            others = {m for m in modules if m.startswith("bench.suites.") and m.split(".")[2] not in (suite.name, "base")}
            if others:
                offenders[str(path.relative_to(ROOT))] = sorted(others)
    assert offenders == {}


def imported_modules(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found
