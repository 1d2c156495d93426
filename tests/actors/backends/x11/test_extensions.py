"""A desktop whose X server lacks the extension its input (XTEST) or its settle (DAMAGE) needs fails at
once, naming the display and the extension."""

from __future__ import annotations

import pytest

from actors.backends.x11.extensions import MissingExtension
from actors.backends.x11.redraws import Redraws
from actors.backends.x11.xtest import XTestInput

from tests.x_servers import xvfb_without


@pytest.mark.parametrize("extension, needs_it", [("XTEST", XTestInput), ("DAMAGE", Redraws)])
def test_a_display_without_the_extension_is_named(extension, needs_it):
    with xvfb_without(extension) as display:
        with pytest.raises(MissingExtension, match=f"^the X server of {display} has no {extension} extension$"):
            needs_it(display)
