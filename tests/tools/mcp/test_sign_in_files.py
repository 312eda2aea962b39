"""Sign-in files: a sign-out is not undone by a write from a connection made before it."""

from __future__ import annotations

import stat
from pathlib import Path

from handrail.tools.mcp.sign_in_files import SignInFile, sign_in_path


def test_a_write_from_before_the_sign_out_does_not_sign_the_user_back_in(tmp_path: Path) -> None:
    path = sign_in_path(tmp_path, "remote", "https://example.test/mcp")
    connection = SignInFile(path)  # the connection that was running (its write still queued in a thread)
    connection.update(tokens={"access_token": "a", "refresh_token": "r"})
    assert SignInFile(path).remove() is True  # the sign-out
    connection.update(tokens={"access_token": "b", "refresh_token": "r2"})  # lands after it
    assert not path.exists()
    assert SignInFile(path).read() == {}


def test_a_connection_started_after_the_sign_out_signs_in_again(tmp_path: Path) -> None:
    path = sign_in_path(tmp_path, "remote", "https://example.test/mcp")
    SignInFile(path).update(tokens={"access_token": "a"})
    SignInFile(path).remove()
    SignInFile(path).update(tokens={"access_token": "new"}, redirect_port=4242)
    assert SignInFile(path).read() == {"tokens": {"access_token": "new"}, "redirect_port": 4242}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert SignInFile(path).remove() is True and SignInFile(path).remove() is False
