"""Did the action change the screen: a ticking clock is not a change, an effect is."""

import io

import anyio
import pytest
from PIL import Image, ImageDraw

from actors.backends.browser.backend import BrowserBackend
from actors.observer import Observer
from actors.screen_change import screen_changed
from bench.suites.miniwob.site import MiniWobSite
from bench.suites.miniwob.suite import miniwob_task
from protocols import BBox, Click, Observation, Point, Target, TypeText, UIElement, Viewport, Wait

CLOCK = BBox(200, 10, 80, 20)
BUTTON = BBox(20, 60, 60, 30)


def png(*boxes: tuple[BBox, str]) -> bytes:
    image = Image.new("RGB", (320, 200), "white")
    draw = ImageDraw.Draw(image)
    for box, colour in boxes:
        draw.rectangle((box.x, box.y, box.x + box.width, box.y + box.height), fill=colour)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def screen(clock: str, *, button: str = "OK", extra: tuple[UIElement, ...] = (), pixels=()) -> Observation:
    tree = UIElement(node_id="root", role="document", children=(
        UIElement(node_id="clock", role="StaticText", name=f"Time left: {clock} / 10sec", bbox=CLOCK),
        UIElement(node_id="ok", role="button", name=button, bbox=BUTTON),
        *extra,
    ))
    shade = "grey" if clock.endswith("9") else "silver"  # the clock's pixels change with its text
    return Observation(screenshot=png((CLOCK, shade), *pixels), viewport=Viewport(320, 200), tree=tree)


def test_a_clock_ticking_away_from_the_action_is_no_change():
    assert not screen_changed(screen("9"), screen("8"), Wait(seconds=1.3))
    assert not screen_changed(screen("9"), screen("8"), Click(point=Point(x=40, y=70)))


def test_what_the_action_did_is_a_change():
    click = Click(target=Target(node_id="ok"))
    assert screen_changed(screen("9"), screen("8", button="Clicked"), click)  # renamed
    appeared = (UIElement(node_id="dialog", role="dialog", name="Done", bbox=BBox(0, 100, 100, 50)),)
    assert screen_changed(screen("9"), screen("8", extra=appeared), click)  # appeared
    ticked = (BUTTON, "black")
    assert screen_changed(screen("9"), screen("8", pixels=(ticked,)), click)  # pixels the tree does not carry


def test_a_clock_the_action_touched_counts():
    assert screen_changed(screen("9"), screen("8"), Click(target=Target(bbox=CLOCK)))


def test_text_typed_into_a_field_counts_even_when_only_digits_changed():
    field = lambda text: (UIElement(node_id="f", role="textbox", name="PIN", text=text, bbox=BBox(20, 120, 100, 20)),)  # noqa: E731
    before, after = screen("9", extra=field("")), screen("9", extra=field("42"))
    assert screen_changed(before, after, TypeText(text="42", target=Target(node_id="f")))


def test_a_clock_whose_text_node_the_page_replaced_is_still_a_clock():
    before = screen("9")
    replaced = UIElement(node_id="clock-2", role="StaticText", name="Time left: 8 / 10sec", bbox=CLOCK)
    after = Observation(screenshot=screen("8").screenshot, viewport=Viewport(320, 200),
                        tree=UIElement(node_id="root", role="document", children=(replaced, before.tree.children[1])))
    assert not screen_changed(before, after, Wait(seconds=1.3))


def test_deep_in_the_tree_a_change_counts_and_a_ticking_clock_does_not():
    def page(clock: str, label: str) -> Observation:
        form = UIElement(node_id="form", role="form", children=(
            UIElement(node_id="row", role="group", children=(
                UIElement(node_id="ok", role="button", name=label, bbox=BUTTON),)),))
        header = UIElement(node_id="header", role="banner", children=(
            UIElement(node_id="clock", role="StaticText", name=f"Time left: {clock} / 10sec", bbox=CLOCK),))
        shade = "grey" if clock.endswith("9") else "silver"
        return Observation(screenshot=png((CLOCK, shade)), viewport=Viewport(320, 200),
                           tree=UIElement(node_id="root", role="document", children=(header, form)))

    assert not screen_changed(page("9", "OK"), page("8", "OK"), Wait(seconds=1.3))
    assert screen_changed(page("9", "OK"), page("9", "Sent"), Wait(seconds=1.3))
    assert screen_changed(page("9", "OK"), page("8", "Sent"), Wait(seconds=1.3))


def test_without_trees_the_whole_screenshot_decides():
    bare = lambda data: Observation(screenshot=data, viewport=Viewport(320, 200))  # noqa: E731
    assert screen_changed(bare(png((CLOCK, "grey"))), bare(png((CLOCK, "silver"))), Wait(seconds=1))
    assert not screen_changed(bare(png()), bare(png()), Wait(seconds=1))


@pytest.fixture
def anyio_backend():
    return "asyncio"  # Playwright's async API runs on asyncio only


@pytest.mark.anyio
async def test_a_no_op_on_a_real_miniwob_page_is_seen_as_one_though_its_countdown_redraws():
    browser = BrowserBackend(sites={"miniwob": MiniWobSite()})
    await browser.start()
    try:
        await browser.reset(miniwob_task("click-button", 1), 1)
        observer = Observer(browser)
        before = await observer.capture(tree_timeout=10)
        await anyio.sleep(1.3)
        idle = await observer.capture(tree_timeout=10)
        assert idle.screenshot != before.screenshot  # the countdown redrew: bytes alone would say "changed"
        assert not screen_changed(before, idle, Wait(seconds=1.3))

        button = next(e for e in idle.tree.walk() if e.role == "button" and e.bbox is not None)
        await browser.act(1, Click(target=Target(node_id=button.node_id)))
        after = await observer.capture(tree_timeout=10)
        assert screen_changed(idle, after, Click(target=Target(node_id=button.node_id)))
    finally:
        await browser.close()
