"""The browser backend on a real Chromium: every action type, checked by what the page saw.

Playwright's async API needs asyncio, so these tests drive the backend on
asyncio only (in a node it always is); the supervisor side is tested on both
loops in test_browser_node.py.
"""

import asyncio
import os
import signal
import struct
import urllib.request

import anyio
import pytest

from actors.backends.browser.backend import BrowserBackend
from actors.backends.browser.launch import FEATURES, LAUNCH_ARGS, BrowserNotFound, find_browser
from actors.backends.browser.processes import browser_mains, cpu_by_process, descendants, process_kind
from bench.suites.miniwob.site import MiniWobServer, MiniWobSite
from actors.backends.browser.settle import SettlePolicy
from actors.observer import Observer
from protocols import (
    BBox, Click, Done, DoubleClick, Drag, Hotkey, Key, Move, Point, RightClick, Scroll, Target, Task, TripleClick,
    TypeText, Wait,
)
from runtime.errors import Refused
from tests.paths import FIXTURES

pytestmark = pytest.mark.anyio
PAGES = FIXTURES / "browser"


@pytest.fixture(scope="module")
def anyio_backend():
    return "asyncio"


@pytest.fixture(scope="module")
async def browser():
    backend = BrowserBackend(sites={"miniwob": MiniWobSite()}, settle_policy=SettlePolicy(limit=1.0))
    await backend.start()
    yield backend
    await backend.close()


def page_task(name: str, **browser) -> Task:
    return Task(task_id=name, instruction="test", raw_config={
        "browser": {"start": (PAGES / name).as_uri(), "viewport": [640, 400], **browser}})


async def page_state(browser, *names):
    return (await browser.inspect({"globals": list(names)}))["globals"]


async def observe(browser):
    return await Observer(browser).capture(tree_timeout=10)


def element(observation, role, name):
    return next(e for e in observation.tree.walk() if e.role == role and e.name == name)


async def test_observation_has_pixels_tree_with_boxes_dom_and_details(browser):
    await browser.reset(page_task("actions.html"), 1)
    seen = await observe(browser)
    assert seen.screenshot.startswith(b"\x89PNG") and (seen.viewport.width, seen.viewport.height) == (640, 400)
    button = element(seen, "button", "Press")
    assert button.bbox is not None and button.bbox.width > 0 and button.bbox.y < 40
    assert element(seen, "textbox", "Name").bbox is not None
    assert seen.window_title == "Actions" and seen.url.endswith("actions.html")
    assert seen.partial == () and seen.timings.total > 0
    assert struct.unpack(">II", seen.screenshot[16:24]) == (640, 400)  # a whole PNG of the viewport


async def test_focused_element_is_the_element_with_the_focus_and_none_for_the_page(browser):
    await browser.reset(page_task("actions.html"), 1)
    seen = await observe(browser)
    assert seen.focused_element is None
    field = element(seen, "textbox", "Name")
    await browser.act(1, TypeText(text="x", target=Target(node_id=field.node_id)))
    assert (await observe(browser)).focused_element == field.node_id


async def test_cpu_of_the_browser_processes_is_read_by_kind(browser):
    await browser.reset(page_task("actions.html"), 1)
    kinds = {}
    for kind, seconds, children in cpu_by_process(os.getpid()).values():
        assert seconds >= 0 and children >= 0
        kinds[kind] = kinds.get(kind, 0) + seconds
    assert {"driver", "browser", "renderer", "zygote"} <= kinds.keys(), kinds
    assert kinds["browser"] > 0
    assert len(browser_mains(os.getpid())) == 1  # helpers, whose argv Chromium rewrites, are not mains


async def test_pointer_actions_by_element_point_and_bbox(browser):
    await browser.reset(page_task("actions.html"), 1)
    seen = await observe(browser)
    press = element(seen, "button", "Press")
    results = [
        await browser.act(1, Click(target=Target(node_id=press.node_id), modifiers=("ctrl",))),
        await browser.act(2, DoubleClick(target=Target(bbox=press.bbox))),
        await browser.act(3, RightClick(point=Point(x=press.bbox.center[0] / 640, y=press.bbox.center[1] / 400,
                                                    unit="norm"))),
        await browser.act(4, Click(target=Target(node_id=element(seen, "button", "Far below").node_id))),
    ]
    assert [r.error for r in results] == [None] * 4
    assert all(r.settle > 0 for r in results)  # waited for the page, and said how long
    log = (await page_state(browser, "log"))["log"]
    assert log[0] == "click:ctrl" and "dblclick" in log and "contextmenu" in log and log[-1] == "below"


async def test_a_triple_click_selects_the_whole_paragraph_where_a_double_click_selects_a_word(browser):
    await browser.reset(page_task("actions.html"), 1)
    word = Point(x=30, y=328)
    assert (await browser.act(1, DoubleClick(point=word))).error is None
    assert (await page_state(browser, "selected"))["selected"] == "Select"
    assert (await browser.act(2, TripleClick(point=word))).error is None
    assert (await page_state(browser, "selected"))["selected"] == "Select this whole paragraph, not one word."


async def test_move_drag_and_scroll(browser):
    await browser.reset(page_task("actions.html"), 1)
    seen = await observe(browser)
    hover, drag = element(seen, "generic", "Hover me"), element(seen, "generic", "Drag me")
    assert (await browser.act(1, Move(target=Target(node_id=hover.node_id)))).error is None
    assert (await browser.act(2, Drag(target=Target(node_id=drag.node_id), end=Point(x=500, y=300)))).error is None
    assert (await browser.act(3, Scroll(direction="down", amount=2, point=Point(x=100, y=250)))).error is None
    state = await page_state(browser, "hovered", "dragged", "scrolled")
    assert state == {"hovered": True, "dragged": [500, 300], "scrolled": 200}


async def test_typing_keys_and_hotkeys(browser):
    await browser.reset(page_task("actions.html"), 1)
    field = element(await observe(browser), "textbox", "Name")
    assert (await browser.act(1, TypeText(text="héllo", target=Target(node_id=field.node_id)))).error is None
    assert (await browser.act(2, Key(key="a", modifiers=("shift",)))).error is None
    assert (await browser.act(3, Hotkey(keys=("ctrl", "a")))).error is None
    assert (await browser.act(4, Wait(seconds=0.01))).error is None
    assert (await browser.act(5, Done())).error is None
    state = await page_state(browser, "typed", "keys")
    assert state["typed"] == "hélloA"
    assert state["keys"][-3:] == ["Shift+A", "Control+Control", "Control+a"]
    assert element(await observe(browser), "textbox", "Name").text == "hélloA"


async def test_impossible_actions_are_step_errors_not_crashes(browser):
    await browser.reset(page_task("actions.html"), 1)
    seen = await observe(browser)
    vanish = element(seen, "button", "Vanish")
    assert (await browser.act(1, Click(target=Target(node_id=vanish.node_id)))).error is None
    gone = await browser.act(2, Click(target=Target(node_id=vanish.node_id)))
    assert gone.error == f"element {vanish.node_id} no longer exists on the page"
    outside = await browser.act(3, Click(point=Point(x=900, y=10)))
    assert outside.error == "point (900, 10) lies outside the 640x400 viewport"
    off_box = await browser.act(4, Click(target=Target(bbox=BBox(700, 0, 20, 20))))
    assert "lies outside the 640x400 viewport" in off_box.error
    plain = element(seen, "button", "Press")
    typed = await browser.act(5, TypeText(text="x", target=Target(node_id=plain.node_id)))
    assert typed.error == "cannot type 'x': the focused element is a <button>, which takes no text"
    assert (await browser.act(6, Click(target=Target(node_id="ax7")))).error.startswith("element 'ax7' has no DOM node")
    assert (await page_state(browser, "log"))["log"] == ["vanished"]  # nothing else reached the page


async def test_a_page_that_never_settles_is_reported_within_the_bound(browser):
    await browser.reset(page_task("restless.html"), 1)
    acted = await browser.act(1, Click(target=Target(node_id=element(await observe(browser), "button", "Press").node_id)))
    assert acted.error == "page did not settle within 1 s (the DOM kept changing)"
    assert 1.0 <= acted.settle < 5.0
    assert (await page_state(browser, "clicked")) == {"clicked": True}


async def test_each_reset_is_a_fresh_context(browser):
    await browser.reset(page_task("actions.html"), 1)
    field = element(await observe(browser), "textbox", "Name")
    await browser.act(1, TypeText(text="left over", target=Target(node_id=field.node_id)))
    await browser.reset(page_task("actions.html"), 2)
    assert (await page_state(browser, "typed")) == {"typed": ""}


async def test_bad_task_and_bad_inspect_are_refused_with_the_reason(browser):
    with pytest.raises(Refused, match=r"task bad: task raw_config\['browser'\]: `start` must be a URL"):
        await browser.reset(Task(task_id="bad", instruction="x", raw_config={"browser": {"start": "ftp://x"}}), 1)
    with pytest.raises(Refused, match="no MiniWoB task 'click-nothing'"):
        await browser.reset(Task(task_id="m", instruction="x", raw_config={"browser": {"start": "miniwob:click-nothing"}}), 1)
    with pytest.raises(Refused, match=r"`globals` must name JavaScript identifiers, got \['x; alert\(1\)'\]"):
        await browser.inspect({"globals": ["x; alert(1)"]})


def test_browser_discovery_explains_what_to_do(monkeypatch, tmp_path):
    monkeypatch.delenv("TROUPE_BROWSER", raising=False)
    with pytest.raises(BrowserNotFound, match="the --browser flag names '/nope', which is not an executable"):
        find_browser("/nope")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(BrowserNotFound, match="apt-get install chromium"):
        find_browser(None, str(tmp_path / "missing"))
    monkeypatch.setenv("TROUPE_BROWSER", "/usr/bin/true")
    assert find_browser(None, None) == "/usr/bin/true"


async def test_the_launch_flags_keep_playwrights_features_and_run_no_gpu_network_or_second_zygote_process():
    """Chromium keeps only the last of a repeated switch and Playwright passes its --enable-features
    first: ours must name every feature Playwright's own launch has in force (a renderer's argv
    carries the browser's effective lists), and ours must take effect."""
    playwright_own = await _launched([], awaiting={"gpu-process", "utility"})
    ours = await _launched(list(LAUNCH_ARGS))
    assert playwright_own["enabled"] <= ours["enabled"] and set(FEATURES) <= ours["enabled"]
    assert ours["disabled"] == playwright_own["disabled"]
    assert "gpu-process" in playwright_own["kinds"] and "utility" in playwright_own["kinds"]
    assert ours["kinds"].count("zygote") == 1 and not {"gpu-process", "utility"} & set(ours["kinds"]), ours["kinds"]


async def _launched(args: list[str], awaiting: frozenset[str] | set[str] = frozenset()) -> dict:
    """The features in force (read off a renderer's argv) and the kinds of the processes of a
    browser launched with `args` after Playwright's own switches, with one page open, once the
    process kinds `awaiting` run (at most 10 s: Chromium may start its network service a moment
    after the page)."""
    from playwright.async_api import async_playwright

    before = set(browser_mains(os.getpid()))
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=find_browser(None, playwright.chromium.executable_path), args=args)
        try:
            await browser.new_page()
            (pid,) = set(browser_mains(os.getpid())) - before
            with anyio.move_on_after(10):
                while not awaiting <= {process_kind(argv) for argv in descendants(pid).values()}:
                    await anyio.sleep(0.05)
            below = descendants(pid).values()
            renderer = next(argv for argv in below if b"--type=renderer" in argv)
            listed = {arg.split(b"=", 1)[0]: set(arg.split(b"=", 1)[1].decode().split(","))
                      for arg in renderer if arg.startswith((b"--enable-features=", b"--disable-features="))}
            return {"enabled": listed.get(b"--enable-features", set()),
                    "disabled": listed.get(b"--disable-features", set()),
                    "kinds": sorted(process_kind(argv) for argv in below)}
        finally:
            await browser.close()


def test_the_miniwob_server_answers_favicon_requests_at_once():
    server = MiniWobServer()
    try:
        with urllib.request.urlopen(f"{server._server.url}/favicon.ico", timeout=5) as reply:
            assert reply.status == 204 and reply.read() == b""
        with urllib.request.urlopen(server.url("click-button"), timeout=5) as reply:
            assert reply.status == 200 and b"Click Button Task" in reply.read()
    finally:
        server.close()


FAKE_MINIWOB = """data:text/html,<script>
var WOB_TASK_READY = false, seeded = null;
Math.seedrandom = s => { seeded = s; };
var core = {startEpisodeReal() { if (READY_AFTER !== null) setTimeout(() => { WOB_TASK_READY = true; }, READY_AFTER); },
            getUtterance() { return 'do it ' + seeded; }};
var READY_AFTER = %s;
</script>"""


async def test_a_miniwob_start_waits_for_the_task_to_be_ready_and_gives_up_at_the_bound(browser):
    from actors.backends.browser.pages import PageSpec
    from bench.suites.miniwob.site import start_miniwob

    await browser.reset(Task(task_id="late", instruction="x", raw_config={"browser": {"start": FAKE_MINIWOB % 100}}), 1)
    assert await start_miniwob(browser._env.page, PageSpec(start="miniwob:x", seed=7), 5.0) == "do it 7"
    await browser.reset(Task(task_id="never", instruction="x", raw_config={"browser": {"start": FAKE_MINIWOB % "null"}}), 1)
    with pytest.raises(TimeoutError, match="did not report ready within 0.2 s"):
        await start_miniwob(browser._env.page, PageSpec(start="miniwob:x", seed=7), 0.2)


async def test_an_environment_made_ahead_whose_renderer_died_is_not_handed_over(browser):
    await browser.reset(page_task("actions.html"), 1)
    await browser.reset(page_task("actions.html"), 2)  # the page predicted for the next reset is this one
    spare = await asyncio.shield(browser._ahead._next)
    assert spare.loaded.endswith("actions.html")
    renderers = [pid for pid, argv in descendants(os.getpid()).items() if b"--type=renderer" in argv]
    os.kill(max(renderers, key=_started), signal.SIGKILL)  # the newest renderer: the one made ahead
    with anyio.fail_after(10):
        while not spare.crashed:
            await anyio.sleep(0.02)
    await browser.reset(page_task("actions.html"), 3)
    assert element(await observe(browser), "button", "Press").bbox is not None


def _started(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[19])


async def test_a_reset_after_a_preparation_that_failed_makes_its_own_environment(browser):
    from playwright.async_api import Error as PlaywrightError

    nowhere = Task(task_id="nowhere", instruction="x", raw_config={"browser": {"start": "http://127.0.0.1:1/"}})
    for attempt in (1, 2):  # twice: then the page predicted next is this one, and loading it ahead fails too
        with pytest.raises(Refused, match="^the page failed: Page.goto: net::ERR_"):  # the browser lives on
            await browser.reset(nowhere, attempt)
    with pytest.raises(PlaywrightError, match="net::ERR_"):
        await asyncio.shield(browser._ahead._next)
    await browser.reset(page_task("actions.html"), 1)
    assert element(await observe(browser), "button", "Press").bbox is not None


async def test_a_live_page_whose_renderer_died_is_refused_not_a_crash_of_the_browser():
    """A crash of the actor would end the node, and with it every slot of a shared browser."""
    before = set(browser_mains(os.getpid()))
    backend = BrowserBackend()
    await backend.start()
    try:
        (browser_pid,) = set(browser_mains(os.getpid())) - before
        await backend.reset(page_task("actions.html"), 1)
        await asyncio.shield(backend._ahead._next)  # the next environment's renderer, the newest, exists
        renderers = [pid for pid, argv in descendants(browser_pid).items() if b"--type=renderer" in argv]
        os.kill(sorted(renderers, key=_started)[-2], signal.SIGKILL)  # the older of the two: the live page's
        with anyio.fail_after(10):
            while not backend._env.crashed:
                await anyio.sleep(0.02)
        for call in (observe(backend), backend.act(1, Click(point=Point(x=5, y=5))), backend.inspect({})):
            with pytest.raises(Refused, match="^the page failed: its renderer crashed$"):
                await call
        backend.chromium.check()  # the browser is alive
    finally:
        await backend.close()


async def test_a_slot_never_has_more_than_two_renderers_alive():
    """The live environment and the one made ahead: the old one closes before the next is made,
    and one made ahead for another page closes before the reset makes its own (a third renderer
    alive for a moment was the browser's peak memory)."""
    before = set(browser_mains(os.getpid()))
    backend = BrowserBackend()
    await backend.start()
    try:
        (pid,) = set(browser_mains(os.getpid())) - before
        most = 0

        async def count() -> None:
            nonlocal most
            while True:
                most = max(most, sum(b"--type=renderer" in argv for argv in descendants(pid).values()))
                await anyio.sleep(0.005)

        async with anyio.create_task_group() as tg:
            tg.start_soon(count)
            # Predicted, predicted, then another page (the one made ahead does not fit), then blank.
            for name in ("actions.html", "actions.html", "actions.html", "traces.html", "actions.html"):
                await backend.reset(page_task(name), 1)
                await backend.act(1, Click(point=Point(x=5, y=5)))
            await asyncio.shield(backend._ahead._next)
            tg.cancel_scope.cancel()
        assert most == 2
    finally:
        await backend.close()


async def test_a_fresh_page_not_made_in_time_is_refused_instead_of_awaited_for_ever():
    """Playwright never answers for a new page whose renderer died while it was made; a bound far
    below what making one takes stands in for that here."""
    backend = BrowserBackend(load_timeout=0.001)
    await backend.start()
    try:
        with anyio.fail_after(10), pytest.raises(Refused, match="^the page failed: a fresh one was not made within"
                                                                " 0.001 s$"):
            await backend.reset(page_task("actions.html"), 1)
    finally:
        await backend.close()


async def test_a_call_waiting_on_a_browser_that_dies_ends_at_once_as_a_crash():
    """Playwright never answers some calls in flight when the browser dies (a new page's): a reset
    waited for one until its caller gave up. Here the call that never ends is a sleep."""
    from actors.backends.browser.chromium import BrowserCrashed, Chromium

    before = set(browser_mains(os.getpid()))
    chromium = Chromium()
    await chromium.start()
    try:
        (pid,) = set(browser_mains(os.getpid())) - before

        async def kill() -> None:
            await anyio.sleep(0.2)
            os.kill(pid, signal.SIGKILL)

        async with anyio.create_task_group() as tg:
            tg.start_soon(kill)
            with anyio.fail_after(10), pytest.raises(BrowserCrashed, match="died .* while a call to it was waiting"):
                await chromium.unless_lost(anyio.sleep_forever())
    finally:
        await chromium.close()
