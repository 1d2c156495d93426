"""The console the commands print their tables on.

rich lays a table out for the terminal's width; when the output is a file
or a pipe (a log, CI, `| tee`) it takes 80 columns, and the run's summary
table, eight columns with their intervals, wraps every row onto four lines.
Off a terminal the tables get `PIPE_WIDTH` columns unless `COLUMNS` says
otherwise, as it does on a terminal.
"""

from __future__ import annotations

import os
import sys

from rich.console import Console

__all__ = ["PIPE_WIDTH", "console"]

PIPE_WIDTH = 160


def console() -> Console:
    if sys.stdout.isatty() or "COLUMNS" in os.environ:
        return Console()
    return Console(width=PIPE_WIDTH)
