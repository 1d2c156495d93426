"""The errors OSWorld's steps, getters and metrics raise, shared by the registries."""

import functools
from collections.abc import Callable
from typing import Any

from protocols import TroupeError


class SetupFailed(TroupeError, RuntimeError):
    """A step OSWorld's SetupController raises on (its setup, and so the task, then ends); the message names it."""


class StepFailed(TroupeError, RuntimeError):
    """A step the server refused where OSWorld's controller logs the refusal and goes on."""


class GetterFailed(TroupeError, RuntimeError):
    """A getter that cannot read what it names (OSWorld's would raise): the verdict is an evaluation error."""


class NoFile(TroupeError, FileNotFoundError):
    """A getter found no file where OSWorld's raises FileNotFoundError, which its evaluate() scores 0."""


class MetricFailed(TroupeError, ValueError):
    """A metric OSWorld's function raises on (a rule without its key, a value of another kind)."""


def raising_as_osworld(metric: Callable[..., float]) -> Callable[..., float]:
    """`metric` with whatever its body raises turned into MetricFailed naming the metric and the error: the
    body follows OSWorld's function step by step, so where it raises OSWorld's raised too."""

    @functools.wraps(metric)
    def scored(*arguments: Any, **options: Any) -> float:
        try:
            return metric(*arguments, **options)
        except MetricFailed:
            raise
        except Exception as exc:  # noqa: BLE001 - what OSWorld's function raises on gives no score
            raise MetricFailed(f"{metric.__name__}: {type(exc).__name__}: {exc} "
                               "(OSWorld's function raises here)") from None

    return scored
