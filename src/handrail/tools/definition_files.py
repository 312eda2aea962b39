"""Loading of definition files (agents, skills): front-matter files in user and project folders.

One place for what agent and skill files share: the size limit, the strict front
matter, the typed reading of its fields, the problems reported for broken files
and the user's configuration folder.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from handrail.errors import HandrailError
from handrail.tools.front_matter import Document, FrontMatterError, FrontValue, split_front_matter

MAX_DEFINITION_FILE_BYTES = 64 * 1024
T = TypeVar("T")
S = TypeVar("S")


@dataclass(frozen=True)
class DefinitionProblem:
    """A file that could not be loaded, and why."""

    path: Path
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class DefinitionFileError(HandrailError, ValueError):
    """A definition file is malformed."""


def read_definition(path: Path) -> tuple[Document, bytes]:
    """Read and split a definition file (and its bytes); raises OSError or DefinitionFileError. Blocking I/O."""
    if path.stat().st_size > MAX_DEFINITION_FILE_BYTES:
        raise DefinitionFileError(f"the file is larger than {MAX_DEFINITION_FILE_BYTES} bytes")
    raw = path.read_bytes()
    return decode_definition(raw), raw


def decode_definition(raw: bytes) -> Document:
    """Split a definition file's bytes; raises DefinitionFileError (not UTF-8, or bad front matter)."""
    try:
        return parse_definition(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise DefinitionFileError(f"the file is not UTF-8 text: {exc}") from exc


def parse_definition(text: str) -> Document:
    """Split `text` into front matter and body; raises DefinitionFileError naming the line."""
    try:
        return split_front_matter(text)
    except FrontMatterError as exc:
        raise DefinitionFileError(str(exc)) from exc


def front_string(fields: Mapping[str, FrontValue], key: str, *, required: bool) -> str | None:
    """A single-valued field (None when absent or empty); raises DefinitionFileError."""
    value = fields.get(key)
    if value is None or value == "":
        if required:
            raise DefinitionFileError(f"the front matter needs a non-empty '{key}'")
        return None
    if not isinstance(value, str):
        raise DefinitionFileError(f"'{key}' must be a single value, not a list")
    return value


def front_list(fields: Mapping[str, FrontValue], key: str) -> tuple[str, ...] | None:
    """A list field, written as a list or comma-separated (None when absent); duplicates dropped."""
    value = fields.get(key)
    if value is None or value == "":
        return None
    names = [part.strip() for part in value.split(",")] if isinstance(value, str) else [v.strip() for v in value]
    if any(not name for name in names):
        raise DefinitionFileError(f"'{key}' has an empty entry")
    return tuple(dict.fromkeys(names))


def user_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/handrail` (`~/.config/handrail` when the variable is unset or empty)."""
    environ = os.environ if env is None else env
    config = environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "handrail"


def load_definition_files(
    directory: Path,
    pattern: str,
    build: Callable[[Document, bytes, Path], T],
) -> tuple[list[T], list[DefinitionProblem]]:
    """Every file `pattern` matches in `directory` (sorted by path), built; and the files that failed. Blocking I/O."""
    try:
        files = sorted(p for p in directory.glob(pattern) if p.is_file())
    except OSError as exc:
        return [], [DefinitionProblem(directory, f"could not list the folder: {exc}")]
    found: list[T] = []
    problems: list[DefinitionProblem] = []
    for path in files:
        try:
            document, raw = read_definition(path)
            found.append(build(document, raw, path))
        except (OSError, DefinitionFileError) as exc:
            problems.append(DefinitionProblem(path, str(exc)))
    return found, problems


def load_layers(
    layers: Sequence[tuple[Path, S]],
    load: Callable[[Path, S], tuple[list[T], list[DefinitionProblem]]],
    name: Callable[[T], str],
    base: Mapping[str, T] | None = None,
) -> tuple[dict[str, T], tuple[DefinitionProblem, ...]]:
    """Load each layer's folder in order; a later layer wins a name."""
    merged: dict[str, T] = dict(base or {})
    problems: list[DefinitionProblem] = []
    for directory, source in layers:
        found, failed = load(directory, source)
        problems.extend(failed)
        for item in found:
            merged[name(item)] = item
    return merged, tuple(problems)
