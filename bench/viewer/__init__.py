"""The live viewer: `--viewer HOST:PORT` on the supervisor serves a page and a step-event
stream on one port; `python -m bench.viewer URL` follows the same stream in a terminal."""
