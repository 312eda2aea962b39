"""The Messages API's shapes as handrail keeps them: a history message and its content blocks, typed.

The history is plain JSON (it is encoded for the API and written to transcripts as it is), so the shapes
are TypedDicts: a misspelt key or a block of the wrong shape fails type checking, and nothing changes at
run time. They live in `tools/` because a tool call's answer (a `tool_result`) is built here; the agent
loop above uses the same names. Each block's `type` is a literal, so checking `block["type"]` narrows a
`ContentBlock` to its member.

Blocks are kept in the shape the API accepts back (its `*Param` types); members a block may or may not
have are `NotRequired`. Nested values handrail only passes through (an image's source, a citation, a
server tool's result content) stay JSON values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypeAlias, TypedDict, TypeGuard


class CacheControl(TypedDict):
    """A prompt-cache breakpoint."""

    type: Literal["ephemeral"]


class TextBlock(TypedDict):
    """Text, from the user or the model (with the citations a server tool gave it)."""

    type: Literal["text"]
    text: str
    citations: NotRequired[list[dict[str, Any]]]
    cache_control: NotRequired[CacheControl]


class ImageBlock(TypedDict):
    """An image (in a prompt or a tool's result)."""

    type: Literal["image"]
    source: dict[str, Any]
    cache_control: NotRequired[CacheControl]


class DocumentBlock(TypedDict):
    """A document such as a PDF (in a prompt or a tool's result)."""

    type: Literal["document"]
    source: dict[str, Any]
    title: NotRequired[str]
    context: NotRequired[str]
    citations: NotRequired[dict[str, Any]]
    cache_control: NotRequired[CacheControl]


class ThinkingBlock(TypedDict):
    """The model's thinking, sent back unchanged (its signature vouches for it)."""

    type: Literal["thinking"]
    thinking: str
    signature: str


class RedactedThinkingBlock(TypedDict):
    """Thinking the API encrypted, sent back unchanged."""

    type: Literal["redacted_thinking"]
    data: str


class ToolUseBlock(TypedDict):
    """A call of one of handrail's tools."""

    type: Literal["tool_use"]
    id: str
    name: str
    input: Any  # the parsed JSON input ({} when it did not parse)
    cache_control: NotRequired[CacheControl]


ToolResultContent: TypeAlias = TextBlock | ImageBlock | DocumentBlock


class ToolResultBlock(TypedDict):
    """The answer to one `tool_use`: text, or a list of content blocks."""

    type: Literal["tool_result"]
    tool_use_id: str
    content: str | list[ToolResultContent]
    is_error: NotRequired[bool]
    cache_control: NotRequired[CacheControl]


class ServerToolUseBlock(TypedDict):
    """A call of a tool the API runs itself (web search); its result follows in the same message."""

    type: Literal["server_tool_use"]
    id: str
    name: str
    input: Any
    cache_control: NotRequired[CacheControl]


ServerToolResultType: TypeAlias = Literal[
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "tool_search_tool_result",
]


class ServerToolResultBlock(TypedDict):
    """The result of a server tool call, kept as the API sent it."""

    type: ServerToolResultType
    tool_use_id: str
    content: Any
    cache_control: NotRequired[CacheControl]


ContentBlock: TypeAlias = (
    TextBlock
    | ImageBlock
    | DocumentBlock
    | ThinkingBlock
    | RedactedThinkingBlock
    | ToolUseBlock
    | ToolResultBlock
    | ServerToolUseBlock
    | ServerToolResultBlock
)

Role: TypeAlias = Literal["user", "assistant"]


class Message(TypedDict):
    """One history message; handrail keeps its content as a list of blocks (a loaded string becomes one)."""

    role: Role
    content: list[ContentBlock]


# `block.get("type")` rather than `block["type"]`: a block loaded from a transcript or sent by a server may
# lack it, and such a block simply is none of these
def is_text(block: Mapping[str, object]) -> TypeGuard[TextBlock]:
    """Whether `block` is a text block."""
    return block.get("type") == "text"


def is_tool_use(block: Mapping[str, object]) -> TypeGuard[ToolUseBlock]:
    """Whether `block` is a call of one of handrail's tools."""
    return block.get("type") == "tool_use"


def is_tool_result(block: Mapping[str, object]) -> TypeGuard[ToolResultBlock]:
    """Whether `block` answers a `tool_use`."""
    return block.get("type") == "tool_result"


class TextMessage(TypedDict):
    """A message whose content is plain text, as the API also takes it (a one-off request's prompt)."""

    role: Role
    content: str


RequestMessage: TypeAlias = Message | TextMessage
