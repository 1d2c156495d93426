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


def load(path: Path, stubs: dict[str, tuple[str, ...]], modules: dict[str, types.ModuleType] | None = None,
         package: str | None = None) -> types.ModuleType:
    """The module in `path`, its `stubs` (and the real `modules` it imports by OSWorld's package
    names) in sys.modules only while it is imported; `package`: the package its relative imports name."""
    modules = modules or {}
    saved = {name: sys.modules.get(name) for name in [*stubs, *modules]}
    try:
        for name, names in stubs.items():
            module = types.ModuleType(name)
            for attribute in names:
                setattr(module, attribute, _unused)
            sys.modules[name] = module
        sys.modules.update(modules)
        name = f"{package}.{path.stem}" if package else f"osworld_reference_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        for name, previous in saved.items():
            if previous is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = previous


FILE = object()
"""Marks an argument that is a file: OSWorld's function gets its path, troupe's its bytes."""


class Case:
    """One call: its arguments (FILE, data for a file) and the options."""

    def __init__(self, *arguments: Any, **options: Any) -> None:
        self.arguments, self.options = arguments, options

    def __repr__(self) -> str:
        return f"Case{self.arguments!r} {self.options!r}"

    def calls(self, folder: Path, index: int, suffix: str = ".txt") -> tuple[list[Any], list[Any]]:
        """OSWorld's arguments (a file as its path, named with `suffix`) and troupe's (a file as its bytes);
        a list argument holds its files the same way."""
        return self._files(list(self.arguments), folder, f"case{index}-", suffix)

    def _files(self, items: list[Any], folder: Path, stem: str, suffix: str) -> tuple[list[Any], list[Any]]:
        theirs, ours = [], []
        while items:
            item = items.pop(0)
            if item is FILE:
                data = items.pop(0)
                path = folder / f"{stem}{len(theirs)}{suffix}"
                path.write_bytes(data)
                theirs.append(str(path))
                ours.append(data)
            elif isinstance(item, list):
                listed = self._files(list(item), folder, f"{stem}{len(theirs)}-", suffix)
                theirs.append(listed[0])
                ours.append(listed[1])
            else:
                theirs.append(item)
                ours.append(item)
        return theirs, ours


def outcome(function: Any, arguments: list[Any], options: dict[str, Any]) -> Any:
    """The score, or "raises": OSWorld then records no score (a None score too), and troupe's checker
    an evaluation error."""
    try:
        return float(function(*arguments, **options))
    except Exception:  # noqa: BLE001 - a raise is an outcome to agree on
        return "raises"


def disagreements(reference: Any, ours: Any, cases: list[Case], folder: Path,
                  suffix: str = ".txt") -> list[tuple[Case, Any, Any]]:
    """The cases where OSWorld's function and troupe's give different outcomes."""
    found = []
    for index, case in enumerate(cases):
        theirs_args, our_args = case.calls(folder, index, suffix)
        theirs, mine = outcome(reference, theirs_args, case.options), outcome(ours, our_args, case.options)
        if theirs != mine:
            found.append((case, theirs, mine))
    return found


def assert_agrees(name: str, reference: Any, ours: Any, cases: list[Case], folder: Path, capsys: Any,
                  suffix: str = ".txt") -> None:
    """Prints how many `cases` troupe's `ours` and OSWorld's `reference` agree on, past pytest's capture,
    and fails on any that differ (files named with `suffix`: openpyxl opens only .xlsx names)."""
    differences = disagreements(reference, ours, cases, folder, suffix)
    with capsys.disabled():
        print(f"\nparity {name}: {len(cases) - len(differences)}/{len(cases)} cases agree with OSWorld's function")
    assert not differences


_IMAGING = {"cv2": (), "skimage": (), "skimage.metrics": ("structural_similarity",)}


def vlc() -> types.ModuleType:
    """metrics/vlc.py; its audio, video and image libraries, which the vlcrc checks never call, stood in."""
    return load(METRICS / "vlc.py", {**_IMAGING, "acoustid": (), "imagehash": (), "librosa": (), "numpy": (),
                                     "PIL": ("Image",), "fastdtw": ("fastdtw",), "scipy": (), "scipy.spatial": (),
                                     "scipy.spatial.distance": ("cosine",)})


def gimp() -> types.ModuleType:
    """metrics/gimp.py; its image libraries, which check_config_status never calls, stood in."""
    return load(METRICS / "gimp.py", {**_IMAGING, "numpy": (), "PIL": ("Image", "ImageChops", "ImageStat")})


def slides() -> types.ModuleType:
    """metrics/slides.py; python-pptx, which check_left_panel and check_auto_saving_time never call, stood in."""
    return load(METRICS / "slides.py", {"pptx": ("Presentation",), "pptx.util": ("Inches",),
                                        "pptx.enum": (), "pptx.enum.shapes": ("MSO_SHAPE_TYPE",)})


def general() -> types.ModuleType:
    """metrics/general.py; its two helpers from utils.py (which needs formulas and tldextract) stood in."""
    return load(METRICS / "general.py", {"desktop_env": (), "desktop_env.evaluators": (),
                                         "desktop_env.evaluators.metrics": (),
                                         "desktop_env.evaluators.metrics.utils": ("_match_record",
                                                                                  "_match_value_to_rule")})


PACKAGE = "desktop_env.evaluators.metrics"


def _with_utils(name: str) -> types.ModuleType:
    """metrics/<name>.py with its utils.py (as `desktop_env.evaluators.metrics.utils`, which it imports by
    that name or relatively); tldextract, which utils names for URL metrics these never call, stood in."""
    utils = load(METRICS / "utils.py", {"tldextract": ()})
    packages = {name: types.ModuleType(name) for name in ("desktop_env", "desktop_env.evaluators", PACKAGE)}
    return load(METRICS / f"{name}.py", {}, {**packages, f"{PACKAGE}.utils": utils}, package=PACKAGE)


def table() -> types.ModuleType:
    """metrics/table.py with its utils.py."""
    return _with_utils("table")


def general_with_utils() -> types.ModuleType:
    """metrics/general.py with its real utils.py (check_csv matches rows with utils' _match_record)."""
    return _with_utils("general")


def thunderbird() -> types.ModuleType:
    """metrics/thunderbird.py with its utils.py."""
    return _with_utils("thunderbird")


def docs() -> types.ModuleType:
    """metrics/docs.py; its OCR and colour-science libraries, which compare_docx_files never calls, stood in."""
    return load(METRICS / "docs.py", {"easyocr": (), "skimage": (), "skimage.color": ("deltaE_ciede2000", "rgb2lab")})


def _offline_tldextract() -> types.ModuleType:
    """tldextract whose `extract` reads the public suffix list the package ships (the default one
    fetches the list from the web first)."""
    import tldextract

    module = types.ModuleType("tldextract")
    module.extract = tldextract.TLDExtract(suffix_list_urls=())
    return module


def chrome() -> types.ModuleType:
    """metrics/chrome.py with its utils.py (compare_urls, are_lists_equal), tldextract kept offline; its PDF
    and image libraries, which the compared functions never call, stood in."""
    utils = load(METRICS / "utils.py", {}, {"tldextract": _offline_tldextract()})
    packages = {name: types.ModuleType(name) for name in ("desktop_env", "desktop_env.evaluators",
                                                          "desktop_env.evaluators.metrics")}
    return load(METRICS / "chrome.py", {"fitz": (), "PIL": ("Image",), "borb": (), "borb.pdf": ("Document", "PDF"),
                                        "imagehash": ()},
                {**packages, "desktop_env.evaluators.metrics.utils": utils})


def chrome_getters() -> types.ModuleType:
    """getters/chrome.py; pydrive (Google Drive, which the compared getters never call) stood in."""
    return load(REFERENCE / "desktop_env" / "evaluators" / "getters" / "chrome.py",
                {"pydrive": (), "pydrive.auth": ("GoogleAuth",),
                 "pydrive.drive": ("GoogleDrive", "GoogleDriveFileList", "GoogleDriveFile")})
