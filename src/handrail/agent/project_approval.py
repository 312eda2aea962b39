"""Approving what a workspace's own settings and skills would loosen: the offer at a turn's start.

The user is shown each item that waits (an allow rule, a hook and the commands it runs, a
mode, a directory, an MCP server and what it is sent, a skill's allowed tools), and
"Approve" approves exactly the items shown. What changed while the question was open is
new content: it is asked about next, never approved unseen.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from handrail.agent.permission_state import PendingFile, PermissionState
from handrail.agent.ports import Dialogs
from handrail.agent.skill_host import ProblemReporter, load_skills, pending_skill_approvals
from handrail.permissions.trust import Approvals
from handrail.permissions.visible import visible
from handrail.tools.skills import SkillCatalog, SkillDefinition

log = logging.getLogger(__name__)

APPROVE = "Approve"
NOT_NOW = "Not now"
MAX_ITEMS_PER_QUESTION = 25


def current_approvals(state: PermissionState) -> Approvals:
    """The approvals as last loaded (none before the first load)."""
    current = state.current
    return current.approvals if current is not None else Approvals()


async def approve_project_skills(state: PermissionState, roots: Sequence[Path], problems: ProblemReporter) -> int:
    """Approve the current content of the trusted project skills whose allowed-tools wait for it."""
    skills = await load_skills(roots, current_approvals(state), problems)
    pending = pending_skill_approvals(skills, current_approvals(state))
    await state.approve_digests([(skill.path, skill.digest) for skill in pending])
    return len(pending)


def approval_message(files: Sequence[PendingFile], skills: Sequence[SkillDefinition]) -> str:
    """The question: every item that would loosen permissions, as the user approves it."""
    lines = [
        "This workspace's own settings would loosen your permissions. Until you approve, only what they "
        "tighten applies (their deny and ask rules)."
    ]
    for file in files:
        lines += ["", f"{visible(str(file.path))}:"]
        lines += [f"• {item.shown}" for item in file.items]
    if skills:
        lines += ["", "Skills that allow tools while they are active:"]
        lines += [f"• {visible(s.name)} ({visible(str(s.path))}): {visible(', '.join(s.allowed_tools))}"
                  for s in skills]
    lines += ["", "Approve exactly these?"]
    return "\n".join(lines)


def _first(files: Sequence[PendingFile], limit: int) -> list[PendingFile]:
    """The first `limit` items, by file: one question should stay readable; the rest is asked next."""
    shown: list[PendingFile] = []
    for file in files:
        if limit <= 0:
            break
        shown.append(PendingFile(file.path, file.items[:limit]))
        limit -= len(shown[-1].items)
    return shown


async def offer_project_approval(state: PermissionState, skills: SkillCatalog, dialogs: Dialogs) -> None:
    """Ask once per content whether what the workspace's settings and skills would loosen may apply."""
    while True:
        files = _first(state.pending_approvals(), MAX_ITEMS_PER_QUESTION)
        pending = pending_skill_approvals(skills, current_approvals(state))
        waiting = [s for s in pending if not state.was_asked(s.digest)]
        if not files and not waiting:
            return
        state.mark_asked([*(item.digest for file in files for item in file.items), *(s.digest for s in waiting)])
        try:
            choice = await dialogs.choose(approval_message(files, waiting), [NOT_NOW, APPROVE])
        except Exception as exc:
            log.warning("could not ask about project settings: %s", exc)
            return
        if choice != APPROVE:
            return
        await state.approve_items(files)  # exactly what was shown; anything newer is asked about next
        await state.approve_digests([(skill.path, skill.digest) for skill in waiting])
