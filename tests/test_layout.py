"""The dependency arrow points down only: protocols <- runtime <- actors <- bench."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
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
