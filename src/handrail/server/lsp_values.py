"""Reading loosely typed LSP values: pygls gives dicts for LSPAny and namedtuples for custom payloads."""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams


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


def single_argument(args: tuple[Any, ...]) -> Any:
    """A command's one argument object, as plain values (InvalidParams for any other number of arguments)."""
    if len(args) != 1:
        raise JsonRpcInvalidParams(f"expected one argument object, got {len(args)}")
    return to_plain(args[0])


def name_argument(command: str, args: tuple[Any, ...]) -> str:
    """The `name` a command's single `{name}` argument gives (an MCP server's)."""
    name = field_of(single_argument(args), "name")
    if not isinstance(name, str) or not name:
        raise JsonRpcInvalidParams(f"{command}: expected [{{name}}]")
    return name
