"""The viewer: `--viewer HOST:PORT` on the supervisor serves a page and a step-event
stream on one port; `python -m bench.viewer URL` follows the same stream in a terminal;
`python -m bench.viewer RUN_DIR [RUN_DIR ...]` serves the same page over finished runs."""
