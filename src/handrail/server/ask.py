"""The `handrail.ask` command: one turn of the agent in a session, wired to the editor."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcInvalidRequest

from handrail.permissions.context import PermissionContext
from handrail.server.agent_loop import TurnConfig, TurnResult, run_turn
from handrail.server.ask_user import LspQuestions
from handrail.server.audit import AuditFile
from handrail.server.chat import ChatChannel, begin_progress, end_progress
from handrail.server.diagnostics_store import EditorDiagnosticsView
from handrail.server.editor_fs import EditorFileSystem
from handrail.server.mcp_manager import ask_with_message_request
from handrail.server.mcp_prompts import slash_content
from handrail.server.project_approval import current_approvals, offer_project_approval
from handrail.server.project_instructions import NestedInstructions, root_instructions
from handrail.server.prompter import LspPrompter
from handrail.server.session import Session, SessionCatalog
from handrail.server.session_modes import SessionModes
from handrail.server.session_todos import SessionTodos
from handrail.server.skill_host import SessionSkills, load_skills, skill_pool_tools
from handrail.server.small_model import ClientSmallModel
from handrail.server.storage import TOOL_RESULTS_DIR, session_storage
from handrail.server.subagents import SubAgents, agent_pool_tools
from handrail.server.system_prompt import system_prompt, today
from handrail.server.usage import TurnUsage, price_book
from handrail.server.web_search import server_tools
from handrail.tools.context import ToolOptions, ToolUseContext
from handrail.tools.live_pool import LiveToolPool
from handrail.tools.mcp.mentions import MentionError, mentioned_content
from handrail.tools.registry import assemble_tool_pool, simple_mode

if TYPE_CHECKING:
    from handrail.server.app import HandrailServer

log = logging.getLogger(__name__)


class AskParams(BaseModel):
    """Arguments of `handrail.ask`."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")
    prompt: str = Field(min_length=1)
    session_id: str | None = Field(default=None, alias="sessionId")


async def ask(ls: HandrailServer, argument: Any, content: list[Any] | None = None) -> dict[str, Any]:
    """`handrail.ask`: run a turn of the agent in a session (a new one unless the arguments name one).

    `content` is the turn's content when it is not the prompt's text (an MCP prompt's); a prompt
    that is an MCP prompt command (`/mcp__server__prompt args`) is rendered by its server first.
    """
    try:
        params = AskParams.model_validate(argument)
    except ValidationError as exc:
        raise JsonRpcInvalidParams(f"handrail.ask: {exc}") from exc
    if content is None:
        content = await slash_content(ls, params.prompt)
    roots = ls.workspace_roots()
    session = ls.sessions.get(params.session_id) if params.session_id else None
    if session is None:
        session = ls.sessions.create(PermissionContext(workspace_roots=roots), params.session_id)
    if session.busy:
        raise JsonRpcInvalidRequest(f"session {session.id} is still running a turn; cancel it or wait")
    session.starting = True  # claimed before the first await, so a second ask sees it busy
    try:
        if params.session_id:  # a session from before a restart continues from its transcript
            await ls.archive.resume(session)
        return await _run_ask(ls, session, params, roots, content)
    finally:
        session.starting = False
        if session.turn_rules:  # what skills granted ends with the turn (background work must not keep it)
            session.turn_rules.clear()
            ls.update_session_context(session)


async def _run_ask(
    ls: HandrailServer, session: Session, params: AskParams, roots: tuple[Path, ...], content: list[Any] | None
) -> dict[str, Any]:
    await ls.permission_state.refresh()
    await ls.mcp.sync(reload=False)
    unapproved = ls.mcp.awaiting_approval()
    skills = await load_skills(roots, current_approvals(ls), ls.skill_problems)
    await offer_project_approval(ls, skills)
    await ls.mcp.sync(reload=False)
    await ls.mcp.offer_approvals(lambda message, actions: ask_with_message_request(ls, message, actions))
    await ls.mcp.wait_started(unapproved)  # approved just now: this turn has its tools
    ls.update_session_context(session)
    try:  # `@server:uri`: resources the user attached
        attached = await mentioned_content(params.prompt, ls.mcp.connections(), session.permission_context)
    except MentionError as exc:
        raise JsonRpcInvalidParams(f"handrail.ask: {exc}") from exc
    if attached:
        content = [*(content or [{"type": "text", "text": params.prompt}]), *attached]
    settings = await ls.agent_settings()
    token = await begin_progress(ls, "handrail")
    chat = ChatChannel(ls, session.id, token)
    simple = simple_mode(setting=settings.simple_tools)
    agents_catalog = await ls.agent_catalogs.load(roots, current_approvals(ls))
    extra_builtins = (
        *agent_pool_tools(agents_catalog, session.permission_context, simple=simple),
        *skill_pool_tools(skills, session.permission_context, simple=simple),
        *ls.mcp.resource_tools(),
    )
    context = session.permission_context  # as at the turn's start, like the built-ins: the cached prefix holds
    pool = LiveToolPool(  # MCP servers' tools/list_changed reach the turn's next request
        ls.mcp.tools,
        lambda mcp_tools: assemble_tool_pool(context, mcp_tools, simple=simple, extra_builtins=extra_builtins),
    )
    catalog = SessionCatalog(session, pool)
    deferred = tuple(t.name for t in pool.deferred())
    sent_names = tuple(t.name for t in pool.tools if t.name not in deferred)
    fs = EditorFileSystem(
        ls, ls.document_watch, lambda: ls.features.save_document, lambda: ls.features.create_files
    )
    prompter = LspPrompter(ls, ls.features, chat, ls.permission_state.persist_rules)
    questions = LspQuestions(ls, ls.features, chat)
    small_model = ClientSmallModel(ls.model_client(settings.small_model)) if settings.small_model else None
    diagnostics = EditorDiagnosticsView(ls.diagnostics, fs, lambda: ls.features.diagnostics)
    options = ToolOptions(
        cwd=roots[0],
        workspace_roots=roots,
        tool_names=tuple(t.name for t in pool.tools),
        results_dir=session_storage(session.id) / TOOL_RESULTS_DIR,
        session_id=session.id,
    )
    audit = AuditFile(session_storage(session.id) / "audit.jsonl")
    instructions = await asyncio.to_thread(root_instructions, roots)
    usage = TurnUsage(price_book(settings.prices), session.usage)
    agents = SubAgents(
        parent=session,
        tools=pool.tools,
        catalog=agents_catalog,
        model_settings=settings.model,
        models=ls.model_client,
        roots=roots,
        instructions=instructions,
        max_turns=settings.max_turns,
        usage=usage,
        chat=chat,
        prompter=prompter,
    )
    todos = SessionTodos(session, chat)
    ls.background_watch.watch(session)

    def make_context(current: Session) -> ToolUseContext:
        return ToolUseContext(
            options=options,
            fs=fs,
            file_state=current.file_state,
            prompter=prompter,
            progress=chat,
            permission_context=current.permission_context,
            messages=current.messages,
            catalog=catalog,
            audit=audit,
            permission_updates=current.updates,
            shell=current.shell,
            agents=agents,
            todos=todos,
            questions=questions,
            modes=SessionModes(current, ls.update_session_context, chat),
            small_model=small_model,
            diagnostics=diagnostics,
            background_agents=current.background_agents,
            skills=SessionSkills(session, skills, lambda: current_approvals(ls), ls.update_session_context),
        )

    now = today()
    config = TurnConfig(
        model=ls.model_client(settings.model),
        tools=pool.tools,
        system=system_prompt(roots[0], roots, sent_names, deferred, instructions, skills=skills.descriptions(),
                             date=session.date.for_system_prompt(now), mcp_instructions=ls.mcp.instructions()),
        definitions=lambda: [
            *pool.definitions(session.loaded_tools),
            *server_tools(settings.web_search, settings.model.model, session.permission_context),
        ],
        max_turns=settings.max_turns,
        on_history=lambda: ls.archive.save_soon(session),
        usage=usage,
        reminders=NestedInstructions(roots, roots[0], pool.tools, session.instruction_files).reminders,
        notes=tuple(note for note in [session.date.note(now)] if note),
    )
    if ls.shutting_down:
        end_progress(ls, token, "cancelled")
        return {"sessionId": session.id, "stopReason": "cancelled", "text": ""}

    def turn_usage() -> dict[str, Any]:
        return usage.as_json(session.context_tokens, settings.model.context_window)

    chat.turn_started(params.prompt)
    turn = asyncio.create_task(run_turn(session, content or params.prompt, config, chat, make_context))
    session.turn = turn
    if token is not None:
        ls.work_done_progress.tokens[token].add_done_callback(lambda _: turn.cancel())
    try:
        result = await asyncio.shield(turn)
    except asyncio.CancelledError:
        if not turn.done():  # our request was cancelled ($/cancelRequest): stop the turn, then give up
            turn.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await turn
            await ls.archive.save(session)
            chat.turn_ended("cancelled", chat.streamed_text, turn_usage())
            end_progress(ls, token, "cancelled")
            raise
        result = TurnResult("cancelled", chat.streamed_text)
    except Exception as exc:
        log.exception("turn failed")
        result = TurnResult("error", f"handrail failed: {type(exc).__name__}: {exc}")
    await asyncio.to_thread(audit.flush)
    await ls.archive.save(session)
    error = result.error.as_json() if result.error is not None else None
    chat.turn_ended(result.stop_reason, result.text, turn_usage(), error)
    end_progress(ls, token, result.stop_reason)
    answer = {"sessionId": session.id, "stopReason": result.stop_reason, "text": result.text, "usage": turn_usage()}
    return {**answer, "error": error} if error is not None else answer
