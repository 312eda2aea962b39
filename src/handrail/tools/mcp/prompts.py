"""MCP prompts as the user's commands: `/mcp__<server>__<prompt> args` (as in Claude Code), their arguments bound
and checked, and the rendered prompt turned into the content of the user's turn.

Arguments are written after the command, separated by spaces (quote one that holds spaces);
they fill the prompt's arguments in the order the server lists them, and the last one takes
whatever text remains, so `/mcp__docs__search how do I deploy` needs no quotes.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from handrail.errors import HandrailError
from handrail.permissions.rules import MCP_PREFIX
from handrail.tools.mcp.model import McpPromptMessage, McpPromptSpec
from handrail.tools.mcp.names import mcp_tool_name
from handrail.tools.mcp.results import content_block, for_the_model
from handrail.tools.messages import ToolResultContent


class PromptUsageError(HandrailError, ValueError):
    """A prompt named or called wrongly; the message says how to call it."""


@dataclass(frozen=True)
class SlashCommand:
    """`/name rest` as typed."""

    name: str
    rest: str


def prompt_command(server: str, prompt: str) -> str:
    """The command that runs `prompt` of `server` (without the slash): `mcp__<server>__<prompt>`."""
    return mcp_tool_name(server, prompt)


def parse_slash(text: str) -> SlashCommand | None:
    """The MCP prompt command a user's prompt starts with (None when it is not one)."""
    stripped = text.strip()
    if not stripped.startswith("/" + MCP_PREFIX):
        return None
    name, _, rest = stripped[1:].partition(" ")
    return SlashCommand(name, rest.strip())


def usage(spec: McpPromptSpec, command: str) -> str:
    """`/command <required> [optional]`."""
    words = [f"<{a.name}>" if a.required else f"[{a.name}]" for a in spec.arguments]
    return " ".join([f"/{command}", *words])


def _words(text: str, command: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise PromptUsageError(f"/{command}: cannot read the arguments ({exc})") from exc


def bind_words(spec: McpPromptSpec, command: str, text: str) -> dict[str, str]:
    """The arguments typed after the command, bound to the prompt's arguments in order."""
    words = _words(text, command)
    arguments = spec.arguments
    if words and not arguments:
        raise PromptUsageError(f"/{command} takes no arguments. Usage: {usage(spec, command)}")
    bound: dict[str, str] = {}
    for index, argument in enumerate(arguments):
        if index >= len(words):
            break
        last = index == len(arguments) - 1
        bound[argument.name] = " ".join(words[index:]) if last else words[index]
    return check_arguments(spec, command, bound)


def check_arguments(spec: McpPromptSpec, command: str, given: Mapping[str, Any]) -> dict[str, str]:
    """`given` when it names only the prompt's arguments, as strings, and every required one; else PromptUsageError."""
    known = {a.name for a in spec.arguments}
    unknown = sorted(set(given) - known)
    if unknown:
        raise PromptUsageError(
            f"/{command} has no argument {', '.join(repr(u) for u in unknown)}. Usage: {usage(spec, command)}"
        )
    wrong = sorted(name for name, value in given.items() if not isinstance(value, str))
    if wrong:
        raise PromptUsageError(f"/{command}: the argument {wrong[0]!r} must be text")
    missing = [a for a in spec.arguments if a.required and not str(given.get(a.name, "")).strip()]
    if missing:
        described = "; ".join(f"{a.name}: {a.description}" if a.description else a.name for a in missing)
        raise PromptUsageError(f"/{command} needs {described}. Usage: {usage(spec, command)}")
    return {name: str(value) for name, value in given.items()}


def prompt_content(messages: Sequence[McpPromptMessage]) -> list[ToolResultContent]:
    """The rendered prompt as the content of the user's turn: every message's content, in order (what a
    server meant for the user's eyes only is left out, as with tool results)."""
    kept, _ = for_the_model([m.content for m in messages])
    return [content_block(item) for item in kept]
