"""The errors every WAA metric, getter and setup step raises, and the rule lookup that raises one,
in their own module so that the families (tables, documents, vlc, browser, ...) and
the registries in `metrics`, `getters` and `setup` share them without importing each other.

`ReferenceCrash` is how troupe keeps WAA's verdict where WAA's own metric
raises on an input a real episode can produce: WAA then records no score
(the task is an error in its run), so by default troupe files an evaluation
error too. Each such case names a fix in `FIXES`; a run that turns the fix
on scores the case instead, and the verdict's reason says the fix was used.
"""

import functools
from typing import Any, Callable

from bench.formats.reference_raises import ReferenceRaises, RuleLacks
from protocols import TroupeError


class SetupFailed(TroupeError, RuntimeError):
    """The task's steps cannot be run at all; the message names the step."""


class StepFailed(TroupeError, RuntimeError):
    """The server refused one step; WAA logs it and goes on, and so does `setup.run_steps`."""


class GetterFailed(TroupeError, RuntimeError):
    """The server refused a getter's request; the message names the getter and the answer."""


class MetricFailed(TroupeError, ValueError):
    """The task's expected value or a fetched file is not in the form the metric needs."""


FIXES: dict[str, str] = {
    "text-encoding": "compare_text_file and the VLC checks: read a file that is not UTF-8 as Latin-1 instead of "
                     "failing as WAA does",
    "jsonc": "check_json_settings: read settings.json's // and /* */ comments and trailing commas as VS Code "
             "does, and score an empty or unreadable file, or one that is not a JSON object, 0 (WAA's json.load or "
             "its dict update raises on them)",
    "missing-file": "a metric WAA runs on a value that is not there (it raises opening or searching None): "
                    "score it as an empty one",
    "unread-answer": "a getter whose command or request gave WAA no usable answer (an error instead of output, "
                     "fewer lines or bytes than it reads, a folder it cannot list): read it as the negative "
                     "answer instead of failing as WAA does",
    "unreadable-archive": "an archive that is missing, is not the kind the task asks (7z, zip) or does not open "
                          "with its password, or holds a PDF that does not read, where WAA's py7zr, zipfile or "
                          "PyPDF2 raises: zipped_folder_in_desktop reads 'false' and compare_zip_files scores 0",
    "unreadable-media": "compare_images, compare_audios, compare_videos: a result file that is not an image, audio "
                        "or video the reference libraries can decode, or an image too small for SSIM, scores 0",
}
"""Named, optional departures from WAA's verdict, each where WAA's own metric or getter raises."""


def _known(fix: str) -> str:
    if fix not in FIXES:
        raise ValueError(f"unknown fix {fix!r} (known: {sorted(FIXES)})")
    return fix


class ReferenceCrash(MetricFailed):
    """WAA's own metric raises on this input. `fix` names the entry of `FIXES`
    under which troupe scores `fixed` instead of filing an evaluation error."""

    def __init__(self, message: str, *, fix: str, fixed: float) -> None:
        self.fix, self.fixed = _known(fix), fixed
        super().__init__(f"{message} (WAA's evaluator raises here too; the fix {fix!r} would score {fixed:g})")


class GetterCrash(TroupeError, RuntimeError):
    """WAA's own getter raises on what the VM answered, so WAA records no score for the task.
    `fix` names the entry of `FIXES` under which troupe reads `value` instead; the checker
    decides, as it does for `ReferenceCrash`."""

    def __init__(self, message: str, *, fix: str, value: Any) -> None:
        self.fix, self.value = _known(fix), value
        super().__init__(f"{message} (WAA's getter raises here too; the fix {fix!r} would read {value!r})")


def rule_field(expected: Any, func: str, key: str) -> Any:
    """`expected[key]` of a task's rule; a rule without it is the task's mistake, named as such."""
    if not isinstance(expected, dict) or key not in expected:
        raise MetricFailed(f"{func}: expected a rule with `{key}`, got {expected!r}")
    return expected[key]


def gold_required(metric: Callable[..., float]) -> Callable[..., float]:
    """`metric` of a result and a gold file, raising where WAA does when the gold file could not be
    read: WAA's `evaluate()` then calls the metric without it, and its second parameter is required."""
    @functools.wraps(metric)
    def checked(result: Any, expected: Any, **options: Any) -> float:
        if expected is None:
            raise ReferenceCrash(f"{metric.__name__}: the gold file could not be read (WAA's evaluate() calls the "
                                 "metric without it, which raises)", fix="missing-file", fixed=0.0)
        return metric(result, expected, **options)
    return checked


def reference_outcomes(metric: Callable[..., float]) -> Callable[..., float]:
    """A shared evaluator from bench.formats with WAA's outcomes where WAA's function raises: a rule the task
    lacks is the task's mistake (`MetricFailed`), any other input a `ReferenceCrash` that the missing-file fix
    scores 0."""
    @functools.wraps(metric)
    def judged(*arguments: Any, **options: Any) -> float:
        try:
            return metric(*arguments, **options)
        except RuleLacks as exc:
            raise MetricFailed(str(exc)) from None
        except ReferenceRaises as exc:
            raise ReferenceCrash(str(exc), fix="missing-file", fixed=0.0) from None
    return judged
