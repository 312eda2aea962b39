"""Hypothesis strategies drawn from a JSON schema: the subset pydantic writes for tool inputs.

(hypothesis-jsonschema does not work with current hypothesis releases, so this
small converter covers what the tools' schemas use: objects, strings, numbers,
booleans, null, arrays, enums, anyOf and $ref.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

# bounded sizes keep each example quick
_MAX_TEXT = 60
_MAX_ITEMS = 4


def json_values() -> st.SearchStrategy[Any]:
    """Any JSON value, nested a little."""
    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=_MAX_TEXT)
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=_MAX_ITEMS) | st.dictionaries(st.text(max_size=12), inner,
                                                                            max_size=_MAX_ITEMS),
        max_leaves=12,
    )


def from_schema(
    schema: Mapping[str, Any],
    overrides: Mapping[str, st.SearchStrategy[Any]] | None = None,
    defs: Mapping[str, Any] | None = None,
) -> st.SearchStrategy[Any]:
    """Values valid for `schema`; a property named in `overrides` draws from its strategy instead."""
    overrides = overrides or {}
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return from_schema(defs[schema["$ref"].rsplit("/", 1)[-1]], overrides, defs)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(list(schema["enum"]))
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([from_schema(s, overrides, defs) for s in schema[key]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([from_schema({**schema, "type": k}, overrides, defs) for k in kind])
    if kind == "object":
        return _object(schema, overrides, defs)
    if kind == "array":
        items = from_schema(schema.get("items", {}), overrides, defs)
        return st.lists(items, min_size=schema.get("minItems", 0),
                        max_size=max(schema.get("minItems", 0), min(schema.get("maxItems", _MAX_ITEMS), _MAX_ITEMS)))
    if kind == "string":
        return st.text(min_size=schema.get("minLength", 0), max_size=max(schema.get("minLength", 0), _MAX_TEXT))
    if kind == "integer":
        return st.integers(min_value=schema.get("minimum"), max_value=schema.get("maximum"))
    if kind == "number":
        return st.floats(min_value=schema.get("minimum"), max_value=schema.get("maximum"), allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    return json_values()


def _object(
    schema: Mapping[str, Any], overrides: Mapping[str, st.SearchStrategy[Any]], defs: Mapping[str, Any]
) -> st.SearchStrategy[dict[str, Any]]:
    properties: Mapping[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", ()))

    def field(name: str) -> st.SearchStrategy[Any]:
        return overrides[name] if name in overrides else from_schema(properties[name], overrides, defs)

    return st.fixed_dictionaries(
        {name: field(name) for name in properties if name in required},
        optional={name: field(name) for name in properties if name not in required},
    )
