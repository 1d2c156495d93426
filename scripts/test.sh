#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite on asyncio and trio.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --osworld-apps
# Three workers (pytest-xdist), each taking a whole file at a time (tests/conftest.py groups them): most
# tests wait on browsers, desktops and processes, so three run in about the time of one on 2 cores.
# A failed test runs once more (pytest-rerunfailures): ~2,000 tests drive real Chromium, LibreOffice,
# Ray and X servers on two busy cores, where a rare timing failure should not fail the run; a test that
# fails twice fails it, and the log marks every rerun with R and names it in the summary (-r R).
exec .venv/bin/python -m pytest -q -n 3 --dist loadgroup --reruns 1 --reruns-delay 2 -rfER --durations=25 "$@"
