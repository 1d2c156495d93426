"""The agents and change summarizers a run can use, by name (`--agent`, `--summarizer`)."""

from __future__ import annotations

import argparse
from typing import Callable

from actors.agent import Policy
from actors.sim.llm import SimJudge, SimPolicy
from actors.summarizer import Judge
from bench import llm

AGENTS: dict[str, Callable[[argparse.Namespace], Policy]] = {
    "sim": lambda args: SimPolicy(),
    "llm": llm.policy,
}

SUMMARIZERS: dict[str, Callable[[argparse.Namespace], Judge]] = {
    "sim": lambda args: SimJudge(),
    "llm": llm.judge,
}
