"""What a computer-use model would do on a simulated form task or a one-button MiniWoB page, for
the fake provider servers.

The fake model reads the task from the request and plans the pointer and key actions that
solve it on the simulated screen: a field is clicked at the centre of its box (every sim task
shares one layout, `bench.suites.sim.suite`), then typed into; a box or button is clicked; a
key is pressed. Coordinates are given in the frame the request declares (the tool's display
size), as a real model reads them off the screenshot it was shown.
"""

from __future__ import annotations

import base64
import io
import json
import re

from PIL import Image

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


BUTTON_FACE = (239, 239, 239)
"""The face of a button as Chromium draws it by default (MiniWoB's buttons are unstyled)."""


def button_centre(png: bytes) -> tuple[int, int]:
    """The centre of the button on a screenshot, the largest patch of its face colour (text drawn
    elsewhere has stray pixels of it), as a model that sees one button would point at it."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    width, height = image.size
    pixels = image.load()
    left = {(x, y) for y in range(height) for x in range(width) if pixels[x, y] == BUTTON_FACE}
    assert left, "no button on the screen"
    patches = []
    while left:
        patch, edge = [], [left.pop()]
        while edge:
            x, y = edge.pop()
            patch.append((x, y))
            for near in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if near in left:
                    left.remove(near)
                    edge.append(near)
        patches.append(patch)
    button = max(patches, key=len)
    xs, ys = [x for x, _ in button], [y for _, y in button]
    return (min(xs) + max(xs)) // 2, (min(ys) + max(ys)) // 2


def last_image(body: dict) -> bytes:
    """The last screenshot a request inlines, in either API's shape."""
    found = re.findall(r'"(?:data|image_url)": "(?:data:image/png;base64,)?([A-Za-z0-9+/=]{100,})"', json.dumps(body))
    return base64.b64decode(found[-1])
