"""NotebookEdit, and the notebook round trip through Read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from handrail.tools.builtin import NOTEBOOK_EDIT, READ
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.notebooks import detect_style, split_source
from tests.tools.support import BufferFileSystem, run


def notebook(minor: int = 5, *, ids: bool = True) -> dict[str, Any]:
    cells: list[dict[str, Any]] = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Analysis\n", "Intro ✨"]},
        {"cell_type": "code", "execution_count": 1, "metadata": {"tags": ["setup"]},
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["ready\n"]}],
         "source": ["import math\n", "print('ready')"]},
        {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [], "source": "math.pi"},
    ]
    if ids:
        for cell, cell_id in zip(cells, ("intro", "setup", "pi"), strict=True):
            cell["id"] = cell_id
    return {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "language": "python"}},
            "nbformat": 4, "nbformat_minor": minor}


def write(path: Path, nb: dict[str, Any], indent: int = 1) -> None:
    path.write_text(json.dumps(nb, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")


def load(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def assert_valid(nb: dict[str, Any]) -> None:
    """The structure nbformat 4 requires of cells (what `nbformat.validate` checks that matters here)."""
    assert nb["nbformat"] == 4 and isinstance(nb["metadata"], dict)
    ids = [cell.get("id") for cell in nb["cells"]]
    for cell in nb["cells"]:
        assert cell["cell_type"] in ("code", "markdown", "raw")
        assert isinstance(cell["metadata"], dict)
        assert isinstance(cell["source"], str | list)
        if cell["cell_type"] == "code":
            assert isinstance(cell["outputs"], list) and "execution_count" in cell
        else:
            assert "outputs" not in cell and "execution_count" not in cell
        if nb["nbformat_minor"] >= 5:
            assert isinstance(cell["id"], str) and 1 <= len(cell["id"]) <= 64
    if nb["nbformat_minor"] >= 5:
        assert len(set(ids)) == len(ids)


@pytest.fixture
async def nb_path(ctx: ToolUseContext, tmp_path: Path) -> Path:
    path = tmp_path / "analysis.ipynb"
    write(path, notebook())
    await run(READ, ctx, file_path=str(path))
    return path


async def test_round_trip_replace_insert_delete(ctx: ToolUseContext, nb_path: Path) -> None:
    text = await run(NOTEBOOK_EDIT, ctx, notebook_path=str(nb_path), cell_id="setup", new_source="import os\nos.sep")
    assert text == f"Updated cell setup (index 1, code) in {nb_path}. Its outputs were cleared."
    nb = load(nb_path)
    assert_valid(nb)
    setup = nb["cells"][1]
    assert setup["source"] == ["import os\n", "os.sep"]
    assert setup["outputs"] == [] and setup["execution_count"] is None
    assert setup["metadata"] == {"tags": ["setup"]}

    text = await run(NOTEBOOK_EDIT, ctx, notebook_path=str(nb_path), cell_id="intro", new_source="x = 1",
                     cell_type="code", edit_mode="insert")
    nb = load(nb_path)
    assert_valid(nb)
    new = nb["cells"][1]
    assert new["cell_type"] == "code" and new["source"] == ["x = 1"]
    assert new["outputs"] == [] and new["execution_count"] is None and new["metadata"] == {}
    assert text == f"Inserted a new code cell {new['id']} at index 1 in {nb_path}."
    assert list(new) == ["cell_type", "execution_count", "id", "metadata", "outputs", "source"]

    await run(NOTEBOOK_EDIT, ctx, notebook_path=str(nb_path), new_source="## Top", cell_type="markdown",
              edit_mode="insert")
    nb = load(nb_path)
    assert_valid(nb)
    assert nb["cells"][0]["source"] == ["## Top"] and nb["cells"][0]["cell_type"] == "markdown"
    assert "outputs" not in nb["cells"][0]

    text = await run(NOTEBOOK_EDIT, ctx, notebook_path=str(nb_path), cell_id="pi", new_source="",
                     edit_mode="delete")
    assert text == f"Deleted cell pi (index 4) from {nb_path}."
    nb = load(nb_path)
    assert_valid(nb)
    assert [cell.get("id") for cell in nb["cells"]][1:] == ["intro", nb["cells"][2]["id"], "setup"]

    shown = await run(READ, ctx, file_path=str(nb_path))
    assert '<cell id="setup" index="3" type="code">\nimport os\nos.sep\n</cell>' in shown
    assert "ready" not in shown


async def test_keeps_the_file_style(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "two.ipynb"
    write(path, notebook(), indent=2)
    original = path.read_text()
    await run(READ, ctx, file_path=str(path))
    await run(NOTEBOOK_EDIT, ctx, notebook_path=str(path), cell_id="pi", new_source="math.pi")
    after = path.read_text()
    assert after.startswith('{\n  "cells": [\n    {\n')
    assert "Intro ✨" in after and after.endswith("}\n")
    # Only the edited cell changed: execution count cleared, same source.
    assert [line for line in after.splitlines() if line not in original.splitlines()] == [
        '      "execution_count": null,'
    ]


def test_detect_style() -> None:
    assert detect_style('{\n "cells": []\n}\n').indent == 1
    assert detect_style('{\n    "cells": []\n}').indent == 4
    assert detect_style('{\n\t"cells": []\n}').indent == "\t"
    assert detect_style('{"cells": []}').indent == 0
    assert detect_style('{\n "a": "caf\\u00e9"\n}\n').ensure_ascii
    assert not detect_style('{\n "a": "café"\n}\n').ensure_ascii
    assert detect_style('{\r\n "a": 1\r\n}\r\n').crlf
    assert not detect_style('{\n "a": 1\n}').final_newline


def test_split_source() -> None:
    assert split_source("a\nb") == ["a\n", "b"]
    assert split_source("a\nb\n") == ["a\n", "b\n"]
    assert split_source("") == []


async def test_cells_by_index(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "old.ipynb"
    write(path, notebook(minor=4, ids=False))
    await run(READ, ctx, file_path=str(path))
    await run(NOTEBOOK_EDIT, ctx, notebook_path=str(path), cell_id="cell-2", new_source="tau = 2 * math.pi")
    await run(NOTEBOOK_EDIT, ctx, notebook_path=str(path), cell_id="0", new_source="# Renamed")
    await run(NOTEBOOK_EDIT, ctx, notebook_path=str(path), cell_id="2", new_source="tau", cell_type="markdown",
              edit_mode="insert")
    nb = load(path)
    assert_valid(nb)
    assert [cell["source"] for cell in nb["cells"]] == [
        ["# Renamed"], ["import math\n", "print('ready')"], "tau = 2 * math.pi", ["tau"],
    ]
    assert all("id" not in cell for cell in nb["cells"])


async def test_replace_one_past_the_end_appends(ctx: ToolUseContext, nb_path: Path) -> None:
    await run(NOTEBOOK_EDIT, ctx, notebook_path=str(nb_path), cell_id="3", new_source="print(1)")
    nb = load(nb_path)
    assert_valid(nb)
    assert len(nb["cells"]) == 4 and nb["cells"][3]["cell_type"] == "code"


async def test_changing_the_cell_type(ctx: ToolUseContext, nb_path: Path) -> None:
    await run(NOTEBOOK_EDIT, ctx, notebook_path=str(nb_path), cell_id="setup", new_source="Now prose",
              cell_type="markdown")
    await run(NOTEBOOK_EDIT, ctx, notebook_path=str(nb_path), cell_id="intro", new_source="1 + 1", cell_type="code")
    nb = load(nb_path)
    assert_valid(nb)
    assert nb["cells"][1]["cell_type"] == "markdown" and "outputs" not in nb["cells"][1]
    assert nb["cells"][0]["cell_type"] == "code" and nb["cells"][0]["outputs"] == []


async def test_errors(ctx: ToolUseContext, tmp_path: Path, nb_path: Path) -> None:
    with pytest.raises(ToolError, match=r"Cell 'nope' not found.*3 cells: intro, setup, pi"):
        await run(NOTEBOOK_EDIT, ctx, notebook_path=str(nb_path), cell_id="nope", new_source="x")
    with pytest.raises(ToolError, match="cell_type is required"):
        await run(NOTEBOOK_EDIT, ctx, notebook_path=str(nb_path), cell_id="pi", new_source="x", edit_mode="insert")
    with pytest.raises(ToolError, match="cell_id is required"):
        await run(NOTEBOOK_EDIT, ctx, notebook_path=str(nb_path), new_source="x")
    with pytest.raises(ToolError, match=r"\.ipynb"):
        await run(NOTEBOOK_EDIT, ctx, notebook_path=str(tmp_path / "a.py"), cell_id="0", new_source="x")
    with pytest.raises(ToolError, match="absolute"):
        await run(NOTEBOOK_EDIT, ctx, notebook_path="rel.ipynb", cell_id="0", new_source="x")
    with pytest.raises(ToolError, match="File does not exist"):
        await run(NOTEBOOK_EDIT, ctx, notebook_path=str(tmp_path / "none.ipynb"), cell_id="0", new_source="x")


async def test_requires_a_fresh_read(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    write(path, notebook())
    with pytest.raises(ToolError, match="has not been read yet"):
        await run(NOTEBOOK_EDIT, ctx, notebook_path=str(path), cell_id="pi", new_source="x")
    await run(READ, ctx, file_path=str(path))
    changed = notebook()
    changed["cells"][2]["source"] = "math.e"
    write(path, changed)
    with pytest.raises(ToolError, match="modified since read"):
        await run(NOTEBOOK_EDIT, ctx, notebook_path=str(path), cell_id="pi", new_source="x")


async def test_open_notebook_is_edited_in_the_buffer(
    ectx: ToolUseContext, editor: BufferFileSystem, tmp_path: Path
) -> None:
    path = tmp_path / "open.ipynb"
    write(path, notebook())
    editor.open(path)
    await run(READ, ectx, file_path=str(path))
    await run(NOTEBOOK_EDIT, ectx, notebook_path=str(path), cell_id="pi", new_source="math.tau")
    assert editor.writes == [(path, "NotebookEdit open.ipynb")]
    assert json.loads(editor.buffers[path].text)["cells"][2]["source"] == "math.tau"


async def test_permission_diff(ctx: ToolUseContext, nb_path: Path) -> None:
    value = NOTEBOOK_EDIT.input_model(notebook_path=str(nb_path), cell_id="pi", new_source="math.e")
    check = await NOTEBOOK_EDIT.check_permissions(value, ctx)
    assert check.diff is not None and '-   "source": "math.pi",\n+   "source": "math.e",' in check.diff
    assert not NOTEBOOK_EDIT.is_read_only(value) and not NOTEBOOK_EDIT.is_concurrency_safe(value)
    assert NOTEBOOK_EDIT.paths(value) == (nb_path,)
