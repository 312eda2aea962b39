"""Glob: find files by name pattern with ripgrep, newest first."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field

from handrail.permissions.decision import PermissionCheck
from handrail.permissions.read_scope import ReadScope
from handrail.tools.builtin._common import ToolInput, reported_paths, resolve_path, validator
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.protocol import ToolResult, build_tool
from handrail.tools.ripgrep import VCS_DIRS, find_rg, run_rg_paths

MAX_RESULTS = 100
_GLOB_CHARS = frozenset("*?[]{}")


class GlobInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    pattern: str = Field(description="The glob pattern to match files against")
    path: str | None = Field(
        default=None,
        description=(
            "The directory to search in. If not specified, the current working directory will be used. "
            'IMPORTANT: Omit this field to use the default directory. DO NOT enter "undefined" or "null" - '
            "simply omit it for the default behavior. Must be a valid directory path if provided (absolute, or "
            "relative to the current working directory)."
        ),
    )


PROMPT = f"""- Fast file pattern matching tool that works with any codebase size
- Supports glob patterns like "**/*.js" or "src/**/*.ts"; a pattern without a slash (like "*.py") matches file names at any depth
- Returns absolute file paths sorted by modification time, newest first (at most {MAX_RESULTS})
- Files ignored by .gitignore are skipped; hidden files are included
- Use this tool when you need to find files by name patterns
- When you are doing an open ended search that may require multiple rounds of globbing and grepping, break it into small searches
- You can call multiple tools in a single response. It is always better to speculatively perform multiple searches in parallel if they are potentially useful."""  # noqa: E501


def split_pattern(pattern: str) -> tuple[Path | None, str]:
    """For an absolute pattern, its fixed leading directory and the rest; else (None, pattern).

    The rest starts with "/", which anchors it to that directory in ripgrep's (gitignore) glob syntax.
    """
    if not os.path.isabs(pattern):
        return None, pattern
    parts = Path(pattern).parts
    fixed: list[str] = []
    for part in parts[:-1]:
        if _GLOB_CHARS & set(part):
            break
        fixed.append(part)
    rest = parts[len(fixed) :]
    return Path(*fixed), "/" + "/".join(rest)


def search_root(value: GlobInput, cwd: Path) -> tuple[Path, str]:
    """The directory to search and the pattern relative to it.

    A pattern that climbs out of the directory ("../lib/*.py") is taken from the directory it reaches.
    """
    base, pattern = split_pattern(value.pattern)
    if base is not None:
        return base, pattern
    root = resolve_path(value.path, cwd) if value.path else cwd
    if pattern.startswith(("../", "./")) or pattern in ("..", "."):
        base, pattern = split_pattern(os.path.normpath(root / pattern))
        if base is not None:
            return base, pattern
    return root, pattern


def glob_args(pattern: str) -> list[str]:
    """The ripgrep arguments listing the files that match `pattern` (relative to where ripgrep runs),
    newest first: ripgrep stats and sorts them itself, faster than a stat per file from Python."""
    args = ["--files", "--hidden", "--sortr", "modified", "--glob", pattern]
    for vcs in VCS_DIRS:
        args += ["--glob", f"!{vcs}"]
    return args


async def _check(value: GlobInput, ctx: ToolUseContext) -> None:
    if not value.pattern.strip():
        raise ToolError("pattern must not be empty.")
    root, _ = search_root(value, ctx.options.cwd)
    if not root.exists():
        raise ToolError(f"Directory does not exist: {root}")
    if not root.is_dir():
        raise ToolError(f"Path is not a directory: {root}")


async def _permissions(value: GlobInput, ctx: ToolUseContext) -> PermissionCheck:
    """Denied when the deny rules cover everything the search could reach; files they cover are left out."""
    root, _ = search_root(value, ctx.options.cwd)
    return ReadScope.of(ctx.permission_context, "Glob").search_check(root, "Glob")


async def _call(value: GlobInput, ctx: ToolUseContext) -> ToolResult:
    await _check(value, ctx)
    root, pattern = search_root(value, ctx.options.cwd)
    prefix = str(root).rstrip("/") + "/"
    visible = ReadScope.of(ctx.permission_context, "Glob").listing_filter(root)
    result = await run_rg_paths(
        glob_args(pattern),
        cwd=root,
        abort=ctx.abort,
        prefix=prefix,
        limit=MAX_RESULTS,
        visible=visible,
        newest_first=True,
    )
    if result.run.returncode == 2 and not result.total:
        raise ToolError(f"Glob failed: {result.run.stderr.strip() or 'ripgrep exited with status 2'}")
    if not result.total:
        return ToolResult("No files found")
    text = "\n".join(result.paths)
    if result.total > MAX_RESULTS:
        text += (
            f"\n(Results are truncated: showing the {MAX_RESULTS} most recently modified of {result.total} files. "
            "Consider using a more specific path or pattern.)"
        )
    return ToolResult(text)


def fixed_prefix(pattern: str) -> str:
    """The directories at the start of `pattern` that hold no glob characters ("../lib/**/*.py" → "../lib")."""
    fixed: list[str] = []
    for part in pattern.split("/")[:-1]:
        if _GLOB_CHARS & set(part):
            break
        fixed.append(part)
    return "/".join(fixed)


def _paths(value: GlobInput) -> tuple[Path, ...]:
    base, _ = split_pattern(value.pattern)
    if base is not None:
        return reported_paths(str(base))
    climb = fixed_prefix(value.pattern) if value.pattern.startswith("../") else ""
    where = os.path.join(value.path or "", climb)
    # Without a path the search is in the working directory, which only the permission pipeline knows.
    return reported_paths(os.path.normpath(where)) if where else ()


GLOB = build_tool(
    name="Glob",
    is_enabled=lambda: find_rg() is not None,  # offered only where ripgrep is installed
    input_model=GlobInput,
    description="Find files by glob pattern",
    prompt=PROMPT,
    search_hint="find files by name glob pattern",
    call=_call,
    validate_input=validator(_check),
    check_permissions=_permissions,
    is_read_only=lambda _: True,
    is_concurrency_safe=lambda _: True,
    paths=_paths,
    rule_content=lambda value: value.path or None,
    summary=lambda value: f"Glob {value.pattern}" + (f" in {value.path}" if value.path else ""),
)
