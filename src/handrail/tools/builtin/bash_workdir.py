"""The Bash session's working directory: where a command starts, and where it left the shell.

A command runs with an EXIT trap that writes `pwd -P` to a temporary file, so a `cd`
carries over to the next call. A directory outside the working directories (or one
that no longer exists) is not kept: the shell goes back to the workspace root, and
the model is told.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import tempfile
from collections.abc import Iterator
from pathlib import Path

from handrail.permissions.paths import is_inside_both, resolve, within
from handrail.tools.context import ToolUseContext


def working_dirs(ctx: ToolUseContext) -> tuple[Path, ...]:
    """The directories the shell may stay in."""
    return ctx.permission_context.working_directories or ctx.options.workspace_roots or (ctx.options.cwd,)


def starting_dir(ctx: ToolUseContext) -> tuple[Path, str]:
    """Where the next command runs, and a note for the model when the session's directory had to be reset."""
    root = ctx.options.cwd
    cwd = ctx.session_cwd()
    if cwd == root or ctx.shell is None:
        return root, ""
    if cwd.is_dir() and is_inside_both(cwd, working_dirs(ctx)):
        return cwd, ""
    ctx.shell.cwd = None
    return root, f"The shell's working directory {cwd} is gone or outside the working directories; reset to {root}."


@contextlib.contextmanager
def cwd_capture() -> Iterator[Path]:
    """A temporary file for the shell to write its final directory into; removed afterwards."""
    fd, name = tempfile.mkstemp(prefix="handrail-cwd-")
    os.close(fd)
    try:
        yield Path(name)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(name)


def capturing_script(command: str, capture: Path) -> str:
    """`command` with an EXIT trap that records the shell's final directory (same line: line numbers stay)."""
    return f"trap 'pwd -P >| {shlex.quote(str(capture))}' EXIT; {command}"


def landed_dir(capture: Path) -> Path | None:
    """The directory the shell ended in, as recorded by the trap (None when it did not run, e.g. after `exec`)."""
    try:
        text = capture.read_text(encoding="utf-8", errors="surrogateescape").rstrip("\n")
    except OSError:
        return None
    return Path(text) if text.startswith("/") else None


def _as_configured(landed: Path, dirs: tuple[Path, ...]) -> Path:
    """`landed` (symlink-free, from `pwd -P`) under the spelling of the working directory holding it.

    A workspace opened through a symbolic link stays in that form, which is how rules and the
    analyser name it.
    """
    for directory in dirs:
        real = resolve(directory)
        if real != directory and within(landed, real):
            return directory / landed.relative_to(real)
    return landed


def settle_cwd(ctx: ToolUseContext, started: Path, landed: Path | None) -> str:
    """Keep where the command left the shell; a note for the model when it had to be reset."""
    shell = ctx.shell
    if shell is None or landed is None:
        return ""
    dirs = working_dirs(ctx)
    landed = _as_configured(landed, dirs)
    root = ctx.options.cwd
    if landed == started:
        return ""
    if landed == root:
        shell.cwd = None
        return ""
    if is_inside_both(landed, dirs):
        shell.cwd = landed
        return ""
    shell.cwd = None
    return (
        f"Shell cwd was reset to {root}: the command moved to {landed}, outside the working directories, "
        "and the shell does not stay there."
    )
