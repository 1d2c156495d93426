"""OSWorld's own evaluator modules, loaded from ../shared/osworld/reference for parity tests only.

A module is loaded from its file with the imports it names but the compared
functions never call stood in (`stubs`: module name -> names it must offer),
so a test needs neither OSWorld's package nor its heavy dependencies. The
product never imports any of this.
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
import sys
import types
from pathlib import Path
from typing import Any, Iterator

from bench.formats.task_folder import read_task
from bench.suites.osworld.cached_file import CachedFile
from bench.suites.osworld.checker import OSWorldChecker
from protocols import Evaluate

from tests.paths import ROOT

REFERENCE = ROOT.parent / "shared" / "osworld" / "reference"
METRICS = REFERENCE / "desktop_env" / "evaluators" / "metrics"
EXAMPLES = ROOT.parent / "shared" / "osworld" / "evaluation_examples" / "examples"


def _unused(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a stood-in import was called: the parity test reaches code it does not compare")


def _restore(saved: dict[str, types.ModuleType | None]) -> None:
    """sys.modules as `saved` had it: a name it had no module for is taken out."""
    for name, previous in saved.items():
        if previous is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = previous


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
        _restore(saved)


FILE = object()
"""Marks an argument that is a file: OSWorld's function gets its path, troupe's its bytes."""


class Named:
    """A file whose name's suffix matters (OSWorld's readers pick a format by it), as an argument or
    within a list argument: OSWorld's function gets its path, troupe's its bytes named as the file
    (a CachedFile, as troupe's checker hands a file getter's value)."""

    def __init__(self, data: bytes, suffix: str) -> None:
        self.data, self.suffix = data, suffix

    def __repr__(self) -> str:
        return f"Named({self.data[:20]!r}..., {self.suffix!r})"


class Case:
    """One call: its arguments (FILE, data for a file) and the options."""

    def __init__(self, *arguments: Any, **options: Any) -> None:
        self.arguments, self.options = arguments, options

    def __repr__(self) -> str:
        return f"Case{self.arguments!r} {self.options!r}"

    def calls(self, folder: Path, index: int, suffix: str = ".txt") -> tuple[list[Any], list[Any]]:
        """OSWorld's arguments (a file as its path, named with `suffix`) and troupe's (a file as its bytes)."""
        theirs, ours = [], []
        written = 0

        def write(data: bytes, suffix: str) -> Path:
            nonlocal written
            path = folder / f"case{index}-{written}{suffix}"
            written += 1
            path.write_bytes(data)
            return path

        def place(item: Any) -> tuple[Any, Any]:
            if isinstance(item, Named):
                path = write(item.data, item.suffix)
                return str(path), CachedFile(item.data, path.name, {})
            if isinstance(item, list):
                pairs = [place(inner) for inner in item]
                return [pair[0] for pair in pairs], [pair[1] for pair in pairs]
            return item, item

        items = list(self.arguments)
        while items:
            item = items.pop(0)
            if item is FILE:
                data = items.pop(0)
                theirs_item, our_item = str(write(data, suffix)), data
            else:
                theirs_item, our_item = place(item)
            theirs.append(theirs_item)
            ours.append(our_item)
        return theirs, ours


def outcome(function: Any, arguments: list[Any], options: dict[str, Any]) -> Any:
    """The score, or "raises": OSWorld then records no score (a None score too), and troupe's checker
    an evaluation error."""
    try:
        return float(function(*arguments, **options))
    except Exception:  # noqa: BLE001 - a raise is an outcome to agree on
        return "raises"


def _same(theirs: Any, mine: Any, tolerance: float) -> bool:
    if isinstance(theirs, float) and isinstance(mine, float):
        return math.isclose(theirs, mine, rel_tol=0.0, abs_tol=tolerance)
    return theirs == mine


def disagreements(reference: Any, ours: Any, cases: list[Case], folder: Path, suffix: str = ".txt",
                  tolerance: float = 0.0, seen: set[Any] | None = None) -> list[tuple[Case, Any, Any]]:
    """The cases where OSWorld's function and troupe's give different outcomes (scores further apart
    than `tolerance`; OSWorld's outcomes added to `seen`)."""
    found = []
    for index, case in enumerate(cases):
        theirs_args, our_args = case.calls(folder, index, suffix)
        theirs, mine = outcome(reference, theirs_args, case.options), outcome(ours, our_args, case.options)
        if seen is not None:
            seen.add(theirs)
        if not _same(theirs, mine, tolerance):
            found.append((case, theirs, mine))
    return found


def assert_agrees(name: str, reference: Any, ours: Any, cases: list[Case], folder: Path, capsys: Any,
                  suffix: str = ".txt", tolerance: float = 0.0) -> set[Any]:
    """Prints how many `cases` troupe's `ours` and OSWorld's `reference` agree on, past pytest's capture,
    and fails on any that differ (files named with `suffix`: openpyxl opens only .xlsx names; scores
    within `tolerance`: where troupe computes on numpy what the reference's libraries round otherwise);
    returns the outcomes OSWorld's function gave."""
    seen: set[Any] = set()
    report_parity(capsys, name, len(cases), disagreements(reference, ours, cases, folder, suffix, tolerance, seen))
    return seen


def report_parity(capsys: Any, name: str, total: int, differences: list[Any], against: str = "OSWorld's function",
                  counted: str = "cases") -> None:
    """Prints how many of `total` cases troupe's `name` and OSWorld's agree on, past pytest's capture, and fails
    on the `differences`."""
    with capsys.disabled():
        print(f"\nparity {name}: {total - len(differences)}/{total} {counted} agree with {against}")
    assert not differences


async def task_scores(task_id: str, reference: types.ModuleType, result: bytes, folder: Path,
                      suffix: str, gold: bytes | list[bytes] | None = None) -> tuple[Any, Any]:
    """What the task's own evaluator (one function; a file as its result, a rule, nothing or the `gold`
    file(s) as its expected value) makes of `result`: OSWorld's function from `reference` and troupe's
    checker, each "raises" or a score."""
    domain, _, stem = task_id.partition("/")
    task = read_task(EXAMPLES / domain / f"{stem}.json", domain)
    spec = task.evaluation_spec
    if gold is None:
        expected = arguments = [spec["expected"]["rules"]] if "expected" in spec else []
    else:
        expected = [gold]
        arguments = [[Named(g, suffix) for g in gold] if isinstance(gold, list) else Named(gold, suffix)]
    theirs_args, _ = Case(FILE, result, *arguments).calls(folder, 0, suffix)
    theirs = outcome(getattr(reference, spec["func"]), theirs_args, spec.get("options", {}))
    try:
        verdict = await OSWorldChecker().check(Evaluate(task=task, episode_id="e", steps=(),
                                                        vm_state={"result": [result], "expected": expected}))
    except Exception:  # noqa: BLE001 - a raise is an outcome to agree on
        return theirs, "raises"
    return theirs, verdict.score


_IMAGING = {"cv2": (), "skimage": (), "skimage.metrics": ("structural_similarity",)}


def vlc() -> types.ModuleType:
    """metrics/vlc.py; its audio, video and image libraries, which the vlcrc checks never call, stood in."""
    return load(METRICS / "vlc.py", {**_IMAGING, "acoustid": (), "imagehash": (), "librosa": (), "numpy": (),
                                     "PIL": ("Image",), "fastdtw": ("fastdtw",), "scipy": (), "scipy.spatial": (),
                                     "scipy.spatial.distance": ("cosine",)})


def gimp() -> types.ModuleType:
    """metrics/gimp.py; its image libraries, which check_config_status never calls, stood in."""
    return load(METRICS / "gimp.py", {**_IMAGING, "numpy": (), "PIL": ("Image", "ImageChops", "ImageStat")})


def gimp_images() -> types.ModuleType:
    """metrics/gimp.py with its image libraries (Pillow, numpy, OpenCV, scikit-image's SSIM)."""
    return load(METRICS / "gimp.py", {})


def slides_pptx() -> types.ModuleType:
    """metrics/slides.py with python-pptx."""
    return load(METRICS / "slides.py", {})


def info_getters() -> types.ModuleType:
    """getters/info.py (get_vm_wallpaper, which asks `env.controller.get_vm_wallpaper`)."""
    return load(REFERENCE / "desktop_env" / "evaluators" / "getters" / "info.py", {})


def slides() -> types.ModuleType:
    """metrics/slides.py; python-pptx, which check_left_panel and check_auto_saving_time never call, stood in."""
    return load(METRICS / "slides.py", {"pptx": ("Presentation",), "pptx.util": ("Inches",),
                                        "pptx.enum": (), "pptx.enum.shapes": ("MSO_SHAPE_TYPE",)})


def general() -> types.ModuleType:
    """metrics/general.py with its utils.py (_match_record, _match_value_to_rule)."""
    return _with_utils("general")


PACKAGE = "desktop_env.evaluators.metrics"


def _with_utils(name: str, **siblings: types.ModuleType) -> types.ModuleType:
    """metrics/<name>.py with its utils.py (as `desktop_env.evaluators.metrics.utils`, which it imports by
    that name or relatively) and the `siblings` it imports relatively (by module name); tldextract, which
    utils names for URL metrics these never call, stood in."""
    utils = load(METRICS / "utils.py", {"tldextract": ()})
    packages = {name: types.ModuleType(name) for name in ("desktop_env", "desktop_env.evaluators", PACKAGE)}
    modules = {**packages, f"{PACKAGE}.utils": utils, **{f"{PACKAGE}.{sibling}": module
                                                          for sibling, module in siblings.items()}}
    return load(METRICS / f"{name}.py", {}, modules, package=PACKAGE)


def table() -> types.ModuleType:
    """metrics/table.py with its utils.py."""
    return _with_utils("table")


def thunderbird() -> types.ModuleType:
    """metrics/thunderbird.py with its utils.py."""
    return _with_utils("thunderbird")


def docs() -> types.ModuleType:
    """metrics/docs.py; its OCR library, which the compared functions never call, stood in (scikit-image's
    colour science is real: evaluate_colored_words_in_tables calls it)."""
    return load(METRICS / "docs.py", {"easyocr": ()})


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


def vlc_media() -> types.ModuleType:
    """metrics/vlc.py with its real audio, video and image libraries (librosa, scipy, fastdtw, OpenCV,
    imagehash); acoustid, which the compared functions never call, stood in."""
    return load(METRICS / "vlc.py", {"acoustid": ()})


def file_getters() -> types.ModuleType:
    """getters/file.py (get_vm_file and get_content_from_vm_file, which ask `env.controller.get_file`)."""
    return load(REFERENCE / "desktop_env" / "evaluators" / "getters" / "file.py", {})


def impress_getters() -> types.ModuleType:
    """getters/impress.py with its getters/file.py."""
    getters = "desktop_env.evaluators.getters"
    files = file_getters()
    packages = {name: types.ModuleType(name) for name in ("desktop_env", "desktop_env.evaluators", getters)}
    return load(REFERENCE / "desktop_env" / "evaluators" / "getters" / "impress.py", {},
                {**packages, f"{getters}.file": files})


def pdf() -> types.ModuleType:
    """metrics/pdf.py (check_pdf_pages), with PyMuPDF and pypdf."""
    return load(METRICS / "pdf.py", {})


def vscode() -> types.ModuleType:
    """metrics/vscode.py (compare_text_file, compare_zip_files, compare_result_files), with PyPDF2."""
    return load(METRICS / "vscode.py", {})


def basic_os() -> types.ModuleType:
    """metrics/basic_os.py (is_in_vm_clickboard, check_moved_jpgs), which imports nothing."""
    return load(METRICS / "basic_os.py", {})


def chrome_pdfs() -> types.ModuleType:
    """metrics/chrome.py with its PDF and image libraries (compare_pdfs, compare_pdf_images,
    compare_archive); borb, which no compared function calls, stood in. compare_archive imports
    `.vscode` when it runs: call it inside `metrics_package()`."""
    utils = load(METRICS / "utils.py", {}, {"tldextract": _offline_tldextract()})
    packages = {name: types.ModuleType(name) for name in ("desktop_env", "desktop_env.evaluators", PACKAGE)}
    return load(METRICS / "chrome.py", {"borb": (), "borb.pdf": ("Document", "PDF")},
                {**packages, f"{PACKAGE}.utils": utils}, package=PACKAGE)


@contextlib.contextmanager
def metrics_package() -> Iterator[None]:
    """OSWorld's metrics package importable by name while it lasts, so a function's own relative
    import at call time (`from .vscode import ...`) loads the module from the reference."""
    package = types.ModuleType(PACKAGE)
    package.__path__ = [str(METRICS)]
    modules = {"desktop_env": types.ModuleType("desktop_env"),
               "desktop_env.evaluators": types.ModuleType("desktop_env.evaluators"), PACKAGE: package}
    saved = {name: sys.modules.get(name) for name in [*modules, f"{PACKAGE}.vscode"]}
    sys.modules.update(modules)
    try:
        yield
    finally:
        _restore(saved)


def others() -> types.ModuleType:
    """metrics/others.py (compare_epub, check_mp3_meta) with the general.py and utils.py it imports
    relatively, lxml and mutagen."""
    return _with_utils("others", general=general())


def misc_getters() -> types.ModuleType:
    """getters/misc.py (rule_relativeTime), with pytz; its geolocation request, which needs the internet,
    fails at once as it does offline."""
    misc = load(REFERENCE / "desktop_env" / "evaluators" / "getters" / "misc.py", {})

    def offline(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("no internet in tests")

    misc.requests = types.SimpleNamespace(get=offline)
    return misc


def python_controller() -> types.ModuleType:
    """controllers/python.py (PythonController, which asks OSWorld's server over HTTP); the key list of
    desktop_env/actions.py, which the compared requests never read, stood in."""
    return load(REFERENCE / "desktop_env" / "controllers" / "python.py",
                {"desktop_env": (), "desktop_env.actions": ("KEYBOARD_KEYS",)})
