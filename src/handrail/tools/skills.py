"""Skills: folders holding a `SKILL.md` (front matter `name`, `description`, optional `allowed-tools`).

User skills live in `$XDG_CONFIG_HOME/handrail/skills/<name>/SKILL.md`, project
skills in `.handrail/skills/<name>/SKILL.md` of a workspace root (a project skill
wins a name). Which roots count is the caller's business: project skills come
with the code, so the server passes only trusted roots. The system prompt shows
names and descriptions; the body (and the text files it references inside its
folder, bounded) is loaded only when the Skill tool invokes the skill.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from handrail.tools.definition_files import (
    DefinitionFileError,
    DefinitionProblem,
    decode_definition,
    front_list,
    front_string,
    load_definition_files,
    load_layers,
    user_config_dir,
)
from handrail.tools.front_matter import Document

SkillSource = Literal["user", "project"]
SKILL_FILE = "SKILL.md"
MAX_REFERENCED_FILES = 8
MAX_REFERENCED_FILE_BYTES = 32 * 1024
MAX_REFERENCED_TOTAL_BYTES = 96 * 1024
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")
# relative paths a body points at: markdown links and `code spans` naming a file with an extension
_REFERENCE = re.compile(r"\]\(([^)\s#]+)\)|`([^`\s]+\.[A-Za-z0-9]+)`")


@dataclass(frozen=True)
class SkillDefinition:
    """One skill: what it is for, its instructions, and the rules it grants while active."""

    name: str
    description: str
    body: str
    allowed_tools: tuple[str, ...]
    source: SkillSource
    path: Path
    digest: str  # sha256 of SKILL.md's bytes (what a user approves)


@dataclass(frozen=True)
class SkillCatalog:
    """The skills a session may invoke, by name, and the problems met loading them."""

    skills: Mapping[str, SkillDefinition]
    problems: tuple[DefinitionProblem, ...] = ()

    def get(self, name: str) -> SkillDefinition | None:
        """The skill called `name` (a leading `/` is ignored)."""
        return self.skills.get(name.strip().removeprefix("/"))

    def descriptions(self) -> dict[str, str]:
        """Each skill's description, by name."""
        return {name: skill.description for name, skill in self.skills.items()}


class SkillHost(Protocol):
    """What the Skill tool needs of the server: the skills, and their activation."""

    def catalog(self) -> SkillCatalog:
        """The skills of this session."""
        ...

    def activate(self, skill: SkillDefinition) -> tuple[tuple[str, ...], str | None]:
        """Put the skill's `allowed-tools` in force; the rules granted and, when some were not, why."""
        ...


def parse_skill(raw: bytes, *, source: SkillSource, path: Path) -> SkillDefinition:
    """Parse one SKILL.md; raises DefinitionFileError."""
    return _skill_from(decode_definition(raw), raw, source=source, path=path)


def _skill_from(document: Document, raw: bytes, *, source: SkillSource, path: Path) -> SkillDefinition:
    typed, body = document.fields, document.body
    name = front_string(typed, "name", required=True)
    description = front_string(typed, "description", required=True)
    assert name is not None and description is not None
    if not _NAME.match(name):
        raise DefinitionFileError(f"the name {name!r} may hold only letters, digits, '-', '_', '.', ':' (at most 64)")
    if not body.strip():
        raise DefinitionFileError("the skill has no instructions (the text after the front matter is empty)")
    return SkillDefinition(
        name=name,
        description=description,
        body=body.strip(),
        allowed_tools=front_list(typed, "allowed-tools") or (),
        source=source,
        path=path,
        digest=hashlib.sha256(raw).hexdigest(),
    )


def load_skill_dir(directory: Path, source: SkillSource) -> tuple[list[SkillDefinition], list[DefinitionProblem]]:
    """Every `<name>/SKILL.md` in `directory` (sorted by folder), and the files that failed. Blocking I/O."""
    return load_definition_files(
        directory, f"*/{SKILL_FILE}", lambda document, raw, path: _skill_from(document, raw, source=source, path=path)
    )


def user_skills_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/handrail/skills`."""
    return user_config_dir(env) / "skills"


def project_skills_dir(root: Path) -> Path:
    """A workspace root's skills folder."""
    return root / ".handrail" / "skills"


def load_skill_catalog(trusted_roots: Sequence[Path], env: Mapping[str, str] | None = None) -> SkillCatalog:
    """User skills, then each trusted root's project skills (the first root wins a name). Blocking I/O."""
    layers: list[tuple[Path, SkillSource]] = [(user_skills_dir(env), "user")]
    layers += [(project_skills_dir(root), "project") for root in reversed(trusted_roots)]
    skills, problems = load_layers(layers, load_skill_dir, lambda skill: skill.name)
    return SkillCatalog(skills, problems)


def skill_content(skill: SkillDefinition) -> str:
    """The skill's instructions and the text files they reference inside its folder (bounded). Blocking I/O."""
    folder = skill.path.parent.resolve()
    parts = [skill.body]
    seen: set[Path] = set()
    budget = MAX_REFERENCED_TOTAL_BYTES
    for match in _REFERENCE.finditer(skill.body):
        reference = match.group(1) or match.group(2)
        if len(seen) >= MAX_REFERENCED_FILES or reference.startswith(("/", "~")) or "://" in reference:
            continue
        target = (folder / reference).resolve()
        if target in seen or not target.is_relative_to(folder) or not target.is_file():
            continue  # outside the skill's folder (or through a link out of it) is never read
        seen.add(target)
        try:
            data = target.read_bytes()
            if len(data) > min(MAX_REFERENCED_FILE_BYTES, budget):
                parts.append(f'<file path="{reference}">[not included: {len(data)} bytes is over the limit]</file>')
                continue
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # binary or unreadable: the skill's text still stands
        budget -= len(data)
        parts.append(f'<file path="{reference}">\n{text}\n</file>')
    return "\n\n".join(parts)
