"""Where sign-ins to remote MCP servers are kept: one JSON file per server, readable by the user only.

The file (`<state dir>/mcp-auth/<digest>.json`, mode 0600 in a 0700 folder) holds the
OAuth tokens, the client registration, the loopback port the registration names, and
the endpoints needed to refresh and revoke. It is keyed by the server's name *and* URL,
so a workspace that defines another server at the same URL never gets the user's tokens.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

AUTH_DIR = "mcp-auth"
SIGN_IN_SECONDS = 300.0  # how long a sign-in waits for the user to finish in the browser


def sign_in_path(state: Path, server: str, url: str) -> Path:
    """The file for `server` at `url` under the state folder `state`."""
    digest = hashlib.sha256(f"{server}\0{url}".encode()).hexdigest()[:24]
    return state / AUTH_DIR / f"{digest}.json"


# Per file: a lock over its writes and removals, and how often it was removed (signed out). A write runs in
# a thread, and a connection stopped while it awaited one does not stop the thread: without this, tokens
# saved by a stopped connection could land after the sign-out removed them, and the user stay signed in.
_GUARD = threading.Lock()
_LOCKS: dict[Path, threading.Lock] = {}
_REMOVALS: dict[Path, int] = {}


def _lock(path: Path) -> threading.Lock:
    with _GUARD:
        return _LOCKS.setdefault(path, threading.Lock())


class SignInFile:
    """Reads and writes one server's sign-in file (blocking: call from a thread).

    One is made per connection attempt; once the file is removed (a sign-out), the objects made
    before refuse to write it again, so only a connection started afterwards can sign in anew.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        with _lock(path):
            self._removals = _REMOVALS.get(path, 0)

    def read(self) -> dict[str, Any]:
        """What the file holds ({} when it is missing or unreadable: then the user signs in again)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def update(self, **fields: Any) -> None:
        """Set `fields` (a None value removes the field) and write the file atomically, 0600 (nothing when the
        file was removed since this object was made)."""
        with _lock(self.path):
            if _REMOVALS.get(self.path, 0) != self._removals:
                return
            data = self.read()
            for key, value in fields.items():
                if value is None:
                    data.pop(key, None)
                else:
                    data[key] = value
            self._write(data)

    def _write(self, data: dict[str, Any]) -> None:
        folder = self.path.parent
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(folder, 0o700)
        fd, temporary = tempfile.mkstemp(prefix=".sign-in-", dir=folder)  # created 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle)
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise

    def remove(self) -> bool:
        """Forget the sign-in, for good for every object made before; whether there was one."""
        with _lock(self.path):
            _REMOVALS[self.path] = _REMOVALS.get(self.path, 0) + 1
            try:
                self.path.unlink()
            except FileNotFoundError:
                return False
            return True


@dataclass(frozen=True)
class SignIn:
    """A remote server's sign-in: its file, and whether the user may be sent to the browser now (else a
    needed sign-in ends the connection attempt with `McpSignInRequiredError`)."""

    file: SignInFile
    interactive: bool = False
