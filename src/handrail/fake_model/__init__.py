"""A scripted fake of the Anthropic Messages API for tests and `handrail demo`."""

from handrail.fake_model.conversations import Conversations, first_user_text
from handrail.fake_model.script import (
    Block,
    Drop,
    Fault,
    Hold,
    HttpError,
    Malformed,
    Reply,
    Script,
    ServerToolUse,
    Step,
    StreamError,
    Text,
    ToolUse,
    WebSearchResult,
)
from handrail.fake_model.server import EXHAUSTED_MESSAGE, FakeModel, validate_request
from handrail.fake_model.sse import cut_index, encode_event, message_json, reply_events
from handrail.fake_model.usage import counted, request_tokens

__all__ = [
    "EXHAUSTED_MESSAGE",
    "Block",
    "Conversations",
    "Drop",
    "FakeModel",
    "Fault",
    "Hold",
    "HttpError",
    "Malformed",
    "Reply",
    "Script",
    "ServerToolUse",
    "Step",
    "StreamError",
    "Text",
    "ToolUse",
    "WebSearchResult",
    "counted",
    "cut_index",
    "encode_event",
    "first_user_text",
    "message_json",
    "reply_events",
    "request_tokens",
    "validate_request",
]
