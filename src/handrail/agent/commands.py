"""The server's small commands: the permission mode, the rules in force, approvals, background tasks, cancel."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pygls.exceptions import JsonRpcInvalidParams

from handrail.agent.background_events import background_listing
from handrail.agent.project_approval import approve_project_skills
from handrail.agent.session_modes import set_session_mode
from handrail.lsp.chat import ChatChannel
from handrail.lsp.lsp_values import field_of
from handrail.permissions.context import PermissionContext
from handrail.permissions.modes import PERMISSION_MODES, PermissionMode
from handrail.permissions.workspace import WorkspacePermissions

if TYPE_CHECKING:
    from handrail.lsp.app import HandrailServer


class CancelParams(BaseModel):
    """Arguments of `handrail.cancel`."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")
    session_id: str = Field(alias="sessionId")


class SetModeParams(BaseModel):
    """Arguments of `handrail.setMode` (without a session: the server's default for every session)."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")
    mode: PermissionMode
    session_id: str | None = Field(default=None, alias="sessionId")


async def set_mode(ls: HandrailServer, argument: Any) -> dict[str, Any]:
    """`handrail.setMode`: a session's permission mode, or the server's default for every session."""
    try:
        params = SetModeParams.model_validate(argument)
    except ValidationError as exc:
        given = field_of(argument, "mode")
        modes = ", ".join(PERMISSION_MODES)
        raise JsonRpcInvalidParams(f"handrail.setMode: unknown mode {given!r}; choose one of: {modes}") from exc
    await ls.permission_state.refresh()
    try:
        ls.permission_state.context_for((), params.mode)
    except ValueError as exc:
        raise JsonRpcInvalidParams(f"handrail.setMode: {exc}") from exc
    session = ls.sessions.get(params.session_id) if params.session_id else None
    if session is None and params.session_id:  # a client may name its session before the first ask
        session = ls.sessions.create(ls.permission_state.context_for((), None), params.session_id)
    if session is None:
        ls.default_mode = params.mode
        for existing in ls.sessions.all():
            ls.update_session_context(existing)
            ChatChannel(ls, existing.id, None).mode(existing.permission_context.mode)
        return {"mode": params.mode, "scope": "server"}
    set_session_mode(session, params.mode, ls.update_session_context)
    ChatChannel(ls, session.id, None).mode(session.permission_context.mode)
    return {"mode": params.mode, "scope": "session", "sessionId": session.id}


async def permissions(ls: HandrailServer, session_id: Any) -> dict[str, Any]:
    """`handrail.permissions`: the rules in force for a session (or the workspace) and those that are not."""
    # the sessions' contexts too: a session's context from before a change (of trust, say) that another
    # refresh is still loading must not be what this answer shows
    current = await ls.refresh_permissions()
    session = ls.sessions.get(session_id) if isinstance(session_id, str) else None
    context = session.permission_context if session is not None else current.context
    return describe_context(context, current)


def describe_context(context: PermissionContext, current: WorkspacePermissions) -> dict[str, Any]:
    """The rules in force and those that are not (with why), for users debugging their settings."""

    def rules(behavior: Any) -> list[dict[str, str]]:
        return [{"rule": str(r), "source": r.source} for r in context.rules(behavior)]

    return {
        "mode": context.mode,
        "workingDirectories": [str(p) for p in context.working_directories],
        "allow": rules("allow"),
        "deny": rules("deny"),
        "ask": rules("ask"),
        "inactive": [
            _with_approval(
                {"rule": str(r.rule), "behavior": r.behavior, "source": r.rule.source, "reason": r.reason}, r.digest
            )
            for r in context.inactive_rules
        ]
        + [
            _with_approval({"setting": s.key, "source": s.source, "reason": s.reason, "value": s.value}, s.digest)
            for s in context.inactive_settings
        ],
        "problems": [{"file": str(p.file), "message": p.message, "rule": p.rule} for p in current.problems],
    }


def _with_approval(entry: dict[str, Any], digest: str | None) -> dict[str, Any]:
    """An inactive entry, with the `digest` that approves it when approving can make it apply."""
    if entry.get("value") is None:
        entry.pop("value", None)
    if digest is not None:
        entry["digest"] = digest
    return entry


async def approve(ls: HandrailServer, argument: Any) -> dict[str, Any]:
    """`handrail.approveProjectSettings`: what waits in the workspace's settings files, and its skills.

    With `[{"items": [digest, ...]}]` (the `digest`s of `handrail.permissions`' inactive entries
    the user was shown) exactly those items; without, everything that waits now.
    """
    digests = field_of(argument, "items") if argument is not None else None
    if digests is not None and not (isinstance(digests, list) and all(isinstance(d, str) for d in digests)):
        raise JsonRpcInvalidParams("handrail.approveProjectSettings: 'items' must be a list of digests")
    items = await ls.permission_state.approve_project_files(digests)
    skills = await approve_project_skills(ls) if digests is None else 0
    for session in ls.sessions.all():
        ls.update_session_context(session)
    await ls.mcp.sync(reload=False)  # an approved server definition starts
    return {"approved": len(items) + skills, "items": items}


def background_tasks(ls: HandrailServer, argument: Any) -> list[dict[str, str]]:
    """`handrail.backgroundTasks`: a session's background agents and shells."""
    session_id = field_of(argument, "sessionId")
    if not isinstance(session_id, str):
        raise JsonRpcInvalidParams("handrail.backgroundTasks: expected [{sessionId}]")
    session = ls.sessions.get(session_id)  # a session not started yet has no background work
    return background_listing(session) if session is not None else []


def cancel(ls: HandrailServer, argument: Any) -> dict[str, Any]:
    """`handrail.cancel`: stop a session's running turn."""
    try:
        params = CancelParams.model_validate(argument)
    except ValidationError as exc:
        raise JsonRpcInvalidParams(f"handrail.cancel: {exc}") from exc
    session = ls.sessions.get(params.session_id)
    if session is None or not session.busy or session.turn is None:
        return {"cancelled": False}
    session.turn.cancel()
    return {"cancelled": True}
