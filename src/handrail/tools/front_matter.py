"""A small, strict parser for the YAML-ish front matter of agent files.

Supported: `key: value` lines whose value is a plain scalar, a single- or
double-quoted string, a flow list (`[a, b]`), a block list (indented `- item`
lines) or a block scalar (`|` keeps lines, `>` folds them). Comments (`#`) and
blank lines are skipped. Anything else (nested maps, anchors, duplicate keys)
is an error naming the line, so a malformed file is reported, never guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from handrail.errors import HandrailError

FrontValue = str | list[str]

_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)\s*:(?:\s+(.*))?$")
_DOUBLE_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/"}
_FENCE = "---"


class FrontMatterError(HandrailError, ValueError):
    """The front matter is malformed; `line` is 1-based in the file."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass(frozen=True)
class Document:
    """A file split into its front matter and its body."""

    fields: dict[str, FrontValue]
    body: str


def split_front_matter(text: str) -> Document:
    """Parse `---`-fenced front matter at the very start of `text`; raises FrontMatterError."""
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].rstrip() != _FENCE:
        raise FrontMatterError(1, "the file must start with a '---' line opening its front matter")
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in (_FENCE, "...")), None)
    if end is None:
        raise FrontMatterError(len(lines), "the front matter is not closed by a '---' line")
    fields = _parse_fields(lines[1:end], first_line=2)
    body = "\n".join(lines[end + 1 :]).strip("\n")
    return Document(fields, body)


def _parse_fields(lines: list[str], first_line: int) -> dict[str, FrontValue]:
    fields: dict[str, FrontValue] = {}
    i = 0
    while i < len(lines):
        number = first_line + i
        line = lines[i]
        if _skippable(line):
            i += 1
            continue
        if line[:1].isspace():
            raise FrontMatterError(number, "unexpected indentation (nested values are not supported)")
        match = _KEY.match(line.rstrip())
        if match is None:
            raise FrontMatterError(number, f"expected 'key: value', got {line.strip()!r}")
        key, raw = match.group(1), (match.group(2) or "").strip()
        if key in fields:
            raise FrontMatterError(number, f"the key {key!r} appears twice")
        block = _indented_block(lines, i + 1)
        if raw in ("", "|", ">", "|-", ">-"):
            fields[key] = _block_value(raw, block, number + 1)
            i += 1 + len(block)
            continue
        if any(not _skippable(b) for b in block):
            raise FrontMatterError(number + 1, f"unexpected indented lines after {key!r}")
        fields[key] = _inline_value(raw, number)
        i += 1 + len(block)
    return fields


def _skippable(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _indented_block(lines: list[str], start: int) -> list[str]:
    """The indented (or blank) lines from `start` on, without trailing blank lines."""
    end = start
    while end < len(lines) and (not lines[end].strip() or lines[end][:1].isspace()):
        end += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def _block_value(marker: str, block: list[str], first_number: int) -> FrontValue:
    content = [(first_number + k, line) for k, line in enumerate(block) if not _skippable(line) or marker]
    if not marker:  # a block list, or nothing at all
        items: list[str] = []
        for number, line in content:
            stripped = line.strip()
            if not stripped.startswith("- ") and stripped != "-":
                raise FrontMatterError(number, f"expected a list item '- value', got {stripped!r}")
            items.append(_scalar(stripped[1:].strip(), number))
        return items if content else ""
    texts = [line.strip() for _, line in content]
    if marker.startswith("|"):
        return "\n".join(texts)
    return " ".join(t for t in texts if t)


def _inline_value(raw: str, number: int) -> FrontValue:
    if raw.startswith("["):
        if not raw.endswith("]"):
            raise FrontMatterError(number, "a list opened with '[' must close with ']' on the same line")
        inner = raw[1:-1].strip()
        return [_scalar(part.strip(), number) for part in _split_flow(inner, number)] if inner else []
    if raw.startswith(("{", "&", "*", "!")):
        raise FrontMatterError(number, f"unsupported value {raw!r} (maps, anchors and tags are not supported)")
    return _scalar(raw, number)


def _split_flow(inner: str, number: int) -> list[str]:
    """Split a flow list on commas outside quotes."""
    parts: list[str] = []
    current: list[str] = []
    quote: str | None = None
    for ch in inner:
        if quote is not None:
            current.append(ch)
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
            current.append(ch)
        elif ch == ",":
            parts.append("".join(current))
            current = []
        elif ch in "[]{}":
            raise FrontMatterError(number, "nested lists and maps are not supported")
        else:
            current.append(ch)
    if quote is not None:
        raise FrontMatterError(number, "an unterminated quoted string")
    parts.append("".join(current))
    if any(not p.strip() for p in parts):
        raise FrontMatterError(number, "an empty item in a list")
    return parts


def _scalar(raw: str, number: int) -> str:
    if raw.startswith('"'):
        return _double_quoted(raw, number)
    if raw.startswith("'"):
        if len(raw) < 2 or not raw.endswith("'"):
            raise FrontMatterError(number, "an unterminated quoted string")
        inner = raw[1:-1]
        if "'" in inner.replace("''", ""):
            raise FrontMatterError(number, "a stray quote inside a single-quoted string")
        return inner.replace("''", "'")
    comment = re.search(r"\s#", raw)
    return (raw[: comment.start()] if comment else raw).strip()


def _double_quoted(raw: str, number: int) -> str:
    out: list[str] = []
    i = 1
    while i < len(raw):
        ch = raw[i]
        if ch == "\\":
            if i + 1 >= len(raw) or raw[i + 1] not in _DOUBLE_ESCAPES:
                raise FrontMatterError(number, f"an unsupported escape in {raw!r}")
            out.append(_DOUBLE_ESCAPES[raw[i + 1]])
            i += 2
            continue
        if ch == '"':
            if raw[i + 1 :].strip():
                raise FrontMatterError(number, f"text after the closing quote in {raw!r}")
            return "".join(out)
        out.append(ch)
        i += 1
    raise FrontMatterError(number, "an unterminated quoted string")
