"""The one place a tool call's `ToolUseContext` is built: from the ports of its turn and the session it runs in.

A turn's ports are made once (`agent/ask.py`); a sub-agent's are made from the Task call that starts it
(`TurnPorts.for_sub_agent`), which names every port it inherits and every one it goes without.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from handrail.agent.session import Session
from handrail.tools.auto_mode import user_intent
from handrail.tools.background_agents import BackgroundAgents
from handrail.tools.context import (
    AuditLog,
    ProgressReporter,
    SubAgentRunner,
    ToolCatalog,
    ToolOptions,
    ToolUseContext,
    UserPrompter,
)
from handrail.tools.editor_diagnostics import EditorDiagnostics
from handrail.tools.filesystem import WorkspaceFileSystem
from handrail.tools.modes import ModeControl
from handrail.tools.questions import UserQuestions
from handrail.tools.skills import SkillHost
from handrail.tools.small_model import SmallModel
from handrail.tools.todos import TodoBoard


@dataclass(frozen=True, kw_only=True)
class TurnPorts:
    """Everything a turn's tool calls reach besides the session's own state (its history, the files it read,
    its permission context, its shell): the editor, the user, the audit log, the session's services."""

    options: ToolOptions
    fs: WorkspaceFileSystem
    prompter: UserPrompter
    progress: ProgressReporter
    audit: AuditLog
    diagnostics: EditorDiagnostics
    catalog: ToolCatalog
    todos: TodoBoard
    small_model: SmallModel | None = None
    skills: SkillHost | None = None
    # None where there is no one to run agents for, ask, switch modes for, or show background work to
    agents: SubAgentRunner | None = None
    questions: UserQuestions | None = None
    modes: ModeControl | None = None
    background_agents: BackgroundAgents | None = None
    # the cancellation the calls share with their caller (a sub-agent's, its Task call's); None: each their own
    abort: asyncio.Event | None = None
    # the conversation whose latest user prompt auto mode judges a call by, when the calls' own history does
    # not begin with it (a sub-agent's: its parent's)
    intent_of: Sequence[Mapping[str, Any]] | None = None

    def context(self, session: Session, messages: Sequence[Mapping[str, Any]] | None = None) -> ToolUseContext:
        """The context of a call made now in `session` (its permission context as it is at this moment);
        `messages` the calls' own history when it is not the session's (a sub-agent's)."""
        return ToolUseContext(
            options=self.options,
            fs=self.fs,
            file_state=session.file_state,
            prompter=self.prompter,
            progress=self.progress,
            permission_context=session.permission_context,
            messages=session.messages if messages is None else messages,
            catalog=self.catalog,
            audit=self.audit,
            permission_updates=session.updates,
            shell=session.shell,
            agents=self.agents,
            todos=self.todos,
            questions=self.questions,
            modes=self.modes,
            small_model=self.small_model,
            diagnostics=self.diagnostics,
            background_agents=self.background_agents,
            user_prompt=user_intent(self.intent_of) if self.intent_of is not None else None,
            skills=self.skills,
            abort=self.abort if self.abort is not None else asyncio.Event(),
        )

    @staticmethod
    def for_sub_agent(
        task_call: ToolUseContext,
        *,
        options: ToolOptions,
        prompter: UserPrompter,
        progress: ProgressReporter,
        catalog: ToolCatalog,
        todos: TodoBoard,
    ) -> TurnPorts:
        """A sub-agent's ports: its own options (tool names), prompter, progress, deferred tools and todo list.

        Of the Task call that starts it, it inherits exactly the editor's file system and diagnostics, the
        audit log, the small model, the skills and the call's cancellation (a background agent's call is
        detached from the turn). It starts no agents, asks no questions, changes no mode and sees no
        background work.
        """
        return TurnPorts(
            options=options,
            prompter=prompter,
            progress=progress,
            catalog=catalog,
            todos=todos,
            fs=task_call.fs,
            diagnostics=task_call.diagnostics,
            audit=task_call.audit,
            small_model=task_call.small_model,
            skills=task_call.skills,
            abort=task_call.abort,
            intent_of=task_call.messages,
        )
