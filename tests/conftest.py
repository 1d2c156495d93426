import pytest

SERIAL_GROUPS = {"test_ray.py": "ray", "test_ray_run_cleanup.py": "ray", "test_ray_lost.py": "ray"}
"""Files that must not run at the same time as each other under pytest-xdist: they start local Ray
clusters and count the Ray processes a run leaves."""


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request):
    return request.param


def pytest_collection_modifyitems(config, items):
    """Under `pytest -n N --dist loadgroup` (scripts/test.sh) each file runs on one worker, so its module
    and session fixtures (desktops, browsers, servers, corpora) are made once; `SERIAL_GROUPS` share one."""
    for item in items:
        item.add_marker(pytest.mark.xdist_group(SERIAL_GROUPS.get(item.path.name, str(item.path))))
