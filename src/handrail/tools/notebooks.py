"""Jupyter notebooks (nbformat 4): rendering cells for the model, and editing cells keeping the file valid.

A notebook is handled as the parsed JSON (`dict`); `dump_notebook` writes it back the way
the file was written (indentation, key order, ASCII escaping, final newline).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from handrail.errors import HandrailError
from handrail.tools.images import ImageError, prepare_image
from handrail.tools.text_ops import cap_middle, detect_line_ending, with_line_ending

Notebook = dict[str, Any]
Cell = dict[str, Any]
CellType = Literal["code", "markdown"]
EditMode = Literal["replace", "insert", "delete"]

MAX_OUTPUT_CHARS = 6_000
"""Each cell output's text is cut to about this many characters."""

MAX_IMAGES = 10
"""At most this many output images are sent for one notebook; the rest are mentioned."""

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_INDEX_ID = re.compile(r"^(?:cell-)?(\d+)$")
_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
_TEXT_TYPES = ("text/plain", "text/markdown", "text/latex", "application/json", "text/html")


class NotebookError(HandrailError):
    """A notebook that cannot be read or edited as asked; the message is written for the model."""


# ---------------------------------------------------------------- reading


def parse_notebook(text: str) -> Notebook:
    """The notebook in `text`; raises NotebookError unless it is nbformat 4 JSON with a list of cells."""
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotebookError(f"The notebook is not valid JSON: {exc}") from exc
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise NotebookError("The file is not a Jupyter notebook: it has no list of cells.")
    if notebook.get("nbformat") != 4:
        raise NotebookError(
            f"Only nbformat 4 notebooks are supported (this one is nbformat {notebook.get('nbformat')})."
        )
    for index, cell in enumerate(notebook["cells"]):
        if not isinstance(cell, dict) or cell.get("cell_type") not in ("code", "markdown", "raw"):
            raise NotebookError(f"Cell {index} of the notebook is malformed (no valid cell_type).")
    return notebook


def joined(value: Any) -> str:
    """A multiline nbformat string (a string, or a list of strings) as one string."""
    if isinstance(value, list):
        return "".join(str(part) for part in value)
    return str(value) if value is not None else ""


def cell_label(cell: Cell, index: int) -> str:
    """How a cell is named to the model: its id, or `cell-N` for notebooks without ids."""
    cell_id = cell.get("id")
    return str(cell_id) if isinstance(cell_id, str) and cell_id else f"cell-{index}"


def render_notebook(notebook: Notebook, *, max_images: int = MAX_IMAGES) -> list[dict[str, Any]]:
    """The notebook as content blocks: text for cells and text outputs, image blocks for output images."""
    blocks: list[dict[str, Any]] = []
    text: list[str] = [_header(notebook)]
    images = 0
    for index, cell in enumerate(notebook["cells"]):
        label = cell_label(cell, index)
        attrs = f'id="{label}" index="{index}" type="{cell["cell_type"]}"'
        if cell["cell_type"] == "code" and cell.get("execution_count") is not None:
            attrs += f' execution_count="{cell["execution_count"]}"'
        text.append(f"<cell {attrs}>\n{joined(cell.get('source'))}\n</cell>")
        for output in cell.get("outputs") or []:
            if not isinstance(output, dict):
                continue
            body, image_data = _render_output(output)
            kind = output.get("output_type", "output")
            if image_data is not None:
                media_type, raw = image_data
                if images < max_images:
                    try:
                        prepared = prepare_image(raw)
                    except ImageError as exc:
                        body = _join(body, f"[{media_type} image that could not be sent: {exc}]")
                    else:
                        images += 1
                        text.append(
                            f'<output cell="{label}" type="{kind}">\n{_join(body, f"[{media_type} image]")}\n</output>'
                        )
                        blocks.append({"type": "text", "text": "\n\n".join(text)})
                        blocks.append(prepared.block())
                        text = []
                        continue
                else:
                    body = _join(body, f"[{media_type} image not shown: only {max_images} images are sent per read]")
            text.append(f'<output cell="{label}" type="{kind}">\n{body}\n</output>')
    if text:
        blocks.append({"type": "text", "text": "\n\n".join(text)})
    return blocks


def _header(notebook: Notebook) -> str:
    metadata = notebook.get("metadata") or {}
    language = (metadata.get("language_info") or {}).get("name") or (metadata.get("kernelspec") or {}).get("language")
    count = len(notebook["cells"])
    version = f"{notebook.get('nbformat')}.{notebook.get('nbformat_minor', 0)}"
    lang = f"{language}, " if language else ""
    return f"Jupyter notebook ({lang}nbformat {version}) with {count} cell{'s' if count != 1 else ''}."


def _join(*parts: str) -> str:
    return "\n".join(part for part in parts if part)


def _render_output(output: dict[str, Any]) -> tuple[str, tuple[str, bytes] | None]:
    """The text of one output, and its image (media type, bytes) if it has one."""
    kind = output.get("output_type")
    if kind == "stream":
        name = output.get("name", "stdout")
        body = _clean(joined(output.get("text")))
        return (f"[{name}]\n{body}" if name != "stdout" else body), None
    if kind == "error":
        traceback = "\n".join(_clean(line) for line in output.get("traceback") or [])
        head = f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
        return _clean(_join(head, traceback)), None
    data = output.get("data") or {}
    if not isinstance(data, dict):
        return "", None
    image: tuple[str, bytes] | None = None
    for media_type in _IMAGE_TYPES:
        if media_type in data:
            try:
                image = (media_type, base64.b64decode(joined(data[media_type]), validate=False))
            except (binascii.Error, ValueError):
                image = None
            break
    body = ""
    for media_type in _TEXT_TYPES:
        if media_type in data:
            value = data[media_type]
            value = json.dumps(value, indent=1) if media_type == "application/json" else joined(value)
            body = _clean(value) if media_type == "text/plain" else f"[{media_type}]\n{_clean(value)}"
            break
    if not body and image is None and data:
        body = f"[output of type {', '.join(sorted(data))}]"
    return body, image


def _clean(text: str) -> str:
    return cap_middle(_ANSI.sub("", text).rstrip("\n"), MAX_OUTPUT_CHARS)


# ---------------------------------------------------------------- editing


def find_cell(notebook: Notebook, cell_id: str) -> int:
    """The index of the cell `cell_id` names: a cell id, or an index as "3" or "cell-3"."""
    cells = notebook["cells"]
    for index, cell in enumerate(cells):
        if cell.get("id") == cell_id:
            return index
    match = _INDEX_ID.match(cell_id.strip())
    if match is not None and int(match.group(1)) < len(cells):
        return int(match.group(1))
    known = ", ".join(cell_label(cell, index) for index, cell in enumerate(cells[:30]))
    more = f" and {len(cells) - 30} more" if len(cells) > 30 else ""
    raise NotebookError(
        f"Cell {cell_id!r} not found in the notebook (it has {len(cells)} cells: {known or 'none'}{more})."
    )


@dataclass(frozen=True)
class CellEdit:
    """What `edit_notebook` did: the mode, the cell's index and name, and its type."""

    mode: EditMode
    index: int
    label: str
    cell_type: str


def edit_notebook(
    notebook: Notebook,
    *,
    cell_id: str | None,
    new_source: str,
    cell_type: CellType | None,
    mode: EditMode,
) -> CellEdit:
    """Change `notebook` in place: replace a cell's source, insert a cell after one, or delete one.

    Inserts go after `cell_id` (at the start without one). Replacing a code cell's
    source clears its outputs; changing a cell's type adds or drops the code-only fields.
    """
    cells: list[Cell] = notebook["cells"]
    if mode == "insert":
        if cell_type is None:
            raise NotebookError("cell_type is required when inserting a cell (code or markdown).")
        index = find_cell(notebook, cell_id) + 1 if cell_id else 0
        cell = new_cell(notebook, cell_type, new_source)
        cells.insert(index, cell)
        return CellEdit(mode, index, cell_label(cell, index), cell_type)
    if not cell_id:
        raise NotebookError(f"cell_id is required to {mode} a cell.")
    match = _INDEX_ID.match(cell_id.strip())
    if mode == "replace" and match is not None and int(match.group(1)) == len(cells) and not _has_id(cells, cell_id):
        # One past the last cell: append, as Claude Code does.
        cell = new_cell(notebook, cell_type or "code", new_source)
        cells.append(cell)
        return CellEdit("insert", len(cells) - 1, cell_label(cell, len(cells) - 1), cell["cell_type"])
    index = find_cell(notebook, cell_id)
    label = cell_label(cells[index], index)
    if mode == "delete":
        removed = cells.pop(index)
        return CellEdit(mode, index, label, removed["cell_type"])
    cell = cells[index]
    cell["source"] = _source_like(cell.get("source"), new_source, notebook)
    if cell_type is not None and cell_type != cell["cell_type"]:
        cell["cell_type"] = cell_type
        if cell_type == "markdown":
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
    if cell["cell_type"] == "code":
        cell["outputs"] = []
        cell["execution_count"] = None
    return CellEdit(mode, index, label, cell["cell_type"])


def _has_id(cells: list[Cell], cell_id: str) -> bool:
    return any(cell.get("id") == cell_id for cell in cells)


def new_cell(notebook: Notebook, cell_type: str, source: str) -> Cell:
    """A new cell of `cell_type` holding `source`, with an id when the notebook's format has them."""
    cell: Cell = {"cell_type": cell_type}
    if cell_type == "code":
        cell["execution_count"] = None
    if uses_cell_ids(notebook):
        cell["id"] = _new_id(notebook, cell_type, source)
    cell["metadata"] = {}
    if cell_type == "code":
        cell["outputs"] = []
    cell["source"] = _source_like(None, source, notebook)
    return cell


def _new_id(notebook: Notebook, cell_type: str, source: str) -> str:
    """A cell id not yet in the notebook; derived from the content, so planning twice gives the same id."""
    taken = {cell.get("id") for cell in notebook["cells"]}
    seed = f"{len(taken)}\0{cell_type}\0{source}\0{sorted(str(t) for t in taken)}"
    for attempt in range(1000):
        new_id = hashlib.sha256(f"{seed}\0{attempt}".encode("utf-8", "surrogatepass")).hexdigest()[:8]
        if new_id not in taken:
            return new_id
    raise NotebookError("Could not find a free cell id.")  # pragma: no cover - 1000 collisions of 32 bits


def uses_cell_ids(notebook: Notebook) -> bool:
    """Whether the notebook's format (nbformat 4.5 and later) gives cells ids."""
    minor = notebook.get("nbformat_minor", 0)
    return notebook.get("nbformat", 0) > 4 or (isinstance(minor, int) and minor >= 5)


def _source_like(existing: Any, source: str, notebook: Notebook) -> str | list[str]:
    """`source` stored the way the cell (or, for new cells, the notebook) stores sources."""
    if existing is None:
        sources = [cell.get("source") for cell in notebook["cells"] if "source" in cell]
        as_list = not sources or any(isinstance(s, list) for s in sources)
    else:
        as_list = isinstance(existing, list)
    return split_source(source) if as_list else source


def split_source(source: str) -> list[str]:
    """`source` as nbformat's list of lines: split after each newline, the last line without one."""
    lines = [line + "\n" for line in source.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def check_notebook(notebook: Notebook) -> None:
    """Raise NotebookError unless `notebook` has the structure nbformat 4 requires of its cells."""
    ids: set[str] = set()
    for index, cell in enumerate(notebook["cells"]):
        kind = cell.get("cell_type")
        if kind not in ("code", "markdown", "raw") or not isinstance(cell.get("metadata"), dict):
            raise NotebookError(f"Cell {index} would be malformed.")
        if not isinstance(cell.get("source"), str | list):
            raise NotebookError(f"Cell {index} would have no source.")
        if kind == "code" and (not isinstance(cell.get("outputs"), list) or "execution_count" not in cell):
            raise NotebookError(f"Code cell {index} would lack outputs or execution_count.")
        if kind != "code" and ("outputs" in cell or "execution_count" in cell):
            raise NotebookError(f"Cell {index} ({kind}) would have fields only code cells may have.")
        if "id" in cell:  # notebooks from before nbformat 4.5 have none; some later ones lack a few
            cell_id = cell["id"]
            if not isinstance(cell_id, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", cell_id) or cell_id in ids:
                raise NotebookError(f"Cell {index} would have an invalid or repeated id.")
            ids.add(cell_id)


# ---------------------------------------------------------------- writing


@dataclass(frozen=True)
class JsonStyle:
    """How a notebook file is written: indentation, ASCII escaping, final newline, line ending."""

    indent: int | str = 1
    ensure_ascii: bool = False
    final_newline: bool = True
    crlf: bool = False


_NON_ASCII_ESCAPE = re.compile(r"\\u(?!00[0-7])[0-9a-fA-F]{4}")
_INDENT = re.compile(r"^\{\s*?\r?\n([ \t]+)\"")


def detect_style(text: str) -> JsonStyle:
    """The style `text` (a notebook file) is written in; Jupyter's (indent 1) when unclear."""
    indent: int | str = 1
    match = _INDENT.match(text.lstrip("\ufeff"))
    if match is not None:
        found = match.group(1)
        indent = len(found) if set(found) == {" "} else found
    elif text.lstrip().startswith("{") and "\n" not in text.strip():
        indent = 0  # written on one line
    escaped = text.isascii() and _NON_ASCII_ESCAPE.search(text) is not None
    return JsonStyle(indent, escaped, text.endswith("\n"), detect_line_ending(text) == "\r\n")


def dump_notebook(notebook: Notebook, style: JsonStyle) -> str:
    """The notebook as JSON text in `style` (keys stay in the order they were read)."""
    indent = None if style.indent == 0 else style.indent
    text = json.dumps(notebook, indent=indent, ensure_ascii=style.ensure_ascii)
    if style.final_newline:
        text += "\n"
    return with_line_ending(text, "\r\n") if style.crlf else text
