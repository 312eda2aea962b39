"""Agent definitions: the built-in agent types and those defined in `agents/*.md` files.

A file holds front matter naming the agent (`name`, `description`, optional
`tools` and `model`; other keys, such as an editor's `color`, are ignored)
and, as its body, the agent's system prompt. Project agents
(`.handrail/agents/` in a workspace root) override user agents
(`$XDG_CONFIG_HOME/handrail/agents/`), which override the built-ins. A malformed
file is reported and skipped; it never stops the others from loading.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from handrail.tools.definition_files import (
    DefinitionFileError,
    DefinitionProblem,
    front_list,
    front_string,
    load_definition_files,
    load_layers,
    parse_definition,
    user_config_dir,
)
from handrail.tools.front_matter import Document, FrontValue

AgentSource = Literal["builtin", "user", "project"]
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class AgentDefinition:
    """One agent type: its name, when to use it, its tools (None = every tool allowed to sub-agents), its prompt."""

    name: str
    description: str
    prompt: str
    tools: tuple[str, ...] | None = None
    model: str | None = None
    read_only: bool = False
    source: AgentSource = "builtin"
    path: Path | None = None


AgentFileError = DefinitionFileError


def _tools(fields: Mapping[str, FrontValue]) -> tuple[str, ...] | None:
    names = front_list(fields, "tools")
    return None if names == ("*",) else names


def parse_agent_file(text: str, *, source: AgentSource, path: Path | None = None) -> AgentDefinition:
    """Parse one agent file; raises AgentFileError (with the line, when the front matter is at fault)."""
    return _agent_from(parse_definition(text), source=source, path=path)


def _agent_from(document: Document, *, source: AgentSource, path: Path | None) -> AgentDefinition:
    fields = document.fields
    name = front_string(fields, "name", required=True)
    assert name is not None
    if not _NAME.match(name):
        raise AgentFileError(f"the name {name!r} may hold only letters, digits, '-', '_' and '.' (at most 64)")
    description = front_string(fields, "description", required=True)
    assert description is not None
    if not document.body.strip():
        raise AgentFileError("the file has no system prompt (the text after the front matter is empty)")
    model = front_string(fields, "model", required=False)
    return AgentDefinition(
        name=name,
        description=description,
        prompt=document.body.strip(),
        tools=_tools(fields),
        model=None if model in (None, "inherit") else model,
        source=source,
        path=path,
    )


def load_agent_dir(directory: Path, source: AgentSource) -> tuple[list[AgentDefinition], list[DefinitionProblem]]:
    """Every `*.md` agent in `directory` (sorted by file name), and the files that failed. Blocking I/O."""
    return load_definition_files(
        directory, "*.md", lambda document, _, path: _agent_from(document, source=source, path=path)
    )


def user_agents_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/handrail/agents` (`~/.config` when the variable is unset or empty)."""
    return user_config_dir(env) / "agents"


def project_agents_dir(root: Path) -> Path:
    """A workspace root's agents folder."""
    return root / ".handrail" / "agents"


@dataclass(frozen=True)
class AgentCatalog:
    """The agent types a session may start, by name, and the problems met loading them."""

    agents: Mapping[str, AgentDefinition]
    problems: tuple[DefinitionProblem, ...] = ()

    def get(self, name: str) -> AgentDefinition | None:
        """The agent called `name` (exact, then case-insensitive)."""
        if name in self.agents:
            return self.agents[name]
        folded = {key.lower(): value for key, value in self.agents.items()}
        return folded.get(name.lower())

    def descriptions(self) -> dict[str, str]:
        """Each agent's description, by name."""
        return {name: agent.description for name, agent in self.agents.items()}


def load_agent_catalog(
    builtins: Sequence[AgentDefinition], roots: Sequence[Path], env: Mapping[str, str] | None = None
) -> AgentCatalog:
    """Built-ins, then user agents, then each root's project agents; later ones win a name. Blocking I/O."""
    layers: list[tuple[Path, AgentSource]] = [(user_agents_dir(env), "user")]
    layers += [(project_agents_dir(root), "project") for root in reversed(roots)]  # the first root wins
    agents, problems = load_layers(layers, load_agent_dir, lambda agent: agent.name, {a.name: a for a in builtins})
    return AgentCatalog(agents, problems)
