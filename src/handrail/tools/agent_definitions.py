"""Agent definitions: the built-in agent types and those defined in `agents/*.md` files.

A file holds front matter naming the agent (`name`, `description`, optional
`tools` and `model`; other keys, such as an editor's `color`, are ignored)
and, as its body, the agent's system prompt. Project agents
(`.handrail/agents/` in a workspace root) override user agents
(`$XDG_CONFIG_HOME/handrail/agents/`), which override the built-ins. A malformed
file is reported and skipped; it never stops the others from loading.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from handrail.tools.front_matter import FrontMatterError, FrontValue, split_front_matter

AgentSource = Literal["builtin", "user", "project"]
MAX_AGENT_FILE_BYTES = 64 * 1024
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


@dataclass(frozen=True)
class AgentFileProblem:
    """A file that could not be loaded, and why."""

    path: Path
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class AgentFileError(ValueError):
    """An agent file is malformed."""


def _string(fields: Mapping[str, FrontValue], key: str, *, required: bool) -> str | None:
    value = fields.get(key)
    if value is None or value == "":
        if required:
            raise AgentFileError(f"the front matter needs a non-empty '{key}'")
        return None
    if not isinstance(value, str):
        raise AgentFileError(f"'{key}' must be a single value, not a list")
    return value


def _tools(value: FrontValue | None) -> tuple[str, ...] | None:
    if value is None or value == "":
        return None
    names = [part.strip() for part in value.split(",")] if isinstance(value, str) else [v.strip() for v in value]
    if any(not name for name in names):
        raise AgentFileError("'tools' has an empty entry")
    if names == ["*"]:
        return None
    return tuple(dict.fromkeys(names))


def parse_agent_file(text: str, *, source: AgentSource, path: Path | None = None) -> AgentDefinition:
    """Parse one agent file; raises AgentFileError (with the line, when the front matter is at fault)."""
    try:
        document = split_front_matter(text)
    except FrontMatterError as exc:
        raise AgentFileError(str(exc)) from exc
    fields = document.fields
    name = _string(fields, "name", required=True)
    assert name is not None
    if not _NAME.match(name):
        raise AgentFileError(f"the name {name!r} may hold only letters, digits, '-', '_' and '.' (at most 64)")
    description = _string(fields, "description", required=True)
    assert description is not None
    if not document.body.strip():
        raise AgentFileError("the file has no system prompt (the text after the front matter is empty)")
    model = _string(fields, "model", required=False)
    return AgentDefinition(
        name=name,
        description=description,
        prompt=document.body.strip(),
        tools=_tools(fields.get("tools")),
        model=None if model in (None, "inherit") else model,
        source=source,
        path=path,
    )


def load_agent_dir(directory: Path, source: AgentSource) -> tuple[list[AgentDefinition], list[AgentFileProblem]]:
    """Every `*.md` agent in `directory` (sorted by file name), and the files that failed. Blocking I/O."""
    try:
        files = sorted(p for p in directory.iterdir() if p.suffix == ".md" and p.is_file())
    except FileNotFoundError:
        return [], []
    except OSError as exc:
        return [], [AgentFileProblem(directory, f"could not list the folder: {exc}")]
    found: list[AgentDefinition] = []
    problems: list[AgentFileProblem] = []
    for path in files:
        try:
            if path.stat().st_size > MAX_AGENT_FILE_BYTES:
                raise AgentFileError(f"the file is larger than {MAX_AGENT_FILE_BYTES} bytes")
            text = path.read_text(encoding="utf-8")
            found.append(parse_agent_file(text, source=source, path=path))
        except (OSError, UnicodeDecodeError, AgentFileError) as exc:
            problems.append(AgentFileProblem(path, str(exc)))
    return found, problems


def user_agents_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/handrail/agents` (`~/.config` when the variable is unset or empty)."""
    environ = os.environ if env is None else env
    config = environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "handrail" / "agents"


def project_agents_dir(root: Path) -> Path:
    """A workspace root's agents folder."""
    return root / ".handrail" / "agents"


@dataclass(frozen=True)
class AgentCatalog:
    """The agent types a session may start, by name, and the problems met loading them."""

    agents: Mapping[str, AgentDefinition]
    problems: tuple[AgentFileProblem, ...] = ()

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
    agents: dict[str, AgentDefinition] = {agent.name: agent for agent in builtins}
    problems: list[AgentFileProblem] = []
    layers: list[tuple[Path, AgentSource]] = [(user_agents_dir(env), "user")]
    layers += [(project_agents_dir(root), "project") for root in reversed(roots)]  # the first root wins
    for directory, source in layers:
        found, failed = load_agent_dir(directory, source)
        problems.extend(failed)
        for agent in found:
            agents[agent.name] = agent
    return AgentCatalog(agents, tuple(problems))
