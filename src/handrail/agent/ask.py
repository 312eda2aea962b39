"""One turn of the agent in a session (`handrail.ask`): its tools, its ports and its configuration, built in
one place, then run with the editor watching."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from handrail.agent.agent_loop import TurnConfig, TurnResult, run_turn
from handrail.agent.audit import AuditFile
from handrail.agent.background_events import BackgroundWatch
from handrail.agent.mcp_manager import McpManager
from handrail.agent.model_client import ModelClient, ModelSettings
from handrail.agent.permission_state import PermissionState
from handrail.agent.persistence import SessionArchive
from handrail.agent.ports import EditorPorts
from handrail.agent.project_approval import current_approvals, offer_project_approval
from handrail.agent.project_instructions import NestedInstructions, root_instructions
from handrail.agent.session import Session, SessionCatalog
from handrail.agent.session_modes import SessionModes
from handrail.agent.session_todos import SessionTodos
from handrail.agent.settings import AgentSettings
from handrail.agent.skill_host import ProblemReporter, SessionSkills, load_skills, skill_pool_tools
from handrail.agent.small_model import ClientSmallModel
from handrail.agent.storage import TOOL_RESULTS_DIR, session_storage
from handrail.agent.subagents import AgentCatalogSource, SubAgents, agent_pool_tools
from handrail.agent.system_prompt import system_prompt, today
from handrail.agent.turn_ports import TurnPorts
from handrail.agent.usage import TurnUsage, price_book
from handrail.agent.web_search import server_tools
from handrail.tools.context import ToolOptions, ToolUseContext
from handrail.tools.live_pool import LiveToolPool
from handrail.tools.mcp.mentions import MentionError, mentioned_content
from handrail.tools.messages import ToolResultContent
from handrail.tools.registry import assemble_tool_pool, simple_mode
from handrail.wire.errors import InvalidParams
from handrail.wire.models import AskResult, Usage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AskServices:
    """What a turn uses of the agent host: the workspace's permission state, the MCP servers, the session
    archive, the definition sources, the model clients, and how to put a session's context in force."""

    permission_state: PermissionState
    mcp: McpManager
    archive: SessionArchive
    agent_catalogs: AgentCatalogSource
    skill_problems: ProblemReporter
    background_watch: BackgroundWatch
    models: Callable[[ModelSettings], ModelClient]
    apply_context: Callable[[Session], None]
    settings: Callable[[EditorPorts], Awaitable[AgentSettings]]
    shutting_down: Callable[[], bool]


async def run_ask(
    host: AskServices,
    session: Session,
    prompt: str,
    roots: tuple[Path, ...],
    editor: EditorPorts,
    *,
    content: list[ToolResultContent] | None = None,
) -> AskResult:
    """Offer what waits for approval, build the turn, run it to its end; the command's result.

    `content` is the turn's content when it is not the prompt's text (an MCP prompt's); resources the
    prompt mentions (`@server:uri`) are attached after it.
    """
    state = host.permission_state
    await state.refresh()
    await host.mcp.sync(reload=False)
    unapproved = host.mcp.awaiting_approval()
    skills = await load_skills(roots, current_approvals(state), host.skill_problems)
    await offer_project_approval(state, skills, editor.dialogs)
    await host.mcp.sync(reload=False)
    await host.mcp.offer_approvals(editor.dialogs, session.id)
    await host.mcp.wait_started(unapproved)  # approved just now: this turn has its tools
    host.apply_context(session)
    try:  # `@server:uri`: resources the user attached
        attached = await mentioned_content(prompt, host.mcp.connections(), session.permission_context)
    except MentionError as exc:
        raise InvalidParams(f"handrail.ask: {exc}") from exc
    if attached:
        content = [*(content or [{"type": "text", "text": prompt}]), *attached]
    settings = await host.settings(editor)
    view = await editor.chats.begin_turn(session.id, state.persist_rules)
    chat = view.chat
    simple = simple_mode(setting=settings.simple_tools)
    agents_catalog = await host.agent_catalogs.load(roots, current_approvals(state))
    extra_builtins = (
        *agent_pool_tools(agents_catalog, session.permission_context, simple=simple),
        *skill_pool_tools(skills, session.permission_context, simple=simple),
        *host.mcp.resource_tools(),
    )
    context = session.permission_context  # as at the turn's start, like the built-ins: the cached prefix holds
    pool = LiveToolPool(  # MCP servers' tools/list_changed reach the turn's next request
        host.mcp.tools,
        lambda mcp_tools: assemble_tool_pool(context, mcp_tools, simple=simple, extra_builtins=extra_builtins),
    )
    deferred = tuple(t.name for t in pool.deferred())
    sent_names = tuple(t.name for t in pool.tools if t.name not in deferred)
    instructions = await asyncio.to_thread(root_instructions, roots, context)
    usage = TurnUsage(price_book(settings.prices), session.usage)
    audit = AuditFile(session_storage(session.id) / "audit.jsonl")
    ports = TurnPorts(
        options=ToolOptions(
            cwd=roots[0],
            workspace_roots=roots,
            tool_names=tuple(t.name for t in pool.tools),
            results_dir=session_storage(session.id) / TOOL_RESULTS_DIR,
            session_id=session.id,
        ),
        fs=editor.files,
        prompter=view.prompter,
        progress=chat,
        audit=audit,
        diagnostics=editor.diagnostics,
        catalog=SessionCatalog(session, pool),
        todos=SessionTodos(session, chat),
        small_model=ClientSmallModel(host.models(settings.small_model)) if settings.small_model else None,
        skills=SessionSkills(session, skills, lambda: current_approvals(state), host.apply_context),
        agents=SubAgents(
            parent=session,
            tools=pool.tools,
            catalog=agents_catalog,
            model_settings=settings.model,
            models=host.models,
            roots=roots,
            instructions=instructions,
            max_turns=settings.max_turns,
            usage=usage,
            chat=chat,
            prompter=view.prompter,
        ),
        questions=view.questions,
        modes=SessionModes(session, host.apply_context, chat),
        background_agents=session.background_agents,
    )
    host.background_watch.watch(session, editor.chats.session(session.id))

    def make_context(current: Session) -> ToolUseContext:
        return ports.context(current)

    now = today()
    config = TurnConfig(
        model=host.models(settings.model),
        tools=pool.tools,
        system=system_prompt(roots[0], roots, sent_names, deferred, instructions, skills=skills.descriptions(),
                             date=session.date.for_system_prompt(now), mcp_instructions=host.mcp.instructions()),
        definitions=lambda: [
            *pool.definitions(session.loaded_tools),
            *server_tools(settings.web_search, settings.model.model, session.permission_context),
        ],
        max_turns=settings.max_turns,
        on_history=lambda: host.archive.save_soon(session),
        usage=usage,
        reminders=NestedInstructions(
            roots, roots[0], pool.tools, session.instruction_files, lambda: session.permission_context
        ).reminders,
        notes=tuple(note for note in [session.date.note(now)] if note),
    )
    if host.shutting_down() or session.stopping:  # (cancelled while the turn was being set up)
        chat.end_progress("cancelled")
        return AskResult(session_id=session.id, stop_reason="cancelled", text="")

    def turn_usage() -> Usage:
        return usage.as_wire(session.context_tokens, settings.model.context_window)

    chat.turn_started(prompt)
    turn = asyncio.create_task(run_turn(session, content or prompt, config, chat, make_context))
    session.turn = turn
    chat.on_cancel(turn.cancel)
    try:
        result = await asyncio.shield(turn)
    except asyncio.CancelledError:
        if not turn.done():  # our request was cancelled ($/cancelRequest): stop the turn, then give up
            session.stopping = True  # the session's next ask waits for this one to wind down
            turn.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await turn
            await host.archive.save(session)
            chat.turn_ended("cancelled", chat.streamed_text, turn_usage())
            chat.end_progress("cancelled")
            raise
        result = TurnResult("cancelled", chat.streamed_text)
    except Exception as exc:
        log.exception("turn failed")
        result = TurnResult("error", f"handrail failed: {type(exc).__name__}: {exc}")
    await asyncio.to_thread(audit.flush)
    await host.archive.save(session)
    error = {"error": result.error.as_wire()} if result.error is not None else {}
    chat.turn_ended(result.stop_reason, result.text, turn_usage(), **error)
    chat.end_progress(result.stop_reason)
    return AskResult(session_id=session.id, stop_reason=result.stop_reason, text=result.text, usage=turn_usage(),
                     **error)
