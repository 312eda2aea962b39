"""Permission prompts in the editor: `handrail/permission` where declared, else `window/showMessageRequest`."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, get_args

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from handrail.lsp.chat import ChatChannel
from handrail.lsp.client_features import ClientFeatures
from handrail.lsp.lsp_values import field_of
from handrail.lsp.plain_prompts import PlainPrompts, not_approved_message, send_cancellable
from handrail.permissions.persist import Destination
from handrail.permissions.rules import MCP_PREFIX
from handrail.permissions.visible import cut_middle, visible
from handrail.tools.context import PermissionAnswer, PermissionRequest
from handrail.wire.names import PERMISSION_METHOD

log = logging.getLogger(__name__)
DESTINATIONS = get_args(Destination)
ALLOW_ONCE = "Allow once"
DENY = "Deny"
SHOW_FULL_COMMAND = "Show full command"
_DIFF_LINES_IN_MESSAGE = 40
COMMAND_CHARS_IN_MESSAGE = 1500
_ARGUMENT_CHARS_IN_MESSAGE = 2000


def always_allow_title(rules: Sequence[str]) -> str:
    """The action title offering to allow every one of `rules` for the rest of the session (escaped)."""
    return f"Always allow {visible(', '.join(rules))}"


def always_allow_here_title(rules: Sequence[str]) -> str:
    """The action title offering to save `rules` in this workspace's local settings."""
    return f"{always_allow_title(rules)} in this workspace"


def shown_command(request: PermissionRequest) -> str | None:
    """The command as the message shows it: escaped, its start and end kept when it is long (None for no command)."""
    if request.command is None:
        return None
    return cut_middle(visible(request.command, keep_newlines=True), COMMAND_CHARS_IN_MESSAGE)


def command_is_cut(request: PermissionRequest) -> bool:
    """Whether the message could not show the whole command (then the user may ask to see it)."""
    return request.command is not None and shown_command(request) != visible(request.command, keep_newlines=True)


def message_text(request: PermissionRequest) -> str:
    """The text of a plain-LSP permission prompt: what runs first, exactly (the command, or the tool and its
    file), so that a display of one line shows it; who asks, the model's words and why after it."""
    command = shown_command(request)
    asker = "handrail" if request.agent is None else f"handrail's sub-agent ({visible(request.agent.description)})"
    if command is not None:
        lines = [f"$ {command}", f"{asker} asks to run this {request.tool_name} command."]
        if request.description:
            lines.append(f"The model describes it as: {visible(request.description)}")
    else:
        summary = visible(request.summary)
        what = summary if summary.startswith(request.tool_name) else f"{request.tool_name}: {summary}"
        lines = [what, f"{asker} asks to run this."]
        if request.tool_name.startswith(MCP_PREFIX):  # the summary cuts the arguments short
            arguments = json.dumps(dict(request.input), ensure_ascii=False, default=str)
            lines.append(f"Arguments: {cut_middle(visible(arguments), _ARGUMENT_CHARS_IN_MESSAGE)}")
    lines.append(f"({visible(request.reason)})")
    if request.diff:
        diff_lines = visible(request.diff, keep_newlines=True).splitlines()
        lines.append("")
        lines.extend(diff_lines[:_DIFF_LINES_IN_MESSAGE])
        if len(diff_lines) > _DIFF_LINES_IN_MESSAGE:
            lines.append(f"… {len(diff_lines) - _DIFF_LINES_IN_MESSAGE} more diff lines")
    return "\n".join(lines)


def permission_params(session_id: str, request: PermissionRequest) -> dict[str, Any]:
    """The params of a `handrail/permission` request.

    `command` is the exact command (clients show it first, escaped) and `description` the
    model's words for it; `suggestions` are the rules "always allow" adds, all together.
    """
    params: dict[str, Any] = {
        "sessionId": session_id,
        "toolUseId": request.tool_use_id,
        "tool": request.tool_name,
        "input": dict(request.input),
        "summary": request.summary,
        "reason": request.reason,
        "diff": request.diff,
        "suggestions": list(request.suggestions),
        "command": request.command,
        "description": request.description,
    }
    if request.agent is not None:
        params["agent"] = {"toolUseId": request.agent.tool_use_id, "description": request.agent.description}
    return params


class LspPrompter:
    """Asks the user through the LSP client; implements the tool UserPrompter port."""

    def __init__(
        self,
        server: LanguageServer,
        features: ClientFeatures,
        chat: ChatChannel,
        persist: Callable[[Destination, Sequence[str]], Awaitable[Path | None]],
        plain: PlainPrompts,
    ) -> None:
        self._server = server
        self._features = features
        self._chat = chat
        self._persist = persist
        self._plain = plain

    async def ask_permission(self, request: PermissionRequest) -> PermissionAnswer:
        """Ask, and report the answer to the chat view (an abandoned prompt as "cancelled", so it can close)."""
        with self._chat.prompt(request.tool_use_id):
            if self._features.permission_request:
                answer = await self._ask_rich(request)
            else:
                answer = await self._ask_plain(request)
        rules = answer.rules or request.suggestions
        if answer.decision == "allow_always" and rules and answer.destination != "session":
            try:
                await self._persist(answer.destination, rules)
            except (OSError, ValueError) as exc:  # the rules still hold for this session
                self._server.window_show_message(types.ShowMessageParams(
                    type=types.MessageType.Warning,
                    message=f"handrail could not save the rules {', '.join(rules)}: {exc}",
                ))
        self._chat.permission(request.tool_use_id, answer.decision)
        return answer

    async def _ask_plain(self, request: PermissionRequest) -> PermissionAnswer:
        # Deny comes first: editors that pre-select the first action (Eglot) then deny on a bare RET.
        # No suggestion: no rule is safe to offer (a flagged command), and the tool's name would allow every call.
        rules = request.suggestions
        always = [always_allow_title(rules), always_allow_here_title(rules)] if rules else []
        actions = [DENY, ALLOW_ONCE, *always]
        if command_is_cut(request):
            actions.insert(1, SHOW_FULL_COMMAND)
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=message_text(request),
            actions=[types.MessageActionItem(title=title) for title in actions],
        )
        while True:
            answer = await self._plain.ask(params)
            if answer.failure is not None:
                return PermissionAnswer("deny", message=not_approved_message(answer.failure))
            title = answer.title
            if title != SHOW_FULL_COMMAND or request.command is None:
                break
            full = visible(request.command, keep_newlines=True)  # then the same question again
            self._server.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Info, message=f"The full command:\n$ {full}")
            )
        if title == ALLOW_ONCE:
            return PermissionAnswer("allow")
        if rules and title == always_allow_title(rules):
            return PermissionAnswer("allow_always", rules=rules)
        if rules and title == always_allow_here_title(rules):
            return PermissionAnswer("allow_always", rules=rules, destination="localSettings")
        return PermissionAnswer("deny")

    async def _ask_rich(self, request: PermissionRequest) -> PermissionAnswer:
        try:
            answer = await send_cancellable(
                self._server, PERMISSION_METHOD, permission_params(self._chat.session_id, request)
            )
        except Exception as exc:  # an error reply is no approval
            log.warning("%s failed: %s", PERMISSION_METHOD, exc)
            return PermissionAnswer("deny", message=not_approved_message(f"the editor answered with an error: {exc}"))
        decision = field_of(answer, "decision")
        if decision == "allow":
            return PermissionAnswer("allow")
        if decision == "allowAlways":
            destination = field_of(answer, "destination")
            if destination not in DESTINATIONS:
                destination = "session"
            return PermissionAnswer("allow_always", rules=_answered_rules(answer), destination=destination)
        return PermissionAnswer("deny", feedback=field_of(answer, "feedback"))


def _answered_rules(answer: Any) -> tuple[str, ...]:
    """The rules a `handrail/permission` answer names: `rules`, or one `rule` (older clients); none means
    the suggestions."""
    rules = field_of(answer, "rules")
    if isinstance(rules, list) and rules and all(isinstance(r, str) and r for r in rules):
        return tuple(rules)
    rule = field_of(answer, "rule")
    return (rule,) if isinstance(rule, str) and rule else ()
