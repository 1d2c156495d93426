"""Fixtures the OSWorld parity tests share."""

from __future__ import annotations

import logging

import pytest


@pytest.fixture
def reference_logging():
    """OSWorld's logging as it runs there: a record whose message cannot be formatted (load_xlsx_styles logs
    a string with %d) is reported and passed over, where pytest's capture handler raises it."""
    logging.disable(logging.CRITICAL)
    yield
    logging.disable(logging.NOTSET)
