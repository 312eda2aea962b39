"""Approving a workspace's own settings and skills: the offer at a turn's start and the approve command."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types

from handrail.permissions.trust import Approvals
from handrail.server.lsp_values import field_of
from handrail.server.skill_host import load_skills, pending_skill_approvals
from handrail.tools.skills import SkillCatalog

if TYPE_CHECKING:
    from handrail.server.app import HandrailServer

log = logging.getLogger(__name__)

APPROVE = "Approve"
NOT_NOW = "Not now"


def current_approvals(ls: HandrailServer) -> Approvals:
    """The approvals as last loaded (none before the first load)."""
    current = ls.permission_state.current
    return current.approvals if current is not None else Approvals()


async def approve_project_skills(ls: HandrailServer) -> int:
    """Approve the current content of the trusted project skills whose allowed-tools wait for it."""
    skills = await load_skills(ls.workspace_roots(), current_approvals(ls), ls.skill_problems)
    pending = pending_skill_approvals(skills, current_approvals(ls))
    await ls.permission_state.approve_digests([(skill.path, skill.digest) for skill in pending])
    return len(pending)


async def offer_project_approval(ls: HandrailServer, skills: SkillCatalog) -> None:
    """Ask once per content whether the project's settings (allow rules, hooks…) and skills' allowed-tools apply."""
    state = ls.permission_state
    files = state.pending_approvals()
    waiting = [s for s in pending_skill_approvals(skills, current_approvals(ls)) if not state.was_asked(s.digest)]
    if not files and not waiting:
        return
    state.mark_asked(skill.digest for skill in waiting)
    what = []
    if files:
        what.append(f"settings ({', '.join(str(path) for path in files)}) allow tools or run hooks")
    if waiting:
        what.append(f"skills ({', '.join(skill.name for skill in waiting)}) allow tools while they are active")
    message = (
        f"This workspace's {' and its '.join(what)}. They stay inactive (only deny and ask rules apply) until you "
        "approve this exact content. Approve?"
    )
    try:
        choice = await ls.window_show_message_request_async(
            types.ShowMessageRequestParams(
                type=types.MessageType.Warning,
                message=message,
                actions=[types.MessageActionItem(title=APPROVE), types.MessageActionItem(title=NOT_NOW)],
            )
        )
    except Exception as exc:
        log.warning("could not ask about project settings: %s", exc)
        return
    if field_of(choice, "title") != APPROVE:
        return
    if files:
        await state.approve_project_files()
    await state.approve_digests([(skill.path, skill.digest) for skill in waiting])
