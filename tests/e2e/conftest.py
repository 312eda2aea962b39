"""Fixtures for end-to-end tests: a fake model, a workspace, and an editor running `handrail lsp`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from handrail.fake_model import FakeModel
from tests.e2e.editor import Editor, server_env, start_editor


@pytest.fixture
def model() -> Iterator[FakeModel]:
    """The scripted model; tests add steps with `model.add(...)`."""
    with FakeModel() as fake:
        yield fake


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A small workspace folder."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text("def greet(name):\n    return 'hello ' + name\n")
    (root / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    return root.resolve()


async def _editor(workspace: Path, model: FakeModel, *, rich: bool, **options: Any) -> AsyncIterator[Editor]:
    env = server_env(model.base_url, workspace.parent / "state")
    editor = await start_editor(workspace, env, rich=rich, init_options=options or None)
    yield editor
    await editor.client.shutdown_session()
    await editor.client.stop()


@pytest_asyncio.fixture
async def editor(workspace: Path, model: FakeModel) -> AsyncIterator[Editor]:
    """A plain-LSP editor (prompts through window/showMessageRequest) that can save on request."""
    async for e in _editor(workspace, model, rich=False):
        yield e


@pytest_asyncio.fixture
async def trusted_editor(workspace: Path, model: FakeModel) -> AsyncIterator[Editor]:
    """A plain-LSP editor in a workspace the user trusts."""
    async for e in _editor(workspace, model, rich=False, workspaceTrusted=True):
        yield e


@pytest_asyncio.fixture
async def rich_editor(workspace: Path, model: FakeModel) -> AsyncIterator[Editor]:
    """An editor that declares handrail/permission."""
    async for e in _editor(workspace, model, rich=True):
        yield e
