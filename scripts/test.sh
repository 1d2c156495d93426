#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite on asyncio and trio.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --osworld-apps
# Two workers (pytest-xdist), each taking a whole file at a time (tests/conftest.py groups them): most
# tests wait on browsers, desktops and processes, so two run in about the time of one on 2 cores.
exec .venv/bin/python -m pytest -q -n 2 --dist loadgroup --durations=25 "$@"
