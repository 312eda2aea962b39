"""Loading what the first turn needs while the user is still typing it.

`initialize` is answered with only the LSP side loaded; a turn needs the agent's modules and the
model SDK, whose import alone takes a second or more (its thousands of types), the tools' schemas
(built on first use) and an SDK client (its TLS context loads the CA store). Preparing them once the
client said `initialized`, in a thread, makes the first prompt about as quick as the ones after it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from handrail.agent.model_client import ModelClient

log = logging.getLogger(__name__)


def _load_turn_modules(cwd: Path) -> None:
    import anthropic
    import anthropic.types

    anthropic.DefaultAioHttpClient  # noqa: B018  (imports aiohttp, which the client talks HTTP through)
    import handrail.agent.ask
    import handrail.wire.models  # noqa: F401  (the commands' parameters and results)
    from handrail.permissions.context import PermissionContext
    from handrail.tools.registry import assemble_tool_pool

    assemble_tool_pool(PermissionContext(workspace_roots=(cwd,))).definitions()


async def warm_up(cwd: Path, model_client: Callable[[], ModelClient]) -> None:
    """Import the SDK and the turn's modules, build the tools' schemas, and make the SDK client the settings
    known so far ask for (`model_client`: the first turn's, unless the client's configuration says otherwise)."""
    started = time.perf_counter()
    await asyncio.to_thread(_load_turn_modules, cwd)
    client = model_client()
    try:
        await asyncio.to_thread(client.prepare)
    except Exception as exc:  # no API key yet, say: the first turn reports it
        log.info("model client not prepared: %s", exc)
    log.info("model SDK loaded in %.0f ms", (time.perf_counter() - started) * 1000)
