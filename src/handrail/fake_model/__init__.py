"""A scripted fake of the Anthropic Messages API for tests and `handrail demo`."""

from handrail.fake_model.conversations import Conversations, first_user_text
from handrail.fake_model.prompt_cache import CacheUsage, PromptCache, billed_input, ideal_usage, prompt_blocks
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
    Thinking,
    ToolUse,
    WebSearchResult,
    thinking_signature,
)
from handrail.fake_model.server import EXHAUSTED_MESSAGE, FakeModel, thinking_complaint, validate_request
from handrail.fake_model.sse import cut_index, encode_event, message_json, reply_events
from handrail.fake_model.usage import counted, request_tokens

__all__ = [
    "EXHAUSTED_MESSAGE",
    "Block",
    "CacheUsage",
    "Conversations",
    "Drop",
    "FakeModel",
    "Fault",
    "Hold",
    "HttpError",
    "Malformed",
    "PromptCache",
    "Reply",
    "Script",
    "ServerToolUse",
    "Step",
    "StreamError",
    "Text",
    "Thinking",
    "ToolUse",
    "WebSearchResult",
    "billed_input",
    "counted",
    "cut_index",
    "encode_event",
    "first_user_text",
    "ideal_usage",
    "message_json",
    "prompt_blocks",
    "reply_events",
    "request_tokens",
    "thinking_complaint",
    "thinking_signature",
    "validate_request",
]
