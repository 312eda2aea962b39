"""The one module that talks to the `mcp` SDK (v2 `Client` API): connect, list, call, read.

Everything the SDK returns is turned into `tools/mcp/model.py` data here, so an SDK
change touches this file only. Import it lazily (off the event loop): importing the
SDK costs most of a second.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

import anyio
import httpx2
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CONNECTION_CLOSED, Implementation

from handrail import __version__
from handrail.tools.mcp.config import McpServerConfig
from handrail.tools.mcp.model import (
    McpCallOutcome,
    McpConnectionLostError,
    McpRequestError,
    McpResource,
    McpToolSpec,
    ProgressCallback,
    innermost_error,
)

MAX_PAGES = 100
_CONNECT_TIMEOUT = httpx2.Timeout(30.0, read=300.0)


def _dump(model: Any) -> dict[str, Any]:
    data: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    return data


class SdkConnection:
    """An `McpConnection` over an entered SDK `Client`; errors become `McpConnectionLostError`/`McpRequestError`."""

    def __init__(self, client: Client, closed: anyio.Event) -> None:
        self._client = client
        self._closed = closed

    @property
    def supports_resources(self) -> bool:
        """Whether the server declared the resources capability."""
        return self._client.server_capabilities.resources is not None

    async def _guard(self, request: Any) -> Any:
        if self._closed.is_set():
            raise McpConnectionLostError("the server is not connected")
        try:
            return await request
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                self._closed.set()
                raise McpConnectionLostError(exc.error.message) from exc
            raise McpRequestError(f"{exc.error.message} (code {exc.code})") from exc
        except (httpx2.TransportError, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
            self._closed.set()  # for http there is no pipe to watch: a failed request is how we learn
            raise McpConnectionLostError(f"{type(exc).__name__}: {exc}") from exc

    async def _pages(self, request: Callable[[str | None], Awaitable[Any]]) -> AsyncIterator[Any]:
        """Each page of a paginated list, `request(cursor)` after `request(None)` (MAX_PAGES at the most)."""
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await self._guard(request(cursor))
            yield page
            cursor = page.next_cursor
            if cursor is None:
                return

    async def list_tools(self) -> tuple[McpToolSpec, ...]:
        """Every tool, following pages."""
        specs: list[McpToolSpec] = []
        async for page in self._pages(lambda cursor: self._client.list_tools(cursor=cursor, cache_mode="bypass")):
            specs.extend(
                McpToolSpec(
                    name=tool.name,
                    description=tool.description or "",
                    input_schema=dict(tool.input_schema),
                    meta=dict(tool.meta or {}),
                    title=tool.title or (tool.annotations.title if tool.annotations else None),
                )
                for tool in page.tools
            )
        return tuple(specs)

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any], on_progress: ProgressCallback | None
    ) -> McpCallOutcome:
        """One tools/call; cancelling the caller sends notifications/cancelled (the SDK does it)."""

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            if on_progress is not None:
                await on_progress(progress, total, message)

        result = await self._guard(self._client.call_tool(name, dict(arguments), progress_callback=progress))
        return McpCallOutcome(
            content=tuple(_dump(block) for block in result.content),
            structured=result.structured_content,
            is_error=bool(result.is_error),
        )

    async def list_resources(self) -> tuple[McpResource, ...]:
        """Every resource, following pages."""
        found: list[McpResource] = []
        async for page in self._pages(lambda cursor: self._client.list_resources(cursor=cursor, cache_mode="bypass")):
            found.extend(
                McpResource(uri=str(r.uri), name=r.name, description=r.description, mime_type=r.mime_type)
                for r in page.resources
            )
        return tuple(found)

    async def read_resource(self, uri: str) -> tuple[Mapping[str, Any], ...]:
        """The contents of one resource."""
        result = await self._guard(self._client.read_resource(uri, cache_mode="bypass"))
        return tuple(_dump(item) for item in result.contents)


@asynccontextmanager
async def _watch_end(transport: Any, closed: anyio.Event) -> AsyncIterator[tuple[Any, Any]]:
    """The transport's streams, with `closed` set once the server's side ends (a crash or an exit)."""
    async with transport as (read_stream, write_stream):
        send, receive = anyio.create_memory_object_stream[Any](0)

        async def pump() -> None:
            try:
                async with send:
                    async for message in read_stream:
                        await send.send(message)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass
            finally:
                closed.set()

        async with anyio.create_task_group() as group:
            group.start_soon(pump)
            try:
                yield receive, write_stream
            finally:
                group.cancel_scope.cancel()


@asynccontextmanager
async def connect(
    config: McpServerConfig, errlog: TextIO, cwd: Path | None
) -> AsyncIterator[tuple[SdkConnection, anyio.Event]]:
    """Start (stdio) or reach (http) the server and hold the connection open until the block ends.

    The event is set when the server's side ends. Stopping a stdio server closes its
    stdin, then signals its process group (the SDK starts it in a session of its own).
    """
    closed = anyio.Event()
    async with AsyncExitStack() as stack:
        if config.transport == "http":
            assert config.url is not None
            http = await stack.enter_async_context(
                httpx2.AsyncClient(headers=dict(config.headers), timeout=_CONNECT_TIMEOUT)
            )
            transport: Any = streamable_http_client(config.url, http_client=http)
        else:
            assert config.command is not None
            params = StdioServerParameters(
                command=config.command, args=list(config.args), env=dict(config.env) or None, cwd=cwd
            )
            transport = stdio_client(params, errlog=errlog)
        client = Client(
            _watch_end(transport, closed),
            client_info=Implementation(name="handrail", version=__version__),
            cache=None,
        )
        try:
            await stack.enter_async_context(client)
        except Exception as exc:
            leaf = innermost_error(exc)
            if isinstance(leaf, MCPError) and leaf.code == CONNECTION_CLOSED:
                raise McpConnectionLostError("the server closed the connection before it was ready") from exc
            if isinstance(leaf, MCPError):
                raise McpRequestError(f"the server refused the connection: {leaf.error.message}") from exc
            raise
        yield SdkConnection(client, closed), closed
