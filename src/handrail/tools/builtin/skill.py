"""Skill: load a skill's instructions into the conversation and put its `allowed-tools` in force."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from pydantic import Field

from handrail.tools.builtin._common import ToolInput
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.protocol import VALID, Tool, ToolResult, ValidationResult, build_tool
from handrail.tools.skills import SkillDefinition, skill_content

SKILL_TOOL_NAME = "Skill"


class SkillInput(ToolInput):
    skill: str = Field(description='The skill name (e.g. "pdf" or "review-pr")')
    args: str | None = Field(default=None, description="Optional arguments for the skill")


def skill_prompt(skills: Mapping[str, str]) -> str:
    """The tool's description for the model."""
    return f"""Run a skill: load its instructions into this conversation, then follow them.

Skills are listed in the system prompt under "Skills" ({len(skills)} available). When a request matches a skill's
description, invoke the skill first, before other work; pass what the user asked for in `args` when it helps.
Do not invoke a skill that is already loaded in this turn; follow the instructions you were given."""


def _not_found(name: str, ctx: ToolUseContext) -> str:
    names = ", ".join(ctx.skills.catalog().skills) if ctx.skills is not None else ""
    return f"Unknown skill {name!r}. Available skills: {names or 'none'}"


def _lookup(value: SkillInput, ctx: ToolUseContext) -> SkillDefinition | None:
    return ctx.skills.catalog().get(value.skill) if ctx.skills is not None else None


async def _validate(value: SkillInput, ctx: ToolUseContext) -> ValidationResult:
    if _lookup(value, ctx) is None:
        return ValidationResult(ok=False, message=_not_found(value.skill, ctx))
    return VALID


def _granted_note(granted: tuple[str, ...], withheld: str | None) -> str:
    lines = []
    if granted:
        lines.append("These calls now run without asking for the rest of this turn: " + ", ".join(granted))
    if withheld:
        lines.append(withheld)
    return "\n".join(lines)


async def _call(value: SkillInput, ctx: ToolUseContext) -> ToolResult:
    skill = _lookup(value, ctx)
    if skill is None or ctx.skills is None:
        raise ToolError(_not_found(value.skill, ctx))
    content = await asyncio.to_thread(skill_content, skill)
    granted, withheld = ctx.skills.activate(skill)
    header = f'<skill name="{skill.name}" source="{skill.source}" folder="{skill.path.parent}">'
    parts = [header, content, "</skill>"]
    if value.args:
        parts.append(f"ARGUMENTS: {value.args}")
    note = _granted_note(granted, withheld)
    if note:
        parts.append(note)
    return ToolResult("\n".join(parts))


def skill_tool(skills: Mapping[str, str]) -> Tool[SkillInput]:
    """The Skill tool for a session whose skills are `skills` (name → description)."""
    tool: Tool[SkillInput] = build_tool(
        name=SKILL_TOOL_NAME,
        input_model=SkillInput,
        description="Load a skill's instructions (and the tools it allows) into the conversation",
        prompt=skill_prompt(skills),
        search_hint="skill instructions workflow",
        call=_call,
        validate_input=_validate,
        # loading instructions changes nothing; the rules it grants come from trusted (and approved) files only
        is_read_only=lambda _: True,
        summary=lambda value: value.skill,
        max_result_size_chars=120_000,
    )
    return tool
