"""Following the settings files and `.mcp.json` through the client's watcher where it offers one.

A client that registers `workspace/didChangeWatchedFiles` dynamically is asked to report changes to
each root's settings files and `.mcp.json`; otherwise the agent watches them itself (agent/watcher.py).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from handrail.agent.watcher import root_files

if TYPE_CHECKING:
    from handrail.lsp.server import HandrailServer

log = logging.getLogger(__name__)

CLIENT_GLOBS = tuple(dict.fromkeys(f"**/{path.as_posix()}" for path in root_files(Path())))
REGISTRATION_TIMEOUT_SECONDS = 10


def client_can_watch(capabilities: types.ClientCapabilities | None) -> bool:
    """Whether the client registers `workspace/didChangeWatchedFiles` watchers when asked to."""
    workspace = capabilities.workspace if capabilities is not None else None
    watched = workspace.did_change_watched_files if workspace is not None else None
    return bool(watched is not None and watched.dynamic_registration)


def client_registration() -> types.RegistrationParams:
    """The request asking the client to report changes to the watched files (in every workspace folder)."""
    watchers = [types.FileSystemWatcher(glob_pattern=glob) for glob in CLIENT_GLOBS]
    return types.RegistrationParams(
        registrations=[
            types.Registration(
                id=f"handrail-watch-{uuid.uuid4()}",
                method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
            )
        ]
    )


async def follow_settings_files(ls: HandrailServer) -> None:
    """Follow changes to the settings files and `.mcp.json`: through the client's watcher where it offers
    one, else through a few watches of the agent's own (set in a thread)."""
    if client_can_watch(ls.client_capabilities):
        try:
            await asyncio.wait_for(ls.client_register_capability_async(client_registration()),
                                   REGISTRATION_TIMEOUT_SECONDS)
            return
        except Exception as exc:  # refused, or no answer: a second report of a change costs one reload
            log.warning("the client did not register the settings watchers (%r); watching them here", exc)
    await ls.agent.watch_settings_files()
