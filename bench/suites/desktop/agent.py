"""A scripted baseline for the desktop suite: no model, instructions parsed by patterns.

It shows what the backend can do end to end and gives the suite a floor to
compare agents with. Each known instruction pattern becomes a short plan;
the editor plans ground their first click in the accessibility tree (the
text area's box) and the replace plan reads the document's text from it,
so they exercise AT-SPI, not only input. Shell tasks type commands into
the terminal. Anything it has no pattern for, it fails honestly.
"""

from __future__ import annotations

import re
import shlex
from typing import Callable

from protocols import (
    Action, Click, Decide, Decision, Done, Fail, Hotkey, Key, Observation, Target, TypeText, UIElement, Wait,
)

Step = Callable[[Observation], Action | None]
"""One step of a plan; None means 'not possible yet' (no tree): wait and retry."""


def _text_area(observation: Observation) -> UIElement | None:
    if observation.tree is None:
        return None
    return next((e for e in observation.tree.walk() if e.role == "textbox" and e.bbox is not None), None)


def _focus_editor(observation: Observation) -> Action | None:
    area = _text_area(observation)
    if area is None:
        return None
    return Click(target=Target(node_id=area.node_id, bbox=area.bbox, role=area.role))


def _save(observation: Observation) -> Action:
    return Hotkey(keys=("ctrl", "s"))


def _shell(command: str) -> list[Step]:
    return [lambda o: TypeText(text=command + "\n"), lambda o: Wait(seconds=0.3)]


def _replace(old: str, new: str) -> list[Step]:
    def retype(observation: Observation) -> Action | None:
        area = _text_area(observation)
        if area is None:
            return None
        return TypeText(text=area.text.replace(old, new).rstrip("\n"))

    return [_focus_editor, lambda o: Hotkey(keys=("ctrl", "a")), retype, _save]


q = shlex.quote
PATTERNS: list[tuple[re.Pattern[str], Callable[..., list[Step]]]] = [
    (re.compile(r"^Write '(?P<text>[^']+)' in (?P<file>\S+) with the text editor and save it\.$"),
     lambda text, file: [_focus_editor, lambda o: TypeText(text=text), _save]),
    (re.compile(r"^Add the line '(?P<line>[^']+)' at the end of (?P<file>\S+) and save it\.$"),
     lambda line, file: [_focus_editor, lambda o: Key(key="end", modifiers=("ctrl",)),
                         lambda o: TypeText(text=line), _save]),
    (re.compile(r"^In (?P<file>\S+), replace '(?P<old>[^']+)' with '(?P<new>[^']+)' everywhere and save it\.$"),
     lambda file, old, new: _replace(old, new)),
    (re.compile(r"^Create a folder named '(?P<name>[^']+)' in the home folder\.$"),
     lambda name: _shell(f"mkdir -p ~/{q(name)}")),
    (re.compile(r"^Rename '(?P<old>[^']+)' to '(?P<new>[^']+)' in the home folder\.$"),
     lambda old, new: _shell(f"mv ~/{q(old)} ~/{q(new)}")),
    (re.compile(r"^Copy '(?P<file>[^']+)' into the folder '(?P<folder>[^']+)'\.$"),
     lambda file, folder: _shell(f"cp ~/{q(file)} ~/{q(folder)}/")),
    (re.compile(r"^Set the git user name to '(?P<name>[^']+)'\.$"),
     lambda name: _shell(f"git config --global user.name {q(name)}")),
]


def plan(instruction: str) -> list[Step] | None:
    for pattern, make in PATTERNS:
        if match := pattern.match(instruction):
            return make(**match.groupdict())
    return None


class DesktopScriptedPolicy:
    """Keeps, per episode, how far along its plan it is."""

    def __init__(self) -> None:
        self._progress: dict[str, int] = {}

    async def decide(self, request: Decide) -> Decision:
        steps = plan(request.task.instruction)
        if steps is None:
            return Decision(action=Fail(reason="no scripted plan for this instruction"), reasoning="unknown pattern")
        index = self._progress.get(request.episode_id, 0)
        if index >= len(steps):
            self._progress.pop(request.episode_id, None)
            return Decision(action=Done(), reasoning="the plan is complete")
        action = steps[index](request.observation)
        if action is None:
            return Decision(action=Wait(seconds=0.2), reasoning="no accessibility tree yet; waiting for one")
        self._progress[request.episode_id] = index + 1
        return Decision(action=action, reasoning=f"plan step {index + 1} of {len(steps)}")
