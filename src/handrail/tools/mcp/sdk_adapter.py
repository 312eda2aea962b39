"""The module that talks to the `mcp` SDK (v2 `Client` API): connect, list, call, read, hear tool changes,
and answer what servers ask of the client (elicitation, roots, log messages) through `McpClientHooks`.

Everything the SDK returns is turned into `tools/mcp/model.py` data here, so an SDK
change touches this file (and `sdk_oauth.py`, its OAuth half) only. Import it lazily
(off the event loop): importing the SDK costs most of a second.

Sampling is not offered: no sampling callback is given, so the capability is not declared
and a server that asks anyway gets the SDK's immediate "Sampling not supported" error.
MCP tasks are not run (see `tools.callable_directly`).

A server's `notifications/tools/list_changed` reaches `on_tools_changed` in both protocol
eras: a handshake-era server (2025 `initialize`) sends it unasked and the SDK hands it to
`message_handler`; a 2026-07-28 server sends it only on a `subscriptions/listen` stream the
client opened, and the SDK tees that stream's events to `message_handler` too. So the
handler is where changes are heard, and the listen stream is kept open for modern servers.
"""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

import anyio
import anyio.abc
import anyio.lowlevel
import httpx2
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.session import ClientRequestContext, IncomingMessage, MessageHandlerFnT
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import (
    CONNECTION_CLOSED,
    ElicitRequestParams,
    ElicitRequestURLParams,
    ElicitResult,
    ErrorData,
    Implementation,
    ListRootsResult,
    LoggingLevel,
    LoggingMessageNotificationParams,
    Root,
    ToolListChangedNotification,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from handrail import __version__
from handrail.tools.mcp.config import McpServerConfig
from handrail.tools.mcp.model import (
    ElicitationRequest,
    McpCallOutcome,
    McpClientHooks,
    McpConnectionLostError,
    McpPromptArgument,
    McpPromptMessage,
    McpPromptSpec,
    McpRequestError,
    McpResource,
    McpResourceTemplate,
    McpSignInRequiredError,
    McpToolSpec,
    ProgressCallback,
    innermost_error,
)
from handrail.tools.mcp.sdk_oauth import oauth_provider
from handrail.tools.mcp.sign_in_files import SignIn

log = logging.getLogger(__name__)

MAX_PAGES = 100
# a listen stream that ends sooner than this counts as a failure; after this many in a row we stop listening
SHORT_LISTEN_SECONDS = 5.0
MAX_SHORT_LISTENS = 3
_CONNECT_TIMEOUT = httpx2.Timeout(30.0, read=300.0)
# the log messages a modern (2026-07-28) server is asked to send; handshake-era servers send what they choose
LOG_LEVEL: LoggingLevel = "info"


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

    @property
    def supports_prompts(self) -> bool:
        """Whether the server declared the prompts capability."""
        return self._client.server_capabilities.prompts is not None

    @property
    def instructions(self) -> str | None:
        """The server's instructions for the model, as it sent them."""
        return self._client.instructions

    async def _guard(self, request: Any) -> Any:
        if self._closed.is_set():
            raise McpConnectionLostError("the server is not connected")
        try:
            return await request
        except McpSignInRequiredError as exc:  # a token that could not be refreshed mid-connection
            self._closed.set()
            raise McpConnectionLostError(str(exc)) from exc
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
                    task_support=tool.execution.task_support if tool.execution else None,
                    read_only=bool(tool.annotations and tool.annotations.read_only_hint),
                    destructive=bool(
                        tool.annotations
                        and tool.annotations.destructive_hint is True
                        and not tool.annotations.read_only_hint
                    ),
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
                McpResource(
                    uri=str(r.uri),
                    name=r.name,
                    description=r.description,
                    mime_type=r.mime_type,
                    audience=tuple(r.annotations.audience or ()) if r.annotations else (),
                )
                for r in page.resources
            )
        return tuple(found)

    async def read_resource(self, uri: str) -> tuple[Mapping[str, Any], ...]:
        """The contents of one resource."""
        result = await self._guard(self._client.read_resource(uri, cache_mode="bypass"))
        return tuple(_dump(item) for item in result.contents)

    async def list_resource_templates(self) -> tuple[McpResourceTemplate, ...]:
        """Every resource template, following pages."""
        found: list[McpResourceTemplate] = []
        async for page in self._pages(
            lambda cursor: self._client.list_resource_templates(cursor=cursor, cache_mode="bypass")
        ):
            found.extend(
                McpResourceTemplate(
                    uri_template=t.uri_template,
                    name=t.name,
                    description=t.description,
                    mime_type=t.mime_type,
                    audience=tuple(t.annotations.audience or ()) if t.annotations else (),
                )
                for t in page.resource_templates
            )
        return tuple(found)

    async def list_prompts(self) -> tuple[McpPromptSpec, ...]:
        """Every prompt, following pages."""
        found: list[McpPromptSpec] = []
        async for page in self._pages(lambda cursor: self._client.list_prompts(cursor=cursor, cache_mode="bypass")):
            found.extend(
                McpPromptSpec(
                    name=p.name,
                    title=p.title,
                    description=p.description,
                    arguments=tuple(
                        McpPromptArgument(a.name, a.description, bool(a.required)) for a in p.arguments or ()
                    ),
                )
                for p in page.prompts
            )
        return tuple(found)

    async def get_prompt(self, name: str, arguments: Mapping[str, str]) -> tuple[McpPromptMessage, ...]:
        """The prompt's messages, rendered by the server with `arguments`."""
        result = await self._guard(self._client.get_prompt(name, dict(arguments)))
        return tuple(McpPromptMessage(m.role, _dump(m.content)) for m in result.messages)

    async def roots_changed(self) -> None:
        """notifications/roots/list_changed to a handshake-era server (modern ones list roots when they need them)."""
        if self._closed.is_set() or self._client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await self._guard(self._client.send_roots_list_changed())


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


def _tool_change_handler(on_tools_changed: Callable[[], None]) -> MessageHandlerFnT:
    """The client's `message_handler`: reports tools/list_changed, ignores the rest.

    `on_tools_changed` runs before the handler's first await, so a change the server
    announced before answering a call is counted before that call's caller resumes.
    """

    async def handle(message: IncomingMessage) -> None:
        if isinstance(message, ToolListChangedNotification):
            on_tools_changed()
        await anyio.lowlevel.checkpoint()

    return handle


def _listens_for_tool_changes(client: Client) -> bool:
    """Whether the server is modern and declared tools.listChanged: its changes come only through listen."""
    session = client.session
    tools = session.server_capabilities.tools if session.server_capabilities is not None else None
    return session.protocol_version in MODERN_PROTOCOL_VERSIONS and tools is not None and bool(tools.list_changed)


async def follow_tool_changes(
    client: Client,
    closed: anyio.Event,
    on_tools_changed: Callable[[], None],
    server: str,
    *,
    task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Hold a `subscriptions/listen` stream for tool changes open while connected.

    Started with `TaskGroup.start`: it reports started once the first stream is
    acknowledged (or could not be opened), so the connection counts as running only
    when a change made from then on will be heard. The events themselves reach
    `on_tools_changed` through the `message_handler` tee. A stream that drops (an HTTP
    read timeout, a server that ends it) is opened again, and the tools are re-listed
    because events are not replayed; a server that keeps dropping it quickly is left alone.
    """
    reported = False

    def report_started() -> None:
        nonlocal reported
        if not reported:
            reported = True
            task_status.started()

    short = 0
    try:
        while not closed.is_set() and short < MAX_SHORT_LISTENS:
            opened: float | None = None
            try:
                async with client.listen(tools_list_changed=True) as subscription:
                    opened = time.monotonic()
                    report_started()
                    async for _ in subscription:
                        pass
            except (ListenNotSupportedError, MCPError, SubscriptionLost, TimeoutError, OSError) as exc:
                log.info("MCP server %s: the tool-change subscription ended (%s)", server, innermost_error(exc))
            except Exception:  # never let the listener take the connection down with it
                log.exception("MCP server %s: listening for tool changes failed", server)
                return
            if closed.is_set():
                return
            if opened is None:  # refused outright: asking again would be refused again
                log.warning("MCP server %s refused a tool-change subscription; its tools stay as listed", server)
                return
            short = short + 1 if time.monotonic() - opened < SHORT_LISTEN_SECONDS else 0
            on_tools_changed()  # changes made while no stream was open were not delivered: list again
        if short >= MAX_SHORT_LISTENS:
            log.warning("MCP server %s keeps ending the tool-change subscription; not listening any more", server)
    finally:
        report_started()


class _ClientCallbacks:
    """The SDK client's callbacks for what a server asks of the editor, answered through `hooks`."""

    def __init__(self, server: str, hooks: McpClientHooks) -> None:
        self._server = server
        self._hooks = hooks

    async def elicit(self, context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult | ErrorData:
        """elicitation/create: the user's answer (a form's content only when accepted)."""
        if isinstance(params, ElicitRequestURLParams):
            request = ElicitationRequest(params.message, "url", url=params.url, elicitation_id=params.elicitation_id)
        else:
            request = ElicitationRequest(params.message, "form", schema=dict(params.requested_schema))
        answer = await self._hooks.elicit(self._server, request)
        if answer.action != "accept" or request.mode != "form" or answer.content is None:
            return ElicitResult(action=answer.action)
        return ElicitResult(action=answer.action, content=dict(answer.content))

    async def roots(self, context: ClientRequestContext) -> ListRootsResult | ErrorData:
        """roots/list: the workspace folders."""
        roots = [Root(uri=path.as_uri(), name=path.name) for path in self._hooks.roots()]  # type: ignore[arg-type]
        return ListRootsResult(roots=roots)

    async def log(self, params: LoggingMessageNotificationParams) -> None:
        """notifications/message: to the editor's log."""
        self._hooks.log(self._server, params.level, params.logger, params.data)


async def _http_auth(stack: AsyncExitStack, config: McpServerConfig, sign_in: SignIn | None, hooks: Any) -> Any:
    """OAuth for a remote server that does not bring its own Authorization header (None otherwise)."""
    if sign_in is None or any(key.lower() == "authorization" for key in config.headers):
        return None
    assert config.url is not None
    open_browser = None
    if sign_in.interactive and hooks is not None:

        async def open_browser(url: str) -> bool:
            opened: bool = await hooks.open_browser(config.name, url)
            return opened

    return await stack.enter_async_context(oauth_provider(config.url, sign_in.file, open_browser))


@asynccontextmanager
async def connect(
    config: McpServerConfig,
    errlog: TextIO,
    cwd: Path | None,
    on_tools_changed: Callable[[], None] = lambda: None,
    *,
    hooks: McpClientHooks | None = None,
    sign_in: SignIn | None = None,
) -> AsyncIterator[tuple[SdkConnection, anyio.Event]]:
    """Start (stdio) or reach (http, sse) the server and hold the connection open until the block ends.

    The event is set when the server's side ends. Stopping a stdio server closes its
    stdin, then signals its process group (the SDK starts it in a session of its own).
    `on_tools_changed` is called (on the event loop) each time the server says its tools changed.
    With `hooks`, the server may elicit, list roots and log to the editor; `sign_in` is
    where a remote server's OAuth sign-in is kept (and whether the user may be asked to sign in now).
    """
    closed = anyio.Event()
    async with AsyncExitStack() as stack:
        if config.transport in ("http", "sse"):
            assert config.url is not None
            auth = await _http_auth(stack, config, sign_in, hooks)
            if config.transport == "sse":
                transport: Any = sse_client(config.url, headers=dict(config.headers), auth=auth)
            else:
                http = await stack.enter_async_context(
                    httpx2.AsyncClient(headers=dict(config.headers), timeout=_CONNECT_TIMEOUT, auth=auth)
                )
                transport = streamable_http_client(config.url, http_client=http)
        else:
            assert config.command is not None
            params = StdioServerParameters(
                command=config.command, args=list(config.args), env=dict(config.env) or None, cwd=cwd
            )
            transport = stdio_client(params, errlog=errlog)
        callbacks = _ClientCallbacks(config.name, hooks) if hooks is not None else None
        client = Client(
            _watch_end(transport, closed),
            client_info=Implementation(name="handrail", version=__version__),
            message_handler=_tool_change_handler(on_tools_changed),
            cache=None,
            elicitation_callback=callbacks.elicit if callbacks is not None else None,
            list_roots_callback=callbacks.roots if callbacks is not None else None,
            logging_callback=callbacks.log if callbacks is not None else None,
            log_level=LOG_LEVEL if callbacks is not None else None,
        )
        try:
            await stack.enter_async_context(client)
        except Exception as exc:
            leaf = innermost_error(exc)
            if isinstance(leaf, McpSignInRequiredError):
                raise leaf from exc
            if isinstance(leaf, MCPError) and leaf.code == CONNECTION_CLOSED:
                raise McpConnectionLostError("the server closed the connection before it was ready") from exc
            if isinstance(leaf, MCPError):
                raise McpRequestError(f"the server refused the connection: {leaf.error.message}") from exc
            raise
        if _listens_for_tool_changes(client):
            listening = await stack.enter_async_context(anyio.create_task_group())
            stack.callback(listening.cancel_scope.cancel)  # unwinds first: the listen ends before the client
            await listening.start(follow_tool_changes, client, closed, on_tools_changed, config.name)
        yield SdkConnection(client, closed), closed
