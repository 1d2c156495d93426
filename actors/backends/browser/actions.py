"""Carrying out a protocol `Action` on a Playwright page.

Pointer actions go where a person's pointer would: to a point (pixels or
normalized), to the centre of a bounding box, or to an element named by the
`node_id` the Observer gave it (the DOM backend node id): the element is
scrolled into view and its current box is asked for, so grounding survives
layout changes. Whatever cannot be done as asked (a point off the screen, an
element that is gone, text for something that takes no text) raises
`ActionError`, which the agent sees as its step's error.
"""

from __future__ import annotations

import anyio
from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from protocols import (
    Answer, Click, Done, DoubleClick, Drag, Fail, Hotkey, Key, Move, Point, RightClick, Scroll, Target,
    TripleClick, TypeText, Wait, TroupeError,
)
from protocols.actions import Action

from actors.backends.browser.cdp import cdp_send

PLAYWRIGHT_KEYS = {
    "enter": "Enter", "tab": "Tab", "space": "Space", "backspace": "Backspace", "delete": "Delete",
    "escape": "Escape", "insert": "Insert", "home": "Home", "end": "End", "pageup": "PageUp",
    "pagedown": "PageDown", "up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight",
    "capslock": "CapsLock", "numlock": "NumLock", "scrolllock": "ScrollLock", "printscreen": "PrintScreen",
    "pause": "Pause", "menu": "ContextMenu", "ctrl": "Control", "alt": "Alt", "shift": "Shift", "meta": "Meta",
    **{f"f{n}": f"F{n}" for n in range(1, 25)},
}

WHEEL_PIXELS = 100
"""Pixels one wheel click scrolls, as Chromium does for a mouse wheel notch."""

# [why the focused element cannot take text (null when it can), whether it is a <select>
# (which takes typed text as type-ahead)]. Follows focus into same-origin frames and shadow roots.
_WHY_NOT_EDITABLE = """
() => {
  let e = document.activeElement;
  for (;;) {
    if (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
    else if (e && e.tagName === 'IFRAME' && e.contentDocument) e = e.contentDocument.activeElement;
    else break;
  }
  if (!e || e === document.body || e === document.documentElement) return ['no element has the focus', false];
  if (e.isContentEditable) return [null, false];
  const tag = e.tagName.toLowerCase();
  const what = tag === 'input' ? `an <input type=${e.type}>` : `a <${tag}>`;
  const textual = tag === 'textarea' || tag === 'select' ||
    (tag === 'input' && !['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file', 'range',
                          'color', 'hidden'].includes(e.type));
  if (!textual) return [`the focused element is ${what}, which takes no text`, false];
  if (e.disabled || e.readOnly) return [`the focused element is ${what} that is disabled or read-only`, false];
  return [null, tag === 'select'];
}
"""


class ActionError(TroupeError):
    """The action could not be carried out as written; the text says why."""


def key_name(name: str) -> str:
    return PLAYWRIGHT_KEYS.get(name, name)


async def perform(page: Page, cdp: CDPSession, action: Action) -> None:
    """Carry out `action` on `page`; raise ActionError when it cannot be done as written."""
    match action:
        case Click() | DoubleClick() | TripleClick() | RightClick() | Move():
            x, y = await _place(page, cdp, action.point, action.target)
            async with _held(page, action.modifiers):
                await _pointer(page, action, x, y)
        case Drag():
            x, y = await _place(page, cdp, action.point, action.target)
            end_x, end_y = await _place(page, cdp, action.end, action.end_target)
            async with _held(page, action.modifiers):
                await page.mouse.move(x, y)
                await page.mouse.down()
                await page.mouse.move(end_x, end_y, steps=8)
                await page.mouse.up()
        case Scroll():
            if action.point is not None or action.target is not None:
                await page.mouse.move(*await _place(page, cdp, action.point, action.target))
            dx, dy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[action.direction]
            await page.mouse.wheel(dx * action.amount * WHEEL_PIXELS, dy * action.amount * WHEEL_PIXELS)
        case TypeText():
            if action.target is not None:
                await _focus(page, cdp, action.target)
            why_not, is_select = await page.evaluate(_WHY_NOT_EDITABLE)
            if why_not:
                raise ActionError(f"cannot type {action.text!r}: {why_not}")
            if is_select:
                await page.keyboard.type(action.text)  # type-ahead listens to key presses
            else:
                await page.keyboard.insert_text(action.text)  # one input event, not three per character
        case Key():
            # Playwright types "a" even with Shift held; a keyboard gives "A".
            key = action.key.upper() if "shift" in action.modifiers and action.key.isalpha() else key_name(action.key)
            await page.keyboard.press("+".join([*map(key_name, action.modifiers), key]))
        case Hotkey():
            for name in action.keys:
                await page.keyboard.down(key_name(name))
            for name in reversed(action.keys):
                await page.keyboard.up(key_name(name))
        case Wait():
            await anyio.sleep(action.seconds)
        case Answer() | Done() | Fail():
            pass  # terminal: the episode ends, the screen is left as it is


async def _pointer(
    page: Page, action: Click | DoubleClick | TripleClick | RightClick | Move, x: float, y: float,
) -> None:
    if isinstance(action, Move):
        await page.mouse.move(x, y)
    else:
        button = "right" if isinstance(action, RightClick) else "left"
        await page.mouse.click(x, y, button=button, click_count=action.clicks)


class _held:
    """Hold modifier keys down for the duration of a pointer action."""

    def __init__(self, page: Page, modifiers: tuple[str, ...]) -> None:
        self.page = page
        self.keys = [key_name(m) for m in modifiers]

    async def __aenter__(self) -> None:
        for name in self.keys:
            await self.page.keyboard.down(name)

    async def __aexit__(self, *exc_info) -> None:
        for name in reversed(self.keys):
            await self.page.keyboard.up(name)


async def _place(page: Page, cdp: CDPSession, point: Point | None, target: Target | None) -> tuple[float, float]:
    """Viewport pixels for a point, or for a target's element (preferred) or box."""
    width, height = _viewport(page)
    if point is not None:
        x, y = point.to_pixels(width, height)
        where = f"point ({x:g}, {y:g})"
    elif target is not None and target.node_id is not None:
        x, y = await _element_centre(page, cdp, target.node_id)
        where = f"element {target.node_id}"
    else:
        assert target is not None and target.bbox is not None  # the protocol guarantees one of them
        x, y = target.bbox.center
        where = f"the centre ({x:g}, {y:g}) of the target's bbox"
    if not (0 <= x < width and 0 <= y < height):
        raise ActionError(f"{where} lies outside the {width}x{height} viewport")
    return x, y


async def _element_centre(page: Page, cdp: CDPSession, node_id: str) -> tuple[float, float]:
    """The centre of the element's box in the viewport, scrolled into view first if it is not there
    (one CDP call for an element in view, which most are, instead of always two)."""
    backend_id = _backend_id(node_id)
    centre = await _quad_centre(cdp, backend_id, node_id)
    width, height = _viewport(page)
    if centre is not None and 0 <= centre[0] < width and 0 <= centre[1] < height:
        return centre
    await _dom(cdp, "DOM.scrollIntoViewIfNeeded", backend_id, node_id)  # which tells an element that is gone
    centre = await _quad_centre(cdp, backend_id, node_id)
    if centre is None:
        raise ActionError(f"element {node_id} is not rendered (it has no box on the screen)")
    return centre


async def _quad_centre(cdp: CDPSession, backend_id: int, node_id: str) -> tuple[float, float] | None:
    quads = (await _dom(cdp, "DOM.getContentQuads", backend_id, node_id)).get("quads")
    if not quads:
        return None
    return sum(quads[0][0::2]) / 4, sum(quads[0][1::2]) / 4


async def _focus(page: Page, cdp: CDPSession, target: Target) -> None:
    if target.node_id is not None:
        await _dom(cdp, "DOM.focus", _backend_id(target.node_id), target.node_id)
    else:
        await page.mouse.click(*await _place(page, cdp, None, target))


async def _dom(cdp: CDPSession, method: str, backend_id: int, node_id: str) -> dict:
    try:
        return await cdp_send(cdp, method, {"backendNodeId": backend_id})
    except PlaywrightError as exc:
        text = str(exc)
        if "No node" in text or "not found" in text or "detached" in text:
            raise ActionError(f"element {node_id} no longer exists on the page") from None
        raise ActionError(f"element {node_id}: {text.splitlines()[0]}") from None


def _backend_id(node_id: str) -> int:
    if not node_id.isdigit():
        raise ActionError(f"element {node_id!r} has no DOM node to act on (only numeric node ids do)")
    return int(node_id)


def _viewport(page: Page) -> tuple[int, int]:
    size = page.viewport_size or {"width": 0, "height": 0}
    return size["width"], size["height"]
