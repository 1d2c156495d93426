import pytest

SERIAL_GROUPS = {"test_ray.py": "ray", "test_ray_run_cleanup.py": "ray", "test_ray_lost.py": "ray"}
"""Files that must not run at the same time as each other under pytest-xdist: they start local Ray
clusters and count the Ray processes a run leaves."""


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request):
    return request.param


SPLIT_FILES = {"test_local_cache.py": 3}
"""Files long enough to hold up the end of a run on one worker, spread over this many groups (a test
function's runs stay together); their module fixtures are cheap to make once per group."""
LONGEST_FIRST = ("test_local_cache.py", "test_local_chrome.py", "test_local_apps.py", "test_ray.py",
                 "test_ray_lost.py", "test_ray_run_cleanup.py", "test_local.py", "test_chrome_pages.py",
                 "test_parity_media.py", "test_chrome_appearance.py", "test_chaos.py")
"""The files that take the most time, longest first: handed to the workers first, so that no worker
starts one last."""


def _group(item, functions: list[str]) -> str:
    name = item.path.name
    if name in SERIAL_GROUPS:
        return SERIAL_GROUPS[name]
    if name in SPLIT_FILES:
        return f"{item.path}::{functions.index(item.originalname) % SPLIT_FILES[name]}"
    return str(item.path)


def pytest_collection_modifyitems(config, items):
    """Under `pytest -n N --dist loadgroup` (scripts/test.sh) each file runs on one worker, so its module
    and session fixtures (desktops, browsers, servers, corpora) are made once; `SERIAL_GROUPS` share one,
    `SPLIT_FILES` are spread, and the `LONGEST_FIRST` files go first."""
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
    functions = list(dict.fromkeys(item.originalname for item in items if item.path.name in SPLIT_FILES))
    for item in items:
        item.add_marker(pytest.mark.xdist_group(_group(item, functions)))
