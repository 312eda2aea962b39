"""Grep: search file contents with ripgrep."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import Field

from handrail.tools.builtin._common import ToolInput, require_absolute, validator
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.protocol import ToolResult, build_tool
from handrail.tools.ripgrep import VCS_DIRS, find_rg, newest_first, run_rg

MAX_COLUMNS = 500
MAX_OUTPUT_CHARS = 50_000

OutputMode = Literal["content", "files_with_matches", "count"]


class GrepInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    pattern: str = Field(description="The regular expression pattern to search for in file contents")
    path: str | None = Field(
        default=None,
        description="File or directory to search in (rg PATH), as an absolute path. Defaults to the current "
        "working directory.",
    )
    glob: str | None = Field(
        default=None,
        description='Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}") - maps to rg --glob',
    )
    type: str | None = Field(
        default=None,
        description="File type to search (rg --type). Common types: js, py, rust, go, java, etc. More efficient "
        "than glob for standard file types.",
    )
    output_mode: OutputMode = Field(
        default="files_with_matches",
        description='Output mode: "content" shows matching lines (supports -A/-B/-C context, -n line numbers, '
        'head_limit), "files_with_matches" shows file paths (supports head_limit), "count" shows match counts '
        '(supports head_limit). Defaults to "files_with_matches".',
    )
    case_insensitive: bool | None = Field(default=None, alias="-i", description="Case insensitive search (rg -i)")
    line_numbers: bool | None = Field(
        default=None,
        alias="-n",
        description='Show line numbers in output (rg -n). Requires output_mode: "content", ignored otherwise. '
        "Defaults to true.",
    )
    after: int | None = Field(
        default=None,
        ge=0,
        alias="-A",
        description='Number of lines to show after each match (rg -A). Requires output_mode: "content", ignored '
        "otherwise.",
    )
    before: int | None = Field(
        default=None,
        ge=0,
        alias="-B",
        description='Number of lines to show before each match (rg -B). Requires output_mode: "content", ignored '
        "otherwise.",
    )
    context: int | None = Field(
        default=None,
        ge=0,
        alias="-C",
        description="Number of lines to show before and after each match (rg -C). Requires output_mode: "
        '"content", ignored otherwise.',
    )
    multiline: bool | None = Field(
        default=None,
        description="Enable multiline mode where . matches newlines and patterns can span lines "
        "(rg -U --multiline-dotall). Default: false.",
    )
    head_limit: int | None = Field(
        default=None,
        ge=1,
        description='Limit output to first N lines/entries, equivalent to "| head -N". Works across all output '
        "modes: content (limits output lines), files_with_matches (limits file paths), count (limits count "
        "entries). Defaults to no limit.",
    )


PROMPT = """A powerful search tool built on ripgrep

Usage:
- ALWAYS use Grep for search tasks. NEVER invoke `grep` or `rg` as a Bash command. The Grep tool has been optimized for correct permissions and access.
- Supports full regex syntax (e.g., "log.*Error", "function\\s+\\w+")
- Filter files with glob parameter (e.g., "*.js", "**/*.tsx") or type parameter (e.g., "js", "py", "rust")
- Output modes: "content" shows matching lines, "files_with_matches" shows only file paths (default, newest first), "count" shows match counts
- Pattern syntax: Uses ripgrep (not grep) - literal braces need escaping (use `interface\\{\\}` to find `interface{}` in Go code)
- Multiline matching: By default patterns match within single lines only. For cross-line patterns like `struct \\{[\\s\\S]*?field`, use `multiline: true`
- Files ignored by .gitignore are skipped; hidden files are searched"""  # noqa: E501


def split_globs(spec: str) -> list[str]:
    """The globs in a `glob` argument: split on spaces and on commas outside braces."""
    globs: list[str] = []
    for token in spec.split():
        if "{" in token and "}" in token:
            globs.append(token)
        else:
            globs.extend(part for part in token.split(",") if part)
    return globs


def rg_args(value: GrepInput, target: Path) -> list[str]:
    """The ripgrep arguments for a Grep call on `target`."""
    args = ["--color", "never", "--max-columns", str(MAX_COLUMNS), "--hidden", "--no-heading"]
    for vcs in VCS_DIRS:
        args += ["--glob", f"!{vcs}"]
    if value.multiline:
        args += ["-U", "--multiline-dotall"]
    if value.case_insensitive:
        args.append("-i")
    if value.output_mode == "files_with_matches":
        args.append("--files-with-matches")
    elif value.output_mode == "count":
        args += ["--count", "--with-filename"]
    else:
        if value.line_numbers is not False:
            args.append("-n")
        if value.context is not None:
            args += ["-C", str(value.context)]
        else:
            if value.before is not None:
                args += ["-B", str(value.before)]
            if value.after is not None:
                args += ["-A", str(value.after)]
    for glob in split_globs(value.glob or ""):
        args += ["--glob", glob]
    if value.type:
        args += ["--type", value.type]
    args += ["-e", value.pattern, "--", str(target)]
    return args


def search_target(value: GrepInput, cwd: Path) -> Path:
    """The file or directory to search."""
    return require_absolute(value.path, field="path") if value.path else cwd


async def _check(value: GrepInput, ctx: ToolUseContext) -> None:
    if not value.pattern:
        raise ToolError("pattern must not be empty.")
    target = search_target(value, ctx.options.cwd)
    if not target.exists():
        raise ToolError(f"Path does not exist: {target}")


async def _call(value: GrepInput, ctx: ToolUseContext) -> ToolResult:
    await _check(value, ctx)
    target = search_target(value, ctx.options.cwd)
    result = await run_rg(rg_args(value, target), cwd=target if target.is_dir() else target.parent, abort=ctx.abort)
    if result.returncode == 2 and not result.stdout.strip():
        raise ToolError(f"Grep failed: {result.stderr.strip() or 'ripgrep exited with status 2'}")
    lines = [line for line in result.stdout.splitlines() if line]
    if result.returncode == 1 or not lines:
        return ToolResult("No matches found")
    warning = ""
    if result.returncode == 2:
        first = result.stderr.strip().splitlines()[:3]
        warning = "\n(Some files could not be searched: " + "; ".join(first) + ")"

    if value.output_mode == "files_with_matches":
        files = await newest_first([Path(line) for line in lines])
        shown, cut = _head(value, [str(path) for path in files])
        text = f"Found {len(files)} file{'s' if len(files) != 1 else ''}\n" + "\n".join(shown)
    elif value.output_mode == "count":
        total = sum(_count_of(line) for line in lines)
        shown, cut = _head(value, lines)
        text = "\n".join(shown) + (
            f"\n\nFound {total} matching line{'s' if total != 1 else ''} across {len(lines)} "
            f"file{'s' if len(lines) != 1 else ''}."
        )
    else:
        shown, cut = _head(value, lines)
        text = "\n".join(shown)
    if cut:
        text += f"\n(Showing the first {len(shown)} of {len(lines)} lines.)"
    if len(text) > MAX_OUTPUT_CHARS:
        text = (
            text[:MAX_OUTPUT_CHARS]
            + "\n(Output truncated: it was too long. Narrow the search with path, glob, type or head_limit.)"
        )
    return ToolResult(text + warning)


def _head(value: GrepInput, lines: list[str]) -> tuple[list[str], bool]:
    if value.head_limit is None or len(lines) <= value.head_limit:
        return lines, False
    return lines[: value.head_limit], True


_COUNT = re.compile(r":(\d+)$")


def _count_of(line: str) -> int:
    match = _COUNT.search(line)
    return int(match.group(1)) if match else 0


def _paths(value: GrepInput) -> tuple[Path, ...]:
    return (Path(value.path),) if value.path else ()


def _summary(value: GrepInput) -> str:
    where = f" in {value.path}" if value.path else ""
    return f"Grep {value.pattern!r}{where}"


GREP = build_tool(
    name="Grep",
    is_enabled=lambda: find_rg() is not None,  # offered only where ripgrep is installed
    input_model=GrepInput,
    description="Search file contents with a regular expression (ripgrep)",
    prompt=PROMPT,
    search_hint="search grep regex find text in files",
    call=_call,
    validate_input=validator(_check),
    is_read_only=lambda _: True,
    is_concurrency_safe=lambda _: True,
    paths=_paths,
    rule_content=lambda value: value.path or None,
    summary=_summary,
)
