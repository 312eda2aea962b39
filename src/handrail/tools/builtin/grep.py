"""Grep: search file contents with ripgrep."""

from __future__ import annotations

import asyncio
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from pydantic import Field

from handrail.tools.builtin._common import ToolInput, reported_paths, resolve_path, validator, with_notes
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.protocol import ToolResult, build_tool
from handrail.tools.ripgrep import VCS_DIRS, find_rg, run_rg, run_rg_paths

MAX_COLUMNS = 500
MAX_OUTPUT_CHARS = 50_000

OutputMode = Literal["content", "files_with_matches", "count"]


class GrepInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    pattern: str = Field(description="The regular expression pattern to search for in file contents")
    path: str | None = Field(
        default=None,
        description="File or directory to search in (rg PATH). Defaults to the current working directory. "
        "Relative paths are taken from the current working directory.",
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
    offset: int | None = Field(
        default=None,
        ge=0,
        description='Skip first N lines/entries before applying head_limit, equivalent to "| tail -n +N | head -N". '
        "Works across all output modes. Defaults to 0.",
    )


PROMPT = """A powerful search tool built on ripgrep

Usage:
- ALWAYS use Grep for search tasks. NEVER invoke `grep` or `rg` as a Bash command. The Grep tool has been optimized for correct permissions and access.
- Supports full regex syntax (e.g., "log.*Error", "function\\s+\\w+")
- Filter files with glob parameter (e.g., "*.js", "**/*.tsx") or type parameter (e.g., "js", "py", "rust")
- Output modes: "content" shows matching lines, "files_with_matches" shows only file paths (default, newest first), "count" shows match counts
- Pattern syntax: Uses ripgrep (not grep) - literal braces need escaping (use `interface\\{\\}` to find `interface{}` in Go code)
- Multiline matching: By default patterns match within single lines only. For cross-line patterns like `struct \\{[\\s\\S]*?field`, use `multiline: true`
- Files ignored by .gitignore are skipped; hidden files are searched
- Files open in the editor with unsaved changes are searched in their unsaved text
- Page through long results with head_limit and offset"""  # noqa: E501


def split_globs(spec: str) -> list[str]:
    """The globs in a `glob` argument: split on spaces and on commas outside braces."""
    globs: list[str] = []
    for token in spec.split():
        if "{" in token and "}" in token:
            globs.append(token)
        else:
            globs.extend(part for part in token.split(",") if part)
    return globs


def rg_args(value: GrepInput, target: Path, *, exclude: Sequence[str] = ()) -> list[str]:
    """The ripgrep arguments for a Grep call on `target`; `exclude` are globs of files to leave out."""
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
    for glob in exclude:
        args += ["--glob", glob]
    if value.type:
        args += ["--type", value.type]
    args += ["-e", value.pattern, "--", str(target)]
    return args


def search_target(value: GrepInput, cwd: Path) -> Path:
    """The file or directory to search (relative paths are taken from `cwd`)."""
    return resolve_path(value.path, cwd) if value.path else cwd


def rg_cwd(target: Path) -> Path:
    """Where ripgrep runs for `target`: globs are anchored there."""
    return target if target.is_dir() else target.parent


async def _check(value: GrepInput, ctx: ToolUseContext) -> None:
    if not value.pattern:
        raise ToolError("pattern must not be empty.")
    target = search_target(value, ctx.options.cwd)
    if not target.exists():
        raise ToolError(f"Path does not exist: {target}")


async def _call(value: GrepInput, ctx: ToolUseContext) -> ToolResult:
    await _check(value, ctx)
    target = search_target(value, ctx.options.cwd)
    dirty = buffers_under(target, await ctx.fs.dirty_buffers())
    if target in dirty:
        disk_lines: list[str] = []
        warning = ""
    else:
        exclude = [exclusion_glob(path, target) for path in dirty]
        disk_lines, warning = await _search_disk(rg_args(value, target, exclude=exclude), value, target, ctx)
    buffer_lines = await search_buffers(value, target, dirty, abort=ctx.abort) if dirty else []
    if not disk_lines and not buffer_lines:
        return ToolResult(with_notes("No matches found", warning))
    lines = merge_results(value, disk_lines, buffer_lines)
    text = _format(value, lines)
    note = ""
    if buffer_lines:
        names = ", ".join(sorted(str(path) for path in dirty)[:5])
        note = f"(Open files with unsaved changes were searched in the editor's text: {names}.)"
    return ToolResult(with_notes(text, note, warning))


async def _search_disk(args: list[str], value: GrepInput, target: Path, ctx: ToolUseContext) -> tuple[list[str], str]:
    """ripgrep's output lines on disk (file lists newest first), and a warning about files it could not read."""
    if value.output_mode == "files_with_matches":
        listed = await run_rg_paths(args, cwd=rg_cwd(target), abort=ctx.abort)
        code, lines, stderr = listed.returncode, listed.paths, listed.stderr
    else:
        result = await run_rg(args, cwd=rg_cwd(target), abort=ctx.abort)
        code, stderr = result.returncode, result.stderr
        lines = [line for line in result.stdout.splitlines() if line] if code != 1 else []
    if code == 2 and not lines:
        raise ToolError(f"Grep failed: {stderr.strip() or 'ripgrep exited with status 2'}")
    if code == 2:
        return lines, "(Some files could not be searched: " + "; ".join(stderr.strip().splitlines()[:3]) + ")"
    return lines, ""


def _format(value: GrepInput, lines: list[str]) -> str:
    start = value.offset or 0
    shown = lines[start:]
    if value.head_limit is not None:
        shown = shown[: value.head_limit]
    if value.output_mode == "files_with_matches":
        count = len(lines)
        text = f"Found {count} file{'s' if count != 1 else ''}\n" + "\n".join(shown)
        unit = "files"
    elif value.output_mode == "count":
        total = sum(_count_of(line) for line in lines)
        text = "\n".join(shown) + (
            f"\n\nFound {total} matching line{'s' if total != 1 else ''} across {len(lines)} "
            f"file{'s' if len(lines) != 1 else ''}."
        )
        unit = "entries"
    else:
        text = "\n".join(shown)
        unit = "lines"
    if not shown:
        text = f"No results at offset {start}: there are {len(lines)} {unit}."
    elif len(shown) < len(lines):
        end = start + len(shown)
        text += f"\n(Showing {unit} {start + 1}-{end} of {len(lines)}."
        text += f" To see more, call Grep again with offset={end}.)" if end < len(lines) else ")"
    if len(text) > MAX_OUTPUT_CHARS:
        text = (
            text[:MAX_OUTPUT_CHARS]
            + "\n(Output truncated: it was too long. Narrow the search with path, glob, type or head_limit.)"
        )
    return text


_COUNT = re.compile(r":(\d+)$")


def _count_of(line: str) -> int:
    match = _COUNT.search(line)
    return int(match.group(1)) if match else 0


# ---------------------------------------------------------------- unsaved editor buffers


def buffers_under(target: Path, dirty: Mapping[Path, str]) -> dict[Path, str]:
    """The buffers in `dirty` that a search of `target` covers (the file itself, or files below it)."""
    return {path: text for path, text in dirty.items() if path == target or target in path.parents}


_GLOB_SPECIAL = re.compile(r"([*?\[\]{}\\])")


def exclusion_glob(path: Path, root: Path) -> str:
    """A ripgrep glob, anchored at `root` (where ripgrep runs), that leaves out exactly `path`."""
    relative = path.relative_to(root).as_posix()
    return "!/" + _GLOB_SPECIAL.sub(r"[\1]", relative)


_IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")


async def search_buffers(
    value: GrepInput, target: Path, dirty: Mapping[Path, str], *, abort: asyncio.Event | None = None
) -> list[str]:
    """ripgrep's output lines for this Grep over the unsaved text of `dirty` buffers under `target`.

    The texts are laid out in a temporary mirror of their absolute paths, with the ignore files
    of their directories beside them, and ripgrep runs there with the same arguments: the buffers
    are matched with exactly the regex dialect, filters and output format of the disk search.
    Lines come back with the real paths.
    """
    inside = buffers_under(target, dirty)
    if not inside:
        return []
    with tempfile.TemporaryDirectory(prefix="handrail-grep-") as tmp:
        mirror = Path(tmp)
        await asyncio.to_thread(_lay_out, mirror, inside)
        mirrored = _mirrored(mirror, target)
        result = await run_rg(rg_args(value, mirrored), cwd=rg_cwd(mirrored), abort=abort)
    if result.returncode == 2 and not result.stdout.strip():
        raise ToolError(f"Grep failed: {result.stderr.strip() or 'ripgrep exited with status 2'}")
    prefix = str(mirror)
    return [line[len(prefix) :] if line.startswith(prefix) else line for line in result.stdout.splitlines() if line]


def _mirrored(mirror: Path, path: Path) -> Path:
    return mirror / path.relative_to(path.anchor)


def _lay_out(mirror: Path, buffers: Mapping[Path, str]) -> None:
    for path, text in buffers.items():
        target = _mirrored(mirror, path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", errors="surrogatepass", newline="")
    seen: set[Path] = set()
    for path in buffers:
        for directory in path.parents:
            if directory in seen:
                break
            seen.add(directory)
            for name in _IGNORE_FILES:
                source = directory / name
                copy = _mirrored(mirror, source)
                if source.is_file() and not copy.exists():  # an open, unsaved ignore file is already there
                    shutil.copyfile(source, copy)


def merge_results(value: GrepInput, disk: list[str], buffers: list[str]) -> list[str]:
    """Disk results (without the files open with unsaved changes) and buffer results, as one list.

    Files with matches (the disk's already newest first) put the buffers first of all, as they
    are being edited now; counts and content lines keep ripgrep's order, buffers after the disk.
    """
    if value.output_mode == "files_with_matches":
        return buffers + disk
    if value.output_mode == "content" and disk and buffers and _has_context(value):
        return [*disk, "--", *buffers]
    return disk + buffers


def _has_context(value: GrepInput) -> bool:
    return any(n for n in (value.context, value.before, value.after))


def _paths(value: GrepInput) -> tuple[Path, ...]:
    # Without a path the search is in the working directory, which only the permission pipeline knows.
    return reported_paths(value.path)


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
