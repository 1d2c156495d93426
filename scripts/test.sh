#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite on asyncio and trio.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --osworld-apps
exec .venv/bin/python -m pytest -q "$@"
