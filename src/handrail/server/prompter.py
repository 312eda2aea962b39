"""Permission prompts in the editor: `handrail/permission` where declared, else `window/showMessageRequest`."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, get_args

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from handrail.permissions.persist import Destination
from handrail.server.chat import ChatChannel
from handrail.server.client_features import ClientFeatures
from handrail.server.lsp_values import field_of
from handrail.tools.context import PermissionAnswer, PermissionRequest

DESTINATIONS = get_args(Destination)
ALLOW_ONCE = "Allow once"
DENY = "Deny"
PERMISSION_METHOD = "handrail/permission"
_DIFF_LINES_IN_MESSAGE = 40


def always_allow_title(rule: str) -> str:
    """The action title offering to allow `rule` for the rest of the session."""
    return f"Always allow {rule}"


def always_allow_here_title(rule: str) -> str:
    """The action title offering to save `rule` in this workspace's local settings."""
    return f"Always allow {rule} in this workspace"


def message_text(request: PermissionRequest) -> str:
    """The text of a plain-LSP permission prompt."""
    lines = [f"handrail wants to run {request.tool_name}: {request.summary}", f"({request.reason})"]
    if request.agent is not None:
        lines.insert(0, f"From handrail's sub-agent: {request.agent.description}")
    if request.diff:
        diff_lines = request.diff.splitlines()
        lines.append("")
        lines.extend(diff_lines[:_DIFF_LINES_IN_MESSAGE])
        if len(diff_lines) > _DIFF_LINES_IN_MESSAGE:
            lines.append(f"… {len(diff_lines) - _DIFF_LINES_IN_MESSAGE} more diff lines")
    return "\n".join(lines)


def permission_params(session_id: str, request: PermissionRequest) -> dict[str, Any]:
    """The params of a `handrail/permission` request."""
    params: dict[str, Any] = {
        "sessionId": session_id,
        "toolUseId": request.tool_use_id,
        "tool": request.tool_name,
        "input": dict(request.input),
        "summary": request.summary,
        "reason": request.reason,
        "diff": request.diff,
        "suggestions": list(request.suggestions),
    }
    if request.agent is not None:
        params["agent"] = {"toolUseId": request.agent.tool_use_id, "description": request.agent.description}
    return params


async def send_cancellable(server: LanguageServer, method: str, params: Any) -> Any:
    """Send a request to the client; if we are cancelled meanwhile, tell the client to close its prompt."""
    msg_id = f"handrail-ask-{uuid.uuid4()}"
    future = server.protocol.send_request(method, params, msg_id=msg_id)
    try:
        return await asyncio.wrap_future(future)
    except asyncio.CancelledError:
        server.protocol.notify("$/cancelRequest", types.CancelParams(id=msg_id))
        raise


class LspPrompter:
    """Asks the user through the LSP client; implements the tool UserPrompter port."""

    def __init__(
        self,
        server: LanguageServer,
        features: ClientFeatures,
        chat: ChatChannel,
        persist: Callable[[Destination, str], Awaitable[Path | None]],
    ) -> None:
        self._server = server
        self._features = features
        self._chat = chat
        self._persist = persist

    async def ask_permission(self, request: PermissionRequest) -> PermissionAnswer:
        """Ask, and report the answer to the chat view (an abandoned prompt as "cancelled", so it can close)."""
        with self._chat.prompt(request.tool_use_id):
            if self._features.permission_request:
                answer = await self._ask_rich(request)
            else:
                answer = await self._ask_plain(request)
        if answer.decision == "allow_always" and answer.rule and answer.destination != "session":
            try:
                await self._persist(answer.destination, answer.rule)
            except (OSError, ValueError) as exc:  # the rule still holds for this session
                self._server.window_show_message(types.ShowMessageParams(
                    type=types.MessageType.Warning, message=f"handrail could not save the rule {answer.rule}: {exc}"
                ))
        self._chat.permission(request.tool_use_id, answer.decision)
        return answer

    async def _request(self, method: str, params: Any) -> Any:
        return await send_cancellable(self._server, method, params)

    async def _ask_plain(self, request: PermissionRequest) -> PermissionAnswer:
        rule = request.suggestions[0] if request.suggestions else request.tool_name
        actions = [ALLOW_ONCE, always_allow_title(rule), always_allow_here_title(rule), DENY]
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=message_text(request),
            actions=[types.MessageActionItem(title=title) for title in actions],
        )
        choice = await self._request(types.WINDOW_SHOW_MESSAGE_REQUEST, params)
        title = field_of(choice, "title")
        if title == ALLOW_ONCE:
            return PermissionAnswer("allow")
        if title == always_allow_title(rule):
            return PermissionAnswer("allow_always", rule=rule)
        if title == always_allow_here_title(rule):
            return PermissionAnswer("allow_always", rule=rule, destination="localSettings")
        return PermissionAnswer("deny")

    async def _ask_rich(self, request: PermissionRequest) -> PermissionAnswer:
        answer = await self._request(PERMISSION_METHOD, permission_params(self._chat.session_id, request))
        decision = field_of(answer, "decision")
        if decision == "allow":
            return PermissionAnswer("allow")
        if decision == "allowAlways":
            rule = field_of(answer, "rule") or (request.suggestions[0] if request.suggestions else None)
            destination = field_of(answer, "destination")
            if destination not in DESTINATIONS:
                destination = "session"
            return PermissionAnswer("allow_always", rule=rule, destination=destination)
        return PermissionAnswer("deny", feedback=field_of(answer, "feedback"))
