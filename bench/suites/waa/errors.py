"""The errors every WAA metric raises, and the rule lookup that raises one,
in their own module so that the metric families (tables, documents, vlc) and
the registry in `metrics` share them without importing each other.

`ReferenceCrash` is how troupe keeps WAA's verdict where WAA's own metric
raises on an input a real episode can produce: WAA then records no score
(the task is an error in its run), so by default troupe files an evaluation
error too. Each such case names a fix in `FIXES`; a run that turns the fix
on scores the case instead, and the verdict's reason says the fix was used.
"""

from typing import Any

from protocols import TroupeError


class MetricFailed(TroupeError, ValueError):
    """The task's expected value or a fetched file is not in the form the metric needs."""


FIXES: dict[str, str] = {
    "text-encoding": "compare_text_file: read a file that is not UTF-8 as Latin-1 instead of failing as WAA does",
    "jsonc": "check_json_settings: read settings.json's // and /* */ comments and trailing commas as VS Code "
             "does, and score an empty or unreadable file 0 (WAA's json.load raises on them)",
    "missing-file": "a metric WAA runs on a value that is not there (it raises opening or searching None): "
                    "score it as an empty one",
}
"""Named, optional departures from WAA's verdict, each where WAA's own code raises."""


class ReferenceCrash(MetricFailed):
    """WAA's own metric raises on this input. `fix` names the entry of `FIXES`
    under which troupe scores `fixed` instead of filing an evaluation error."""

    def __init__(self, message: str, *, fix: str, fixed: float) -> None:
        if fix not in FIXES:
            raise ValueError(f"unknown fix {fix!r} (known: {sorted(FIXES)})")
        super().__init__(f"{message} (WAA's evaluator raises here too; the fix {fix!r} would score {fixed:g})")
        self.fix = fix
        self.fixed = fixed


def rule_field(expected: Any, func: str, key: str) -> Any:
    """`expected[key]` of a task's rule; a rule without it is the task's mistake, named as such."""
    if not isinstance(expected, dict) or key not in expected:
        raise MetricFailed(f"{func}: expected a rule with `{key}`, got {expected!r}")
    return expected[key]
