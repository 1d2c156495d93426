"""The settle after an action on a real Xvfb display: over QUIET seconds after the last drawing, seen
through DAMAGE, whichever window draws."""

from __future__ import annotations

import threading
import time

import pytest
from Xlib import display as xdisplay

from actors.backends.x11.redraws import QUIET, Redraws
from actors.backends.x11.session import Session


@pytest.fixture(scope="module")
def session():
    desktop = Session.start(320, 240, window_manager=False, accessibility=False)
    yield desktop
    desktop.close()


def draw_for(display: str, seconds: float, every: float = 0.01) -> threading.Thread:
    """A client that maps a window and fills it, in turns black and white, every `every` s for `seconds`
    from its first fill, which has happened when this returns."""
    first = threading.Event()

    def run() -> None:
        conn = xdisplay.Display(display)
        try:
            screen = conn.screen()
            window = screen.root.create_window(0, 0, 100, 100, 0, screen.root_depth, background_pixel=screen.white_pixel)
            window.map()
            gcs = [window.create_gc(foreground=pixel) for pixel in (screen.black_pixel, screen.white_pixel)]
            end, turn = None, 0
            while end is None or time.monotonic() < end:
                window.fill_rectangle(gcs[turn % 2], 0, 0, 100, 100)
                conn.sync()
                if end is None:
                    end = time.monotonic() + seconds
                    first.set()
                turn += 1
                time.sleep(every)
            window.destroy()
            conn.sync()
        finally:
            conn.close()
    thread = threading.Thread(target=run)
    thread.start()
    first.wait(10)
    return thread


def test_a_still_screen_settles_after_the_quiet_window(session):
    redraws = Redraws(session.display)
    try:
        redraws.forget()
        assert QUIET <= redraws.settle(bound=2.0) < 1.0  # not the bound: nothing draws
    finally:
        redraws.close()


def test_a_window_that_keeps_drawing_holds_the_settle_until_it_stops_or_the_bound(session):
    redraws = Redraws(session.display)
    try:
        quiet = 0.2  # longer than a loaded machine leaves the drawing thread waiting between two fills
        drawing = draw_for(session.display, 0.4)
        redraws.forget()
        settled = redraws.settle(quiet, bound=2.0)
        drawing.join()
        assert 0.4 + quiet - 0.1 <= settled < 1.9
        drawing = draw_for(session.display, 1.5)
        redraws.forget()
        assert 0.3 <= redraws.settle(quiet, bound=0.3) < 1.0  # still drawing at the bound
        drawing.join()
    finally:
        redraws.close()



def test_a_keymap_change_is_not_drawing(session):
    """Every client hears of a keymap change (MappingNotify): the settle does not count it as drawing."""
    redraws, changer = Redraws(session.display), xdisplay.Display(session.display)
    try:
        redraws.forget()
        first = changer.display.info.min_keycode
        spare = next(first + i for i, syms in enumerate(changer.get_keyboard_mapping(first, changer.display.info.max_keycode - first + 1)) if not any(syms))
        changer.change_keyboard_mapping(spare, [(0x1000000 | ord("✓"),) * 2])
        changer.sync()
        assert redraws.caught_up(QUIET, bound=0.3) >= 0.3  # nothing drew, so nothing read the input
    finally:
        changer.close()
        redraws.close()


def test_caught_up_waits_for_the_first_drawing_then_for_quiet(session):
    redraws = Redraws(session.display)
    try:
        redraws.forget()
        threading.Timer(0.3, draw_for, (session.display, 0.1)).start()  # a client that runs late
        assert 0.3 + 0.1 + QUIET - 0.05 <= redraws.caught_up(QUIET, bound=2.0) < 1.9
    finally:
        redraws.close()
