"""Fixtures for the tool tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from handrail.tools.context import ToolUseContext

from .support import BufferFileSystem, make_context


@pytest.fixture
def ctx(tmp_path: Path) -> ToolUseContext:
    """A context over tmp_path on the plain disk file system."""
    return make_context(tmp_path)


@pytest.fixture
def editor() -> BufferFileSystem:
    """A file system with editor buffers."""
    return BufferFileSystem()


@pytest.fixture
def ectx(tmp_path: Path, editor: BufferFileSystem) -> ToolUseContext:
    """A context over tmp_path whose file system has editor buffers (`editor`)."""
    return make_context(tmp_path, editor)
