"""Elicitation forms as data: the fields of a requested schema, the answers an editor can offer for each, and
the check of a filled-in form against the schema. The editor's UI lives in the server layer.

A requested schema is MCP's restricted JSON Schema: one flat object whose properties are
strings (optionally an enum, titled with `oneOf`/`enumNames`, or with a `format`), numbers,
integers, booleans, or arrays of enum strings (a multiple choice). A client that can show
only buttons (`window/showMessageRequest`) can fill in every choice and boolean, and a free
text field only with its default; `plain_problem` says when that is not enough.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from handrail.errors import HandrailError
from handrail.tools.mcp.tools import schema_problems

FieldKind = Literal["boolean", "choice", "choices", "text", "number", "integer"]
MAX_CHOICES = 25  # more buttons than this is no question anyone can answer


class FormError(HandrailError, ValueError):
    """The requested schema is not one MCP allows (nested objects, unknown types…)."""


@dataclass(frozen=True)
class Choice:
    """One option of a choice: the value sent back, and what the user reads."""

    value: str
    label: str


@dataclass(frozen=True)
class FormField:
    """One property of the requested schema, as the user is asked it."""

    name: str
    title: str
    kind: FieldKind
    required: bool
    description: str | None = None
    choices: tuple[Choice, ...] = ()
    has_default: bool = False
    default: Any = None
    min_items: int = 0
    max_items: int | None = None

    @property
    def free_text(self) -> bool:
        """Whether the answer is typed (text or a number) rather than picked."""
        return self.kind in ("text", "number", "integer")


def _choices(spec: Mapping[str, Any]) -> tuple[Choice, ...]:
    titled = spec.get("oneOf") or spec.get("anyOf")
    if isinstance(titled, list):
        return tuple(
            Choice(str(item["const"]), str(item.get("title") or item["const"]))
            for item in titled
            if isinstance(item, Mapping) and "const" in item
        )
    values = spec.get("enum")
    if not isinstance(values, list):
        return ()
    names = spec.get("enumNames")
    labels = names if isinstance(names, list) and len(names) == len(values) else values
    return tuple(Choice(str(value), str(label)) for value, label in zip(values, labels, strict=True))


def _field(name: str, spec: Any, required: bool) -> FormField:
    if not isinstance(spec, Mapping):
        raise FormError(f"the property {name!r} is not a schema")
    kind = spec.get("type")
    title = str(spec.get("title") or name)
    description = spec.get("description") if isinstance(spec.get("description"), str) else None
    common: dict[str, Any] = {
        "name": name,
        "title": title,
        "required": required,
        "description": description,
        "has_default": "default" in spec,
        "default": spec.get("default"),
    }
    if kind == "boolean":
        return FormField(kind="boolean", **common)
    if kind in ("number", "integer"):
        return FormField(kind=kind, **common)
    if kind == "string":
        choices = _choices(spec)
        return FormField(kind="choice" if choices else "text", choices=choices, **common)
    if kind == "array":
        items = spec.get("items")
        choices = _choices(items) if isinstance(items, Mapping) else ()
        if not choices:
            raise FormError(f"the property {name!r} is a list without options")
        low, high = spec.get("minItems"), spec.get("maxItems")
        return FormField(
            kind="choices",
            choices=choices,
            min_items=low if isinstance(low, int) and low > 0 else 0,
            max_items=high if isinstance(high, int) and high > 0 else None,
            **common,
        )
    raise FormError(f"the property {name!r} has the unsupported type {kind!r}")


def form_fields(schema: Mapping[str, Any]) -> tuple[FormField, ...]:
    """The fields of a requested schema, in the order written; raises FormError for a schema MCP does not allow."""
    if schema.get("type", "object") != "object":
        raise FormError("the requested schema is not an object")
    properties = schema.get("properties") or {}
    if not isinstance(properties, Mapping):
        raise FormError("the requested schema's properties are not an object")
    required = schema.get("required") or []
    wanted = set(required) if isinstance(required, list) else set()
    return tuple(_field(str(name), spec, name in wanted) for name, spec in properties.items())


def plain_problem(fields: Sequence[FormField]) -> str | None:
    """Why a client with buttons only cannot fill in the form (None when it can)."""
    for field in fields:
        if field.free_text and field.required and not field.has_default:
            what = "a number" if field.kind != "text" else "text"
            return f"it asks for {what} to be typed in ({field.title!r}), and this editor can only offer buttons"
        if field.choices and len(field.choices) > MAX_CHOICES:
            return f"{field.title!r} has {len(field.choices)} options, too many to offer as buttons"
    return None


def answer_problems(schema: Mapping[str, Any], content: Mapping[str, Any]) -> list[str]:
    """What is wrong with a filled-in form under the requested schema (formats included); empty when valid."""
    return schema_problems(schema, content, check_formats=True)


def shown_value(value: Any) -> str:
    """A value as a button shows it."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "none"
    return str(value)
