"""What handrail knows of an MCP server, as plain data: the SDK's objects never leave `sdk_adapter`.

Content blocks and resource contents are kept as the protocol's JSON (camelCase keys),
so mapping them to the model's blocks needs no SDK.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from handrail.errors import HandrailError

ProgressCallback = Callable[[float, float | None, str | None], Awaitable[None]]


def innermost_error(exc: BaseException) -> BaseException:
    """The first leaf of nested exception groups (task groups wrap what went wrong); `exc` itself otherwise."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


class McpConnectionLostError(HandrailError):
    """The server went away (process ended, connection refused or closed) during a request."""


class McpRequestError(HandrailError):
    """The server answered a request with a protocol error."""


@dataclass(frozen=True)
class McpToolSpec:
    """A tool as the server lists it."""

    name: str
    description: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({"type": "object"}))
    meta: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    title: str | None = None
    task_support: str | None = None  # execution.taskSupport: "required" means it can only run as an MCP task


def for_the_user_only(audience: Any) -> bool:
    """Whether an `annotations.audience` says the content is meant for the user, not for the model."""
    return isinstance(audience, list | tuple) and bool(audience) and "assistant" not in audience


@dataclass(frozen=True)
class McpCallOutcome:
    """What a tools/call returned: content blocks (protocol JSON), structured content, and the error flag."""

    content: tuple[Mapping[str, Any], ...]
    structured: Any = None
    is_error: bool = False


@dataclass(frozen=True)
class McpResource:
    """A resource as the server lists it."""

    uri: str
    name: str
    description: str | None = None
    mime_type: str | None = None
    audience: tuple[str, ...] = ()  # annotations.audience: who it is meant for ("user", "assistant")


class McpConnection(Protocol):
    """A live connection to one server (implemented by `sdk_adapter`)."""

    @property
    def supports_resources(self) -> bool:
        """Whether the server offers resources."""
        ...

    async def list_tools(self) -> tuple[McpToolSpec, ...]:
        """Every tool (all pages)."""
        ...

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any], on_progress: ProgressCallback | None
    ) -> McpCallOutcome:
        """Call a tool; cancelling the awaiting task cancels the request on the server."""
        ...

    async def list_resources(self) -> tuple[McpResource, ...]:
        """Every resource (all pages)."""
        ...

    async def read_resource(self, uri: str) -> tuple[Mapping[str, Any], ...]:
        """The contents of one resource (protocol JSON: uri, mimeType, text or blob)."""
        ...
