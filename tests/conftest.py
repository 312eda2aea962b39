"""Session-wide test setup: test servers start from a warm process (tests/warm_server.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.warm_server import WARM_START


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "cold_server(reason): the test needs the real `handrail lsp` process (its pid, children, /proc)"
    )


@pytest.fixture(autouse=True, scope="session")
def _warm_start() -> Iterator[None]:
    """The zygote starts with the first server (if any) and ends with the session; HANDRAIL_TEST_COLD=1: off."""
    WARM_START.enabled = os.environ.get("HANDRAIL_TEST_COLD", "") in ("", "0")
    WARM_START.environment = dict(os.environ)  # not a test's monkeypatched one
    try:
        yield
    finally:
        WARM_START.stop()


@pytest.fixture(autouse=True)
def _cold_server(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test marked `cold_server` gets the real command for every server it starts."""
    marker = request.node.get_closest_marker("cold_server")
    with WARM_START.cold_for(str(marker.args[0]) if marker else None):
        yield


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not WARM_START.enabled:
        return
    lines, trouble = WARM_START.summary()
    terminalreporter.write_sep("=", "warm start of test servers", red=trouble, bold=trouble)
    for line in lines:
        terminalreporter.write_line(line)
