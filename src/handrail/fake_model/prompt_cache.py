"""Prompt caching as the Messages API bills it, simulated over the requests the fake model is sent.

A request's prompt is a sequence of blocks: the tool definitions, then the system text blocks,
then every message's content blocks. A block carrying `cache_control` (or the last block, when
the request has a top-level `cache_control`) is a breakpoint. For each breakpoint the API looks
for a cache entry of the prefix ending there, or at one of the 19 blocks before it (the 20-block
look-back), and reads the longest it finds; then it writes an entry for the prefix at every
breakpoint. Prefixes shorter than the model's minimum are neither written nor read.

Usage comes back split three ways: `cache_read_input_tokens` (the prefix found, billed at 0.1x),
`cache_creation_input_tokens` (from there to the last breakpoint, billed at 1.25x) and
`input_tokens` (after the last breakpoint, billed at 1x).

A block's identity is its exact JSON without `cache_control` (moving a breakpoint does not change
the prompt), with its message's role; the chain starts from the model (another model has its own
cache) and the thinking configuration joins it before the messages (changing it invalidates the
messages' entries, not the tools' or the system prompt's). Entries do not expire: a fake session
is much shorter than the API's five minutes.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

CHARS_PER_TOKEN = 4  # about what Claude's tokenizer gives for English text, code and JSON
LOOKBACK_BLOCKS = 20
MAX_BREAKPOINTS = 4
DEFAULT_MIN_CACHEABLE_TOKENS = 1024
# the prompt-caching docs' minimum prefix for the smaller models
_MIN_CACHEABLE_BY_FAMILY = {"haiku": 2048}

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


@dataclass(frozen=True)
class PromptBlock:
    """One block of a request's prompt: where it sits, what it costs, and whether it is a breakpoint."""

    where: str  # "tools.3", "system.0", "messages.5.content.2": for error messages
    tokens: int
    breakpoint: bool
    identity: str  # the block's exact JSON (with its role), without cache_control


@dataclass(frozen=True)
class CacheUsage:
    """A request's input tokens as the API reports them."""

    input_tokens: int
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    @property
    def total(self) -> int:
        """Every input token the request sent."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    def as_usage(self) -> dict[str, Any]:
        """The input fields of a usage object (all cache writes are 5-minute ones)."""
        return {
            "input_tokens": self.input_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "cache_creation": {
                "ephemeral_5m_input_tokens": self.cache_creation_input_tokens,
                "ephemeral_1h_input_tokens": 0,
            },
        }


def min_cacheable_tokens(model: str) -> int:
    """The shortest prefix the API caches for `model`."""
    for family, tokens in _MIN_CACHEABLE_BY_FAMILY.items():
        if family in model:
            return tokens
    return DEFAULT_MIN_CACHEABLE_TOKENS


def _tokens(text: str) -> int:
    return max(1, len(text) // CHARS_PER_TOKEN)


def _without_marker(block: Any) -> tuple[Any, bool]:
    if isinstance(block, dict) and "cache_control" in block:
        return {k: v for k, v in block.items() if k != "cache_control"}, block["cache_control"] is not None
    return block, False


def _blocks_of(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content) if isinstance(content, list) else []


def _raw_blocks(body: Mapping[str, Any]) -> Iterator[tuple[str, str, Any]]:
    """(where, role, block) for every block of the prompt, in the order the API caches them."""
    for i, tool in enumerate(body.get("tools") or []):
        yield f"tools.{i}", "tools", tool
    for i, block in enumerate(_blocks_of(body.get("system"))):
        yield f"system.{i}", "system", block
    for i, message in enumerate(body.get("messages") or []):
        if isinstance(message, dict):
            role = str(message.get("role"))
            for j, block in enumerate(_blocks_of(message.get("content"))):
                yield f"messages.{i}.content.{j}", role, block


def prompt_blocks(body: Mapping[str, Any]) -> list[PromptBlock]:
    """The request's prompt as blocks (a top-level `cache_control` makes the last one a breakpoint)."""
    blocks: list[PromptBlock] = []
    for where, role, raw in _raw_blocks(body):
        block, marked = _without_marker(raw)
        text = _encode(block)
        blocks.append(PromptBlock(where, _tokens(text), marked, _encode([role, block])))
    if body.get("cache_control") and blocks:
        blocks[-1] = PromptBlock(blocks[-1].where, blocks[-1].tokens, True, blocks[-1].identity)
    return blocks


def request_tokens(body: Mapping[str, Any]) -> int:
    """An estimate of the input tokens of a Messages API request: everything the model reads."""
    return sum(block.tokens for block in prompt_blocks(body))


def breakpoint_complaint(body: Mapping[str, Any]) -> str | None:
    """The API's complaint about the request's cache breakpoints, if any."""
    count = 1 if body.get("cache_control") else 0
    for where, _, raw in _raw_blocks(body):
        if not isinstance(raw, dict) or raw.get("cache_control") is None:
            continue
        count += 1
        if raw.get("type") in ("thinking", "redacted_thinking"):
            return f"{where}.cache_control: Thinking blocks cannot be cached directly with cache_control"
        if raw.get("type") == "text" and not raw.get("text"):
            return f"{where}.cache_control: cache_control cannot be set for empty text blocks"
    if count > MAX_BREAKPOINTS:
        return f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {count}."
    return None


def prefix_keys(body: Mapping[str, Any], blocks: Sequence[PromptBlock]) -> list[str]:
    """A key per block naming the whole prefix that ends with it (the model and thinking setting included)."""
    chain = hashlib.sha256(_encode(["model", body.get("model")]).encode())
    keys: list[str] = []
    in_messages = False
    for block in blocks:
        if not in_messages and block.where.startswith("messages."):
            in_messages = True
            chain.update(_encode(["thinking", body.get("thinking")]).encode())
        chain.update(block.identity.encode())
        chain.update(b"\0")
        keys.append(chain.copy().hexdigest())
    return keys


class PromptCache:
    """The cache entries written so far; `account` bills one request and writes its entries."""

    def __init__(self, min_tokens: int | None = None) -> None:
        self._min_tokens = min_tokens
        self._entries: set[str] = set()
        self._lock = threading.Lock()

    def account(self, body: Mapping[str, Any]) -> CacheUsage:
        """The request's usage as billed, its breakpoints' prefixes cached from now on."""
        blocks = prompt_blocks(body)
        keys = prefix_keys(body, blocks)
        reach = []  # tokens up to and including each block
        total = 0
        for block in blocks:
            total += block.tokens
            reach.append(total)
        minimum = self._min_tokens if self._min_tokens is not None else min_cacheable_tokens(str(body.get("model")))
        breakpoints = [i for i, block in enumerate(blocks) if block.breakpoint]
        with self._lock:
            read = 0
            for point in breakpoints:
                for i in range(point, max(-1, point - LOOKBACK_BLOCKS), -1):
                    if keys[i] in self._entries and reach[i] >= minimum:
                        read = max(read, reach[i])
                        break
            written = 0
            for point in breakpoints:
                if reach[point] >= minimum:
                    self._entries.add(keys[point])
                    written = max(written, reach[point])
        creation = max(0, written - read)
        return CacheUsage(total - read - creation, creation, read)


def ideal_usage(bodies: Sequence[Mapping[str, Any]]) -> list[CacheUsage]:
    """What each request would be billed if every prefix were cached: the longest prefix it shares with an
    earlier request is read, the rest written (no minimum, no look-back limit)."""
    seen: set[str] = set()
    usages = []
    for body in bodies:
        blocks = prompt_blocks(body)
        keys = prefix_keys(body, blocks)
        read = 0
        total = 0
        for block, key in zip(blocks, keys, strict=True):
            total += block.tokens
            if key in seen:
                read = total
        seen.update(keys)
        usages.append(CacheUsage(0, total - read, read))
    return usages


def billed_input(usage: CacheUsage | Mapping[str, Any]) -> float:
    """Input priced as the API bills it, in plain-input tokens: writes 1.25x, reads 0.1x, the rest 1x."""
    if isinstance(usage, CacheUsage):
        usage = usage.as_usage()
    return (
        int(usage.get("input_tokens") or 0)
        + 1.25 * int(usage.get("cache_creation_input_tokens") or 0)
        + 0.1 * int(usage.get("cache_read_input_tokens") or 0)
    )
