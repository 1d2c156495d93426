"""The errors OSWorld's steps, getters and metrics raise, shared by the registries."""

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
