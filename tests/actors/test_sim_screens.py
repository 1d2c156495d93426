"""Simulated screenshots are the form drawn (actors.backends.sim.draw): each widget at its bbox,
labelled, with its state; a policy that sees only the pixels can do a sim task."""

import functools
import io

import pytest
from PIL import Image, ImageChops

from actors.backends.sim.draw import PALETTE, Ink, draw_png
from actors.backends.sim.node import build
from actors.backends.sim.png import encode_png
from actors.backends.sim.vm import SimVM
from actors.backends.sim.world import World
from actors.runner import EpisodeRunner
from bench.suites.sim.agent import SimJudge
from bench.suites.sim.checker import SimChecker
from bench.suites.sim.suite import sim_tasks
from protocols import Click, Decide, Decision, Done, Key, Point, Scroll, Target, Task, TripleClick, TypeText
from runtime.errors import Refused
from runtime.host import run_local_host
from runtime.limits import Limits
from tests.crews import crew

pytestmark = pytest.mark.anyio


def rgb(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    return image.convert("RGB")


def inked(image: Image.Image, box, ink: Ink) -> int:
    """How many pixels of `box` (a BBox) are drawn in `ink`."""
    crop = image.crop((round(box.x), round(box.y), round(box.x + box.width) + 1, round(box.y + box.height) + 1))
    return sum(count for count, colour in crop.getcolors(1 << 16) if colour == PALETTE[ink])


async def form(**sim) -> SimVM:
    vm = SimVM()
    (task,) = sim_tasks(1, seed=3, sim={"scale": 0.0, **sim})
    await vm.reset(task, attempt=1)
    return vm


def widget(vm: SimVM, name: str):
    return next(element for element in vm.world.tree().children if element.name == name)


async def test_a_frame_is_the_viewport_with_every_widget_labelled_inside_its_bbox():
    vm = await form()
    png, viewport = await vm.screenshot()
    image = rgb(png)
    assert image.size == (viewport.width, viewport.height) == (1280, 800)
    background = PALETTE[Ink.BACKGROUND]
    for element in vm.world.tree().children:
        box = element.bbox
        x, y = box.center
        assert image.getpixel((round(box.x) - 2, round(y))) == background  # nothing drawn left of the box
        if element.role == "button":
            assert image.getpixel((round(x), round(y))) != background
            assert image.getpixel((round(box.x) + 2, round(y))) == PALETTE[Ink.BUTTON]  # the fill starts at the bbox
            assert image.getpixel((round(box.x + box.width) + 2, round(y))) == background
            assert inked(image, box, Ink.WHITE) > 50  # its name, written on the fill
        else:
            assert inked(image, box, Ink.TEXT) > 50  # its name, beside its field or box
    assert inked(image, vm.world.tree().bbox, Ink.TICK) == 0  # nothing checked, nothing submitted yet


async def test_typing_changes_only_the_field_and_the_same_state_draws_the_same_bytes():
    first, second = await form(), await form()
    blank, _ = await first.screenshot()
    assert (await second.screenshot())[0] == blank  # drawn afresh by another VM, byte for byte
    name = widget(first, "Name")
    typing = TypeText(text="alice", target=Target(node_id=name.node_id))
    await first.act(1, typing)
    typed, _ = await first.screenshot()
    assert typed != blank
    left, top, right, bottom = ImageChops.difference(rgb(blank), rgb(typed)).getbbox()
    assert name.bbox.contains(left, top) and name.bbox.contains(right - 1, bottom - 1)
    await second.act(1, typing)
    assert (await second.screenshot())[0] == typed
    await first.act(2, Key(key="backspace"))
    assert (await first.screenshot())[0] not in (typed, blank)  # one letter fewer, the field still focused


async def test_a_checked_box_shows_its_tick_and_unchecking_takes_it_away():
    vm = await form()
    box = widget(vm, "Subscribe")
    assert inked(rgb((await vm.screenshot())[0]), box.bbox, Ink.TICK) == 0
    await vm.act(1, Click(target=Target(node_id=box.node_id)))
    assert inked(rgb((await vm.screenshot())[0]), box.bbox, Ink.TICK) > 100
    await vm.act(2, Click(target=Target(node_id=box.node_id)))
    assert inked(rgb((await vm.screenshot())[0]), box.bbox, Ink.TICK) == 0


async def test_a_triple_click_presses_the_widget_under_it_as_a_click_does():
    vm = await form()
    box = widget(vm, "Subscribe")
    assert (await vm.act(1, TripleClick(point=Point(*box.bbox.center)))).error is None
    assert inked(rgb((await vm.screenshot())[0]), box.bbox, Ink.TICK) > 100


async def test_clicks_submitting_and_scrolling_are_visible():
    vm = await form()
    frames = [(await vm.screenshot())[0]]
    submit = widget(vm, "Submit")
    for step, action in enumerate([Click(target=Target(node_id=submit.node_id)), Key(key="enter"),
                                   Scroll(direction="down", amount=3)], start=1):
        await vm.act(step, action)
        frames.append((await vm.screenshot())[0])
    assert len(set(frames)) == 4  # every one of them changed the screen
    clicked = ImageChops.difference(rgb(frames[0]), rgb(frames[1])).getbbox()
    assert submit.bbox.contains(clicked[0], clicked[1])  # the button counts its clicks
    banner = ImageChops.difference(rgb(frames[1]), rgb(frames[2])).getbbox()
    assert banner[0] > max(w.bbox.x + w.bbox.width for w in vm.world.widgets)  # beside the form, not over it
    assert inked(rgb(frames[2]), vm.world.tree().bbox, Ink.TICK) > 200


async def test_screenshot_bytes_pads_a_frame_without_changing_its_pixels_and_plain_frames_stay_small():
    drawn, _ = await (await form()).screenshot()
    padded, _ = await (await form(screenshot_bytes=300_000)).screenshot()
    assert len(padded) == 300_000 and len(drawn) < 300_000
    assert rgb(padded).tobytes() == rgb(drawn).tobytes()
    plain, viewport = await (await form(screens="plain")).screenshot()
    assert rgb(plain).size == (64, 40) and len(rgb(plain).getcolors()) == 1
    assert viewport.width == 1280  # the viewport is the screen's, whatever the frame


async def test_a_vm_reset_to_a_task_with_other_screen_settings_draws_them_not_its_earlier_frames():
    vm = await form()
    drawn, _ = await vm.screenshot()
    for sim, size in [({"screens": "plain"}, (64, 40)), ({"screenshot_bytes": 200_000}, (1280, 800)), ({}, (1280, 800))]:
        (task,) = sim_tasks(1, seed=3, sim={"scale": 0.0, **sim})
        await vm.reset(task, attempt=1)
        png, _ = await vm.screenshot()
        assert rgb(png).size == size and (png == drawn) == (not sim)


async def test_a_layout_with_a_role_the_window_cannot_draw_is_refused_naming_it():
    task = Task(task_id="t", instruction="", raw_config={"sim": {"layout": [{"role": "slider", "name": "Volume"}]}})
    with pytest.raises(Refused, match=r"malformed sim config: ValueError: layout\[0\]: unknown role 'slider'"):
        await SimVM().reset(task, attempt=1)


@pytest.mark.parametrize("pixels, palette, bits, error", [
    (b"\x00" * 5, b"", 8, "2x2 pixels take 12 bytes, got 5"),
    (b"\x00" * 2, bytes(3 * 17), 4, "17 colours at 4 bits a pixel"),
    (b"\x00" * 2, b"", 4, "0 colours at 4 bits a pixel"),
])
def test_encode_png_refuses_pixels_that_do_not_fit(pixels, palette, bits, error):
    with pytest.raises(ValueError, match=error):
        encode_png(2, 2, pixels, palette=palette, bits=bits)


class ClickTheButton:
    """A vision policy: it never reads the tree, only the screenshot's pixels. It clicks the
    middle of the button-coloured region, in coordinates normalized to the image, then is done."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, int]] = []

    async def decide(self, request: Decide) -> Decision:
        if request.step > 1:
            return Decision(action=Done(), reasoning="clicked it")
        image = rgb(request.observation.screenshot)
        self.seen.append(image.size)
        off_fill = ImageChops.difference(image, Image.new("RGB", image.size, PALETTE[Ink.BUTTON]))
        red, green, blue = off_fill.point(lambda v: 255 * (v == 0)).split()
        left, top, right, bottom = ImageChops.multiply(ImageChops.multiply(red, green), blue).getbbox()
        point = Point((left + right) / 2 / image.width, (top + bottom) / 2 / image.height, unit="norm")
        return Decision(action=Click(point=point), reasoning=f"the button's fill spans x {left}..{right}")


async def test_a_policy_that_only_sees_pixels_clicks_the_drawn_button_and_succeeds():
    layout = [{"role": "textbox", "name": "Name"}, {"role": "checkbox", "name": "Subscribe"},
              {"role": "button", "name": "Send"}]
    task = Task(task_id="vision", instruction="Click 'Send'.",
                raw_config={"sim": {"layout": layout, "scale": 0.0}}, evaluation_spec={"expect": {"clicked": ["Send"]}})
    policy = ClickTheButton()
    runner = EpisodeRunner(
        crew=crew(lambda: policy, SimChecker, SimJudge),
        vm_slot=functools.partial(run_local_host, build), limits=Limits(call_seconds=5), concurrency=1,
    )
    (result,) = await runner.run([task])
    assert policy.seen == [(1280, 800)]
    assert result.success, result.reason


def test_the_fingerprint_covers_the_layout_so_equal_states_of_other_windows_never_share_a_frame():
    ok = World.from_layout([{"role": "button", "name": "OK"}])
    cancel = World.from_layout([{"role": "button", "name": "Cancel"}])
    assert ok.fingerprint() != cancel.fingerprint()
    assert draw_png(ok) != draw_png(cancel)
