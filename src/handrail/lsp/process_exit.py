"""Ending the server's process at once after `exit`.

Editors give a server little time to end after `exit` and then kill it: Eglot's jsonrpc waits until the
next output of any process (at most 0.1 s) and kills a server whose end it has not seen yet, and the
server closing its stdout is such an output. So the process ends in the `exit` handler itself, before
anything else: no closing the stream first, no waiting for the event loop's threads (a warm-up import
still running held it up for seconds) and no interpreter finalization (over a second here).
`shutdown` has already stopped the turns, shells and MCP servers and saved the sessions.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
from typing import NoReturn


def exit_now(code: int) -> NoReturn:
    """End the process with `code`: the exit hooks run (logging is flushed, leftover process groups of
    background shells killed), the standard streams are flushed, and nothing else waits."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)
