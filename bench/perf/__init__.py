"""Performance benchmarks: `python -m bench.perf.<name>`."""
