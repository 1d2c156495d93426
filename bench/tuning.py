"""Process settings for running many episodes in one process."""

import gc


def tune_gc() -> None:
    """Collect young objects less often.

    A run keeps hundreds of episodes' observations, records and tasks alive
    while allocating fast; with CPython's default thresholds the collector
    sweeps those live objects again and again, which measured as more than
    half the CPU per step with 1,000 concurrent episodes (bench/perf/pipeline).
    Raising the first threshold keeps collection but makes it rare.
    """
    gc.set_threshold(100_000, 20, 100)
