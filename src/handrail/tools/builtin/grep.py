"""Grep: search file contents with ripgrep."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field

from handrail.permissions.decision import PermissionCheck
from handrail.permissions.read_scope import ReadScope
from handrail.tools.builtin._common import ToolInput, reported_paths, resolve_path, validator, with_notes
from handrail.tools.builtin.grep_results import (
    MAX_OUTPUT_CHARS,
    ContentReader,
    CountReader,
    LineWindow,
    MatchCounts,
    PathReader,
    Shown,
    Visible,
    fitting,
    format_shown,
)
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.protocol import ToolResult, build_tool
from handrail.tools.ripgrep import VCS_DIRS, Consumer, RgRun, find_rg, run_rg_paths, stream_rg

MAX_COLUMNS = 500

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


# A NUL before each field separator: the path ends at the first NUL, whatever characters it holds.
_CONTENT_FIELDS = ("--field-match-separator", r"\x00:", "--field-context-separator", r"\x00-")


def rg_args(value: GrepInput, target: Path, *, exclude: Sequence[str] = ()) -> list[str]:
    """The ripgrep arguments for a Grep call on `target`; `exclude` are globs of files to leave out.

    Paths come out NUL-terminated (`--null`, `_CONTENT_FIELDS`) so that they can be told apart from
    what follows them; files-with-matches gets `--null` from `run_rg_paths`.
    """
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
        args += ["--count", "--with-filename", "--null"]
    else:
        args += _CONTENT_FIELDS
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


async def _permissions(value: GrepInput, ctx: ToolUseContext) -> PermissionCheck:
    """Denied when the deny rules cover everything the search could reach; files they cover are left out."""
    return ReadScope.of(ctx.permission_context, "Grep").search_check(search_target(value, ctx.options.cwd), "Grep")


@dataclass(frozen=True)
class _Search:
    """One Grep call's search: where, which unsaved buffers stand in for the disk, which files may be shown."""

    value: GrepInput
    target: Path
    is_dir: bool  # ripgrep prints paths when it searches a folder
    dirty: Mapping[Path, str]
    visible: Visible
    abort: asyncio.Event

    @property
    def offset(self) -> int:
        return self.value.offset or 0

    def disk_args(self) -> list[str] | None:
        """The arguments of the disk search (leaving out the buffers), or None when the target is a buffer."""
        if self.target in self.dirty:
            return None
        return rg_args(self.value, self.target, exclude=[exclusion_glob(path, self.target) for path in self.dirty])

    async def disk(self, consume: Consumer) -> RgRun | None:
        args = self.disk_args()
        if args is None:
            return None
        return await stream_rg(args, cwd=rg_cwd(self.target), consume=consume, abort=self.abort)


async def _call(value: GrepInput, ctx: ToolUseContext) -> ToolResult:
    await _check(value, ctx)
    target = search_target(value, ctx.options.cwd)
    scope = ReadScope.of(ctx.permission_context, "Grep")
    is_dir = target.is_dir()
    dirty = {
        path: text
        for path, text in buffers_under(target, await ctx.fs.dirty_buffers()).items()
        if scope.denial(scope.forms(path)) is None
    }
    search = _Search(value, target, is_dir, dirty, scope.listing_filter(target) if is_dir else None, ctx.abort)
    if value.output_mode == "files_with_matches":
        shown, from_buffers, warning = await _files(search)
    elif value.output_mode == "count":
        shown, from_buffers, warning = await _counts(search)
    else:
        shown, from_buffers, warning = await _content(search)
    if shown.total == 0:
        return ToolResult(with_notes("No matches found", warning))
    note = ""
    if from_buffers:
        names = ", ".join(sorted(str(path) for path in dirty)[:5])
        note = f"(Open files with unsaved changes were searched in the editor's text: {names}.)"
    return ToolResult(with_notes(format_shown(shown), note, warning))


def _warning(run: RgRun | None, found: int) -> str:
    """A note on files ripgrep could not search; an error when it found nothing and failed."""
    if run is None or run.returncode != 2:
        return ""
    if not found:
        raise ToolError(f"Grep failed: {run.stderr.strip() or 'ripgrep exited with status 2'}")
    return f"(Some files could not be searched: {run.warnings()})"


def content_fields(value: GrepInput, is_dir: bool) -> int:
    """How many NUL-marked field separators a content line has: the path's, the line number's."""
    return int(is_dir) + int(value.line_numbers is not False)


async def _content(search: _Search) -> tuple[Shown, bool, str]:
    value = search.value
    window = LineWindow(offset=search.offset, limit=value.head_limit)
    fields = content_fields(value, search.is_dir)
    run = await search.disk(ContentReader(window, fields=fields, paths=search.is_dir, visible=search.visible))
    warning = _warning(run, window.seen)
    before = window.seen
    if search.dirty and not window.more:
        if _has_context(value):
            window.separate()
        buffers = await search_buffers(
            value,
            search.target,
            search.dirty,
            lambda strip: ContentReader(window, fields=fields, paths=search.is_dir, visible=None, strip=strip),
            abort=search.abort,
        )
        _warning(buffers, window.seen)
    total = None if window.more else window.seen
    cut = value.head_limit is not None and len(window.lines) >= value.head_limit
    return Shown("content", window.lines, search.offset, total, cut_by_limit=cut), window.seen > before, warning


async def _counts(search: _Search) -> tuple[Shown, bool, str]:
    counts = MatchCounts(LineWindow(offset=search.offset, limit=search.value.head_limit, stops=False))
    run = await search.disk(CountReader(counts, visible=search.visible))
    warning = _warning(run, counts.window.seen)
    before = counts.window.seen
    if search.dirty:
        buffers = await search_buffers(
            search.value,
            search.target,
            search.dirty,
            lambda strip: CountReader(counts, visible=None, strip=strip),
            abort=search.abort,
        )
        _warning(buffers, counts.window.seen)
    window = counts.window
    shown = Shown("count", fitting(window.lines), search.offset, window.seen, counts.matches)
    return shown, window.seen > before, warning


def most_listed(target: Path) -> int:
    """How many paths below `target` can fit in a result (each is at least `target/x`)."""
    return MAX_OUTPUT_CHARS // (len(str(target)) + 2) + 1


async def _files(search: _Search) -> tuple[Shown, bool, str]:
    """Files with matches, newest first: the buffers' first of all, as they are being edited now."""
    value = search.value
    buffer_paths: list[str] = []
    if search.dirty:
        found = PathReader()
        run = await search_buffers(
            value, search.target, search.dirty, found.below, extra=("--null",), separator=b"\0", abort=search.abort
        )
        buffer_paths = found.paths
        _warning(run, len(buffer_paths))
    paths: list[str] = []
    total = len(buffer_paths)
    warning = ""
    if (args := search.disk_args()) is not None:
        limit = search.offset + (value.head_limit or most_listed(search.target))
        listed = await run_rg_paths(
            args, cwd=rg_cwd(search.target), limit=limit, abort=search.abort, visible=search.visible
        )
        warning = _warning(listed.run, listed.total + total)
        paths, total = listed.paths, total + listed.total
    every = buffer_paths + paths
    page = every[search.offset :]
    if value.head_limit is not None:
        page = page[: value.head_limit]
    return Shown("files_with_matches", fitting(page), search.offset, total), bool(buffer_paths), warning


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
    value: GrepInput,
    target: Path,
    dirty: Mapping[Path, str],
    reader: Callable[[bytes], Consumer],
    *,
    extra: Sequence[str] = (),
    separator: bytes = b"\n",
    abort: asyncio.Event | None = None,
) -> RgRun | None:
    """Run this Grep over the unsaved text of the `dirty` buffers under `target` (None when there are none).

    The texts are laid out in a temporary mirror of their absolute paths, with the ignore files
    of their directories beside them, and ripgrep runs there with the same arguments: the buffers
    are matched with exactly the regex dialect, filters and output format of the disk search.
    Its output goes to `reader(prefix)`, which takes the mirror's `prefix` off the paths.
    """
    inside = buffers_under(target, dirty)
    if not inside:
        return None
    with tempfile.TemporaryDirectory(prefix="handrail-grep-") as tmp:
        mirror = Path(tmp)
        await asyncio.to_thread(_lay_out, mirror, inside)
        mirrored = _mirrored(mirror, target)
        return await stream_rg(
            [*extra, *rg_args(value, mirrored)],
            cwd=rg_cwd(mirrored),
            consume=reader(os.fsencode(mirror)),
            abort=abort,
            separator=separator,
        )


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
    check_permissions=_permissions,
    is_read_only=lambda _: True,
    is_concurrency_safe=lambda _: True,
    paths=_paths,
    rule_content=lambda value: value.path or None,
    summary=_summary,
)
