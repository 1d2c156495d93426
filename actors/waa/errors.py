"""The one error every WAA metric raises, in its own module so that the metric
families (tables, documents, vlc) and the registry in `metrics` share it
without importing each other."""


class MetricFailed(ValueError):
    """The task's expected value or a fetched file is not in the form the metric needs."""
