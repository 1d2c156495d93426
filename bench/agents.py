"""The agents and change summarizers a run can use, by name (`--agent`, `--summarizer`)."""

from __future__ import annotations

import argparse
from typing import Callable

from actors.agent import Policy
from actors.sim.llm import SimJudge, SimPolicy
from actors.summarizer import Judge
from bench import llm
from bench.baseline.miniwob_agent import ScriptedMiniWobAgent
from bench.desktop_agent import DesktopScriptedPolicy

AGENTS: dict[str, Callable[[argparse.Namespace], Policy]] = {
    "sim": lambda args: SimPolicy(),
    "llm": llm.policy,
    "desktop-scripted": lambda args: DesktopScriptedPolicy(),
    "scripted": lambda args: ScriptedMiniWobAgent(),
}

SUMMARIZERS: dict[str, Callable[[argparse.Namespace], Judge]] = {
    "sim": lambda args: SimJudge(),
    "llm": llm.judge,
}
