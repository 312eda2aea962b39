"""A session's shell state: the working directory Bash calls share, and its background shells."""

from __future__ import annotations

from pathlib import Path

from handrail.tools.background_shells import BackgroundShells


class ShellSession:
    """What persists from one Bash call to the next within a session.

    `cwd` is None until a command changes directory; Bash then runs in the workspace root.
    """

    def __init__(self) -> None:
        self.cwd: Path | None = None
        self.background = BackgroundShells()

    def cwd_or(self, root: Path) -> Path:
        """The session's directory, or `root` when no command has changed it."""
        return self.cwd if self.cwd is not None else root

    async def close(self) -> None:
        """The session is ending: kill its background shells."""
        await self.background.close()
