"""What a computer-use model would do on a simulated form task, for the fake provider servers.

The fake model reads the task from the request and plans the pointer and key actions that
solve it on the simulated screen: a field is clicked at the centre of its box (every sim task
shares one layout, `bench.suites.sim.suite`), then typed into; a box or button is clicked; a
key is pressed. Coordinates are given in the frame the request declares (the tool's display
size), as a real model reads them off the screenshot it was shown.
"""

from __future__ import annotations

import re

from actors.backends.sim.world import VIEWPORT
from bench.suites.sim.goals import parse_goals
from bench.suites.sim.suite import sim_tasks

LAYOUT = [item["name"] for item in sim_tasks(1)[0].raw_config["sim"]["layout"]]
TASK = re.compile(r"Task: (.*)")
SKIPPED = re.compile(r"The first (\d+) steps are not shown")


def centre(name: str, width: int, height: int) -> tuple[int, int]:
    """The centre of the widget `name` on a screen shown at `width` x `height`."""
    index = LAYOUT.index(name)
    x, y = 40 + 200, 80 + index * 48 + 20
    return round(x * width / VIEWPORT.width), round(y * height / VIEWPORT.height)


def plan(text: str, width: int, height: int) -> list[tuple]:
    """The steps that solve the task stated in `text` ("Task: ..."): ("click", x, y), ("type", text)
    or ("key", name)."""
    instruction = TASK.search(text)[1]
    steps: list[tuple] = []
    for goal in parse_goals(instruction):
        if goal["key"] is not None:
            steps.append(("key", goal["key"]))
        elif goal["text"] is not None:
            steps += [("click", *centre(goal["field"], width, height)), ("type", goal["text"])]
        else:
            steps.append(("click", *centre(goal["name"], width, height)))
    return steps


def skipped(text: str) -> int:
    """How many earlier steps the request says it leaves out."""
    match = SKIPPED.search(text)
    return int(match[1]) if match else 0
