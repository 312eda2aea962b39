"""Diagnostics: the errors and warnings the editor's language servers report, for one file or all."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from handrail.tools.builtin._common import ToolInput, display_path, reported_paths, require_absolute
from handrail.tools.context import ToolUseContext
from handrail.tools.editor_diagnostics import SEVERITY_NAMES, DiagnosticInfo
from handrail.tools.protocol import ToolResult, build_tool

MOST_PER_FILE = 50


class DiagnosticsInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    file_path: str | None = Field(
        default=None, description="The absolute path of a file; leave it out for every file with diagnostics"
    )


PROMPT = """Shows the diagnostics (errors, warnings, hints) that the user's editor reports for a file, from whatever language servers, linters and type checkers they run there.

- Give `file_path` (absolute) for one file, or leave it out for every file the editor has diagnostics for.
- Line and column numbers are 1-based, as in Read's output.
- The diagnostics are the editor's latest for the file's current text (unsaved changes included).
- After Edit or Write, new errors in the lines you changed are reported in that tool's result already."""  # noqa: E501


def _file_lines(path: Path, items: tuple[DiagnosticInfo, ...], cwd: Path) -> list[str]:
    ordered = sorted(items, key=lambda d: (d.severity, d.line, d.character))
    counts = {SEVERITY_NAMES[level]: sum(1 for d in items if d.severity == level) for level in (1, 2)}
    summary = ", ".join(f"{n} {name}{'s' if n != 1 else ''}" for name, n in counts.items() if n) or "no errors"
    lines = [f"{display_path(path, cwd)} ({summary}):"]
    lines += [f"  {d.describe()}" for d in ordered[:MOST_PER_FILE]]
    if len(ordered) > MOST_PER_FILE:
        lines.append(f"  … and {len(ordered) - MOST_PER_FILE} more")
    return lines


async def _call(value: DiagnosticsInput, ctx: ToolUseContext) -> ToolResult:
    source = ctx.diagnostics
    if not source.available:
        return ToolResult(
            "The editor does not share its diagnostics with handrail (the client does not forward them), so "
            "none can be shown. Run the project's checker with Bash instead (a linter, type checker or tests)."
        )
    path = require_absolute(value.file_path) if value.file_path else None
    found = {p: items for p, items in source.current(path).items() if items}
    if not found:
        where = display_path(path, ctx.options.cwd) if path is not None else "any file"
        return ToolResult(f"The editor reports no diagnostics for {where}.")
    lines: list[str] = []
    for file, items in sorted(found.items()):
        lines += _file_lines(file, items, ctx.options.cwd)
    return ToolResult("\n".join(lines))


DIAGNOSTICS = build_tool(
    name="Diagnostics",
    input_model=DiagnosticsInput,
    description="The editor's errors and warnings for a file, or for all files",
    prompt=PROMPT,
    search_hint="diagnostics errors warnings lint type check language server problems",
    call=_call,
    is_read_only=lambda value: True,
    is_concurrency_safe=lambda value: True,
    paths=lambda value: reported_paths(value.file_path),
    rule_content=lambda value: value.file_path,
    summary=lambda value: f"Diagnostics {value.file_path}" if value.file_path else "Diagnostics (all files)",
    interrupt_behavior="cancel",
)
