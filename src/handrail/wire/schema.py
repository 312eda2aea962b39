"""The wire contract as data: JSON Schema for every command, method and chat event, and the Lua table of names.

`protocol/handrail.schema.json` and `nvim-client/lua/handrail/wire.lua` are generated from `handrail.wire.names`
and `handrail.wire.models` (`python -m handrail.wire.schema` writes both) and committed: a test fails when they
are stale, the VS Code extension's unit tests check `protocol.ts` against the schema, and the Neovim plugin
reads the names from the Lua table.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from handrail.wire import names
from handrail.wire.models import CHAT_EVENT_MODELS, COMMAND_MODELS, METHOD_MODELS, HandrailCapabilities

SCHEMA_PATH = Path("protocol/handrail.schema.json")
LUA_PATH = Path("nvim-client/lua/handrail/wire.lua")

Sender = Literal["client", "server"]


def _sent_by_client(method: str) -> bool:
    return names.METHODS[method][0] == "clientToServer"


def wire_schema() -> dict[str, Any]:
    """The contract as one JSON Schema document: the names, and each message's shape under `$defs`."""
    # what the client sends is read by the server (validation); what the server sends is written (serialization)
    wanted: list[tuple[type[BaseModel], JsonSchemaMode]] = [(HandrailCapabilities, "validation")]
    for params, result in COMMAND_MODELS.values():
        wanted += [(params, "validation"), (result, "serialization")]
    for method, (params, answer) in METHOD_MODELS.items():
        by_client = _sent_by_client(method)
        wanted.append((params, "validation" if by_client else "serialization"))
        if answer is not None:
            wanted.append((answer, "serialization" if by_client else "validation"))
    wanted += [(model, "serialization") for model in CHAT_EVENT_MODELS.values()]
    refs, definitions = models_json_schema(list(dict.fromkeys(wanted)), ref_template="#/$defs/{model}")

    def ref(model: type[BaseModel], mode: JsonSchemaMode) -> dict[str, Any]:
        return dict(refs[(model, mode)])

    def method_entry(method: str) -> dict[str, Any]:
        params, answer = METHOD_MODELS[method]
        direction, kind = names.METHODS[method]
        by_client = _sent_by_client(method)
        entry: dict[str, Any] = {
            "direction": direction,
            "kind": kind,
            "params": ref(params, "validation" if by_client else "serialization"),
        }
        if answer is not None:
            entry["result"] = ref(answer, "serialization" if by_client else "validation")
        return entry

    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "The handrail protocol",
        "description": "Generated from src/handrail/wire (python -m handrail.wire.schema); do not edit.",
        "commands": {
            command: {"params": ref(params, "validation"), "result": ref(result, "serialization")}
            for command, (params, result) in COMMAND_MODELS.items()
        },
        "methods": {method: method_entry(method) for method in names.METHODS},
        "chatEvents": {kind: ref(model, "serialization") for kind, model in CHAT_EVENT_MODELS.items()},
        "modes": list(names.MODES),
        "turnErrorKinds": list(names.TURN_ERROR_KINDS),
        "capabilities": {"experimental.handrail": ref(HandrailCapabilities, "validation")},
        "$defs": definitions.get("$defs", {}),
    }


def schema_text() -> str:
    """The committed schema file's text."""
    return json.dumps(wire_schema(), indent=2, sort_keys=False) + "\n"


def _lua_key(command: str) -> str:
    return command.removeprefix("handrail.")


def _lua_list(values: tuple[str, ...] | list[str]) -> str:
    return "{ " + ", ".join(json.dumps(value) for value in values) + " }"


def lua_text() -> str:
    """The committed Lua table's text: every name the Neovim plugin sends or handles."""
    lines = [
        "-- The handrail protocol's names, generated from src/handrail/wire (python -m handrail.wire.schema); do not",
        "-- edit. The shapes of the messages are protocol/handrail.schema.json.",
        "return {",
        "  -- workspace/executeCommand commands, by the name after `handrail.`",
        "  commands = {",
        *(f"    {_lua_key(command)} = {json.dumps(command)}," for command in names.COMMANDS),
        "  },",
        "  -- handrail's own methods: name, direction and kind",
        "  methods = {",
        *(
            f"    {{ name = {json.dumps(method)}, direction = {json.dumps(direction)}, kind = {json.dumps(kind)} }},"
            for method, (direction, kind) in names.METHODS.items()
        ),
        "  },",
        f"  chat_events = {_lua_list(names.CHAT_EVENT_KINDS)},",
        f"  modes = {_lua_list(names.MODES)},",
        f"  turn_error_kinds = {_lua_list(names.TURN_ERROR_KINDS)},",
        f"  capabilities = {_lua_list(names.CAPABILITIES)},",
        "}",
    ]
    return "\n".join(lines) + "\n"


GENERATED = {SCHEMA_PATH: schema_text, LUA_PATH: lua_text}


def main(argv: list[str]) -> int:
    """Write the generated files under the repository root given (default: the current directory)."""
    root = Path(argv[0]) if argv else Path.cwd()
    for path, text in GENERATED.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text(), encoding="utf-8")
        print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
