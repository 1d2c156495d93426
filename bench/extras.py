"""The optional parts of the troupe-bench distribution, and the one line that says which to install.

The core install runs the runtime, the CLI, the viewer and the sim suite; a
suite or feature whose libraries come with an extra checks for them before
it imports anything, so a missing one ends in one `error:` line naming the
extra instead of an ImportError from deep inside a node process.
"""

from __future__ import annotations

import importlib.util
import sys

from actors.errors import ConfigError
from bench.installation import DISTRIBUTION

__all__ = ["EXTRAS", "install_hint", "missing", "require"]

# extra -> the top-level modules it installs that troupe imports (pyproject.toml lists their distributions;
# tests/bench/test_extras.py checks that the two agree)
EXTRAS: dict[str, tuple[str, ...]] = {
    "web": ("playwright", "miniwob"),
    "desktop": ("mss", *(("Xlib", "jeepney") if sys.platform == "linux" else ()),
                *(("uiautomation", "pyautogui") if sys.platform == "win32" else ())),
    "waa": ("playwright", "numpy", "openpyxl", "pandas", "formulas", "docx", "odf", "py7zr", "cv2", "soundfile",
            "soxr", "fastdtw", "rapidfuzz", "pymupdf", "pypdf", "LnkParse3"),
    "osworld": ("playwright", "tldextract", "openpyxl", "pandas", "docx", "pptx", "pymupdf", "pypdf", "imagehash",
                "mutagen", "rapidfuzz", "numpy", "odf", "PIL", "cv2", "soundfile", "soxr", "fastdtw", "lxml",
                "cssselect", "yaml", "formulas", "bs4"),
    "mind2web": ("pyarrow",),
    "analysis": ("pandas",),
    "ray": ("ray",),
}


def install_hint(extra: str) -> str:
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def missing(extra: str) -> list[str]:
    """The modules of `extra` that cannot be imported here."""
    return [name for name in EXTRAS[extra] if importlib.util.find_spec(name) is None]


def require(extra: str, what: str) -> None:
    """Raise ConfigError naming the extra when one of its modules is missing."""
    absent = missing(extra)
    if absent:
        partly = f" (missing: {', '.join(absent)})" if len(absent) < len(EXTRAS[extra]) else ""
        raise ConfigError(f"{what} needs the [{extra}] extra: {install_hint(extra)}{partly}")
