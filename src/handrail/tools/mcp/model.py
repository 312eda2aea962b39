"""What handrail knows of an MCP server, as plain data: the SDK's objects never leave `sdk_adapter`.

Content blocks and resource contents are kept as the protocol's JSON (camelCase keys),
so mapping them to the model's blocks needs no SDK.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, Protocol

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


class McpSignInRequiredError(HandrailError):
    """A remote server wants an OAuth sign-in that only the user can give (`where`: the sign-in page's origin)."""

    def __init__(self, where: str) -> None:
        super().__init__(f"it needs you to sign in at {where}")
        self.where = where


@dataclass(frozen=True)
class McpToolSpec:
    """A tool as the server lists it."""

    name: str
    description: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({"type": "object"}))
    meta: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    title: str | None = None
    task_support: str | None = None  # execution.taskSupport: "required" means it can only run as an MCP task
    read_only: bool = False  # annotations.readOnlyHint is true
    destructive: bool = False  # annotations.destructiveHint is explicitly true (and the tool is not read-only)


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


@dataclass(frozen=True)
class McpResourceTemplate:
    """A resource template as the server lists it: an RFC 6570 URI template whose variables the reader fills."""

    uri_template: str
    name: str
    description: str | None = None
    mime_type: str | None = None
    audience: tuple[str, ...] = ()


@dataclass(frozen=True)
class McpPromptArgument:
    """One argument of a prompt."""

    name: str
    description: str | None = None
    required: bool = False


@dataclass(frozen=True)
class McpPromptSpec:
    """A prompt as the server lists it."""

    name: str
    title: str | None = None
    description: str | None = None
    arguments: tuple[McpPromptArgument, ...] = ()


@dataclass(frozen=True)
class McpPromptMessage:
    """One message of a prompt the server rendered: its role and one content block (protocol JSON)."""

    role: str
    content: Mapping[str, Any]


ElicitationAction = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True)
class ElicitationRequest:
    """A server's elicitation/create: a form (`schema`: a flat JSON Schema object) or a URL to open."""

    message: str
    mode: Literal["form", "url"] = "form"
    schema: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    url: str | None = None
    elicitation_id: str | None = None


@dataclass(frozen=True)
class ElicitationAnswer:
    """The user's answer: accept (with the form's content), decline, or cancel (dismissed)."""

    action: ElicitationAction
    content: Mapping[str, Any] | None = None


class McpClientHooks(Protocol):
    """What a server may ask of the editor (implemented by the server layer; tests implement it in memory)."""

    async def elicit(self, server: str, request: ElicitationRequest) -> ElicitationAnswer:
        """Ask the user for what `request` describes; never raises (a failure is a decline or a cancel)."""
        ...

    def roots(self) -> Sequence[Path]:
        """The workspace folders, advertised to servers as their roots."""
        ...

    def log(self, server: str, level: str, logger: str | None, data: Any) -> None:
        """A log message the server sent (notifications/message)."""
        ...

    async def open_browser(self, server: str, url: str) -> bool:
        """Open `url` in the user's browser (an OAuth sign-in); whether the editor did."""
        ...


class McpConnection(Protocol):
    """A live connection to one server (implemented by `sdk_adapter`)."""

    @property
    def supports_resources(self) -> bool:
        """Whether the server offers resources."""
        ...

    @property
    def supports_prompts(self) -> bool:
        """Whether the server offers prompts."""
        ...

    @property
    def instructions(self) -> str | None:
        """What the server's authors tell the model about using it (the initialize result's instructions)."""
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

    async def list_resource_templates(self) -> tuple[McpResourceTemplate, ...]:
        """Every resource template (all pages)."""
        ...

    async def list_prompts(self) -> tuple[McpPromptSpec, ...]:
        """Every prompt (all pages)."""
        ...

    async def get_prompt(self, name: str, arguments: Mapping[str, str]) -> tuple[McpPromptMessage, ...]:
        """The messages of prompt `name` rendered with `arguments`."""
        ...

    async def roots_changed(self) -> None:
        """Tell the server the roots changed (handshake-era servers only; others ask when they need them)."""
        ...
