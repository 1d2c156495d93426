"""The one error every WAA metric raises, and the rule lookup that raises it,
in their own module so that the metric families (tables, documents, vlc) and
the registry in `metrics` share them without importing each other."""

from typing import Any


class MetricFailed(ValueError):
    """The task's expected value or a fetched file is not in the form the metric needs."""


def rule_field(expected: Any, func: str, key: str) -> Any:
    """`expected[key]` of a task's rule; a rule without it is the task's mistake, named as such."""
    if not isinstance(expected, dict) or key not in expected:
        raise MetricFailed(f"{func}: expected a rule with `{key}`, got {expected!r}")
    return expected[key]
