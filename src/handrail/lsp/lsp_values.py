"""Reading loosely typed LSP values: pygls gives dicts for LSPAny and namedtuples for custom payloads."""

from __future__ import annotations

from typing import Any


def field_of(value: Any, key: str) -> Any:
    """`value[key]` for dicts, `value.key` for namedtuples and objects; None when absent."""
    if isinstance(value, dict):
        return value.get(key)
    return getattr(value, key, None)


def to_plain(value: Any) -> Any:
    """Turn pygls's namedtuple `Object`s (and lists of them) into dicts and lists."""
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {k: to_plain(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    return value
