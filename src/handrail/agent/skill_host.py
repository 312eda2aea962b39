"""Skills on the server side: which skills a turn sees (trust) and what an invoked skill's rules do (approval).

A project skill is loaded only from a trusted workspace root. Its `allowed-tools`
loosen permissions like a project allow rule, so they are granted only once the
user approved that exact SKILL.md content (sha256, kept with the settings
approvals; `handrail.approveProjectSettings` approves pending skills too).
User skills are the user's own and need neither.

"Active" means: from the Skill call to the end of the user turn (the
`handrail.ask`) the skill's rules are session allow rules kept in
`Session.turn_rules`, dropped when the turn ends. They are ordinary allow
rules, so deny and ask rules, safety checks and hooks still come first.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from handrail.agent.session import Session
from handrail.permissions.context import PermissionContext
from handrail.permissions.rules import PermissionRule, RuleError, parse_rule
from handrail.permissions.trust import Approvals
from handrail.tools.definition_files import DefinitionProblem
from handrail.tools.protocol import Tool
from handrail.tools.registry import denied_outright
from handrail.tools.skills import SkillCatalog, SkillDefinition, load_skill_catalog


class ProblemReporter:
    """Warns about each broken definition file once per server run."""

    def __init__(self, warn: Callable[[str], None], what: str) -> None:
        self._warn = warn
        self._what = what
        self._reported: set[str] = set()

    def report(self, problems: Sequence[DefinitionProblem]) -> None:
        """Warn about the problems not reported before."""
        for problem in problems:
            if str(problem) not in self._reported:
                self._reported.add(str(problem))
                self._warn(f"handrail: {self._what} skipped: {problem}")


def skill_approved(skill: SkillDefinition, approvals: Approvals) -> bool:
    """Whether the skill's `allowed-tools` may be granted (user skills always; project ones once approved)."""
    return skill.source == "user" or approvals.approved_digest(skill.path) == skill.digest


def pending_skill_approvals(catalog: SkillCatalog, approvals: Approvals) -> list[SkillDefinition]:
    """Project skills whose `allowed-tools` wait for the user's approval of their content."""
    return [s for s in catalog.skills.values() if s.allowed_tools and not skill_approved(s, approvals)]


async def load_skills(roots: Sequence[Path], approvals: Approvals, reporter: ProblemReporter) -> SkillCatalog:
    """User skills and the project skills of trusted roots."""
    catalog = await asyncio.to_thread(load_skill_catalog, approvals.trusted_roots(roots))
    reporter.report(catalog.problems)
    return catalog


class SessionSkills:
    """The SkillHost of one turn: activating a skill adds its rules to the session for the rest of the turn."""

    def __init__(self, session: Session, skills: SkillCatalog, approvals: Callable[[], Approvals],
                 apply: Callable[[Session], None]) -> None:
        self._session = session
        self._skills = skills
        self._approvals = approvals
        self._apply = apply

    def catalog(self) -> SkillCatalog:
        """The skills of this turn."""
        return self._skills

    def activate(self, skill: SkillDefinition) -> tuple[tuple[str, ...], str | None]:
        """Grant the skill's rules (when it may); the rules granted and why others were not."""
        if not skill.allowed_tools:
            return (), None
        if not skill_approved(skill, self._approvals()):
            return (), (
                f"The skill's allowed-tools ({', '.join(skill.allowed_tools)}) are not in force: this project skill's "
                "content has not been approved (handrail.approveProjectSettings). Calls are asked for as usual."
            )
        granted: list[str] = []
        broken: list[str] = []
        for text in skill.allowed_tools:
            rule = parse_rule(text, "session")
            if isinstance(rule, RuleError):
                broken.append(f"{text} ({rule.message})")
                continue
            self._add(rule)
            granted.append(str(rule))
        self._apply(self._session)
        note = f"Malformed allowed-tools entries ignored: {'; '.join(broken)}" if broken else None
        return tuple(granted), note

    def _add(self, rule: PermissionRule) -> None:
        if rule not in self._session.turn_rules:
            self._session.turn_rules.append(rule)


def skill_pool_tools(skills: SkillCatalog, context: PermissionContext, *, simple: bool) -> tuple[Tool[Any], ...]:
    """The Skill tool for a session's pool (none without skills, in simple mode, or when a deny rule forbids it)."""
    if simple or not skills.skills:
        return ()
    # the built-in tools (and the Bash analyser) load with the first turn, not at server start
    from handrail.tools.builtin.skill import skill_tool

    tool = skill_tool(skills.descriptions())
    return () if denied_outright(tool, context) else (tool,)
