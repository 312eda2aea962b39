"""MCP content (protocol JSON) → the model's content blocks: text, images, embedded resources, links."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping, Sequence
from typing import Any

from handrail.tools.mcp.model import McpCallOutcome, for_the_user_only
from handrail.tools.messages import ImageBlock, TextBlock, ToolResultBlock, ToolResultContent

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
# application/* types that are text (besides any +json, +xml or +yaml suffix)
_TEXT_APPLICATION_TYPES = frozenset(
    {"json", "xml", "javascript", "ecmascript", "yaml", "x-yaml", "toml", "x-toml", "csv", "sql", "graphql", "x-sh",
     "x-python", "x-www-form-urlencoded", "x-ndjson", "jsonl"}
)


def _text(text: str) -> TextBlock:
    return {"type": "text", "text": text}


def _decoded_size(data: str) -> int | None:
    try:
        return len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return None


def is_text_type(mime: str) -> bool:
    """Whether a MIME type names text (text/*, JSON, XML, YAML and the like)."""
    kind, _, subtype = mime.split(";", 1)[0].strip().lower().partition("/")
    if kind == "text":
        return True
    return kind == "application" and (
        subtype in _TEXT_APPLICATION_TYPES or subtype.endswith(("+json", "+xml", "+yaml"))
    )


def _charset(mime: str) -> str:
    for parameter in mime.split(";")[1:]:
        name, _, value = parameter.strip().partition("=")
        if name.strip().lower() == "charset" and value.strip():
            return value.strip().strip('"')
    return "utf-8"


def decoded_text(blob: str, mime: str) -> str | None:
    """A text blob's text (None when it is not base64 or not text in its charset)."""
    try:
        return base64.b64decode(blob, validate=True).decode(_charset(mime))
    except (binascii.Error, ValueError, LookupError):
        return None


def _image(data: Any, mime: Any, label: str) -> ImageBlock | TextBlock:
    """An image block when the model can read this image, else a note saying what was left out."""
    if isinstance(data, str) and mime in IMAGE_TYPES and _decoded_size(data) is not None:
        return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}
    return _text(f"[{label}: {mime or 'unknown type'} image that cannot be shown to the model]")


def _resource(resource: Mapping[str, Any]) -> ToolResultContent:
    uri = resource.get("uri", "")
    mime = resource.get("mimeType")
    if isinstance(resource.get("text"), str):
        return _text(f"[Resource: {uri}]\n{resource['text']}")
    blob = resource.get("blob")
    if isinstance(blob, str) and mime in IMAGE_TYPES:
        return _image(blob, mime, f"Resource {uri}")
    text = decoded_text(blob, mime) if isinstance(blob, str) and isinstance(mime, str) and is_text_type(mime) else None
    if text is not None:
        return _text(f"[Resource: {uri} ({mime})]\n{text}")
    size = _decoded_size(blob) if isinstance(blob, str) else None
    amount = f"{size} bytes" if size is not None else "binary data"
    return _text(f"[Resource: {uri} ({mime or 'unknown type'}), {amount} not shown]")


def content_block(item: Mapping[str, Any]) -> ToolResultContent:
    """One MCP content item as a model content block."""
    kind = item.get("type")
    if kind == "text":
        return _text(str(item.get("text", "")))
    if kind == "image":
        return _image(item.get("data"), item.get("mimeType"), "Image")
    if kind == "audio":
        return _text(f"[Audio ({item.get('mimeType', 'unknown type')}) not shown: the model cannot hear]")
    if kind == "resource" and isinstance(item.get("resource"), Mapping):
        return _resource(item["resource"])
    if kind == "resource_link":
        described = f" - {item['description']}" if item.get("description") else ""
        return _text(f"[Resource link: {item.get('name', '')} {item.get('uri', '')}{described}]")
    return _text(json.dumps(dict(item), ensure_ascii=False, default=str))


def for_the_model(content: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], int]:
    """The items the model may see, and how many were left out: annotated for the user's audience only."""
    kept: list[Mapping[str, Any]] = []
    for item in content:
        annotations = item.get("annotations")
        if isinstance(annotations, Mapping) and for_the_user_only(annotations.get("audience")):
            continue
        kept.append(item)
    return kept, len(content) - len(kept)


def content_blocks(content: Sequence[Mapping[str, Any]], structured: Any = None) -> list[ToolResultContent]:
    """The items meant for the model as blocks (a note counts those for the user only); structured content
    stands in when a server sent no content blocks at all."""
    kept, left_out = for_the_model(content)
    blocks = [content_block(item) for item in kept]
    if not content and structured is not None:
        blocks.append(_text(json.dumps(structured, ensure_ascii=False, default=str)))
    if left_out:
        blocks.append(_text(f"[{left_out} content item(s) meant for the user only were not shown to you]"))
    return blocks


def result_block(outcome: McpCallOutcome, tool_use_id: str) -> ToolResultBlock:
    """The tool_result for a call: its content (text alone as one string), `is_error` passed through."""
    blocks = content_blocks(outcome.content, outcome.structured)
    content: str | list[ToolResultContent]
    if all(block["type"] == "text" for block in blocks):
        content = "\n\n".join(block["text"] for block in blocks if block["type"] == "text") or "(no output)"
    else:
        content = blocks
    block: ToolResultBlock = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    if outcome.is_error:
        block["is_error"] = True
    return block
