"""The wire contract: names and models agree, the committed schema and Lua table are current, the README
names every part of it, and a command's malformed arguments are answered InvalidParams."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from handrail.lsp.commands import COMMANDS, command_params
from handrail.wire import names
from handrail.wire.models import (
    CHAT_EVENT_MODELS,
    COMMAND_MODELS,
    METHOD_MODELS,
    AskParams,
    CancelParams,
    HandrailCapabilities,
    PermissionsParams,
    SetModeParams,
)
from handrail.wire.schema import GENERATED, LUA_PATH, SCHEMA_PATH, lua_text, wire_schema

ROOT = Path(__file__).resolve().parents[2]


def test_every_name_has_its_models_and_a_handler() -> None:
    assert list(COMMAND_MODELS) == list(names.COMMANDS) == list(COMMANDS)
    assert list(METHOD_MODELS) == list(names.METHODS)
    assert list(CHAT_EVENT_MODELS) == list(names.CHAT_EVENT_KINDS)
    for kind, model in CHAT_EVENT_MODELS.items():
        assert typing.get_args(model.model_fields["kind"].annotation) == (kind,)
    declared = [field.alias or name for name, field in HandrailCapabilities.model_fields.items()]
    assert declared == list(names.CAPABILITIES)


@pytest.mark.parametrize("path", list(GENERATED), ids=str)
def test_the_committed_files_are_generated_from_the_contract(path: Path) -> None:
    committed = (ROOT / path).read_text(encoding="utf-8")
    assert committed == GENERATED[path](), f"{path} is stale: run `python -m handrail.wire.schema`"


def test_the_schema_names_every_part_of_the_contract() -> None:
    schema = json.loads((ROOT / SCHEMA_PATH).read_text(encoding="utf-8"))
    assert schema == wire_schema()
    assert list(schema["commands"]) == list(names.COMMANDS)
    assert list(schema["methods"]) == list(names.METHODS)
    assert list(schema["chatEvents"]) == list(names.CHAT_EVENT_KINDS)
    assert schema["modes"] == ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"]
    ask = schema["$defs"]["AskParams"]
    assert set(ask["properties"]) == {"prompt", "sessionId"} and ask["required"] == ["prompt"]
    for ref in re.findall(r'"\$ref": "#/\$defs/([^"]+)"', json.dumps(schema)):
        assert ref in schema["$defs"]


def test_the_lua_table_lists_every_command_and_mode() -> None:
    text = (ROOT / LUA_PATH).read_text(encoding="utf-8")
    assert text == lua_text()
    for command in names.COMMANDS:
        assert f'{command.removeprefix("handrail.")} = "{command}",' in text
    assert 'modes = { "default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto" },' in text


def test_the_readme_names_every_command_method_event_and_mode() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    every = (*names.COMMANDS, *names.METHODS, *names.CHAT_EVENT_KINDS, *names.MODES)
    assert [name for name in every if f"`{name}" not in readme] == []


@pytest.mark.parametrize(
    ("model", "args", "problem"),
    [
        (AskParams, [{"prompt": 7}], "prompt: Input should be a valid string (got 7)"),
        (AskParams, [{"prompt": ""}], "prompt: String should have at least 1 character"),
        (AskParams, [], 'one argument object, as arguments [{"prompt": …, "sessionId": … (optional)}]; it was '
         "called with none"),
        (AskParams, [{"prompt": "a"}, {"prompt": "b"}], "it was called with 2"),
        (CancelParams, [{}], "sessionId: Field required"),
        (SetModeParams, [{"mode": "yolo"}], "mode: Input should be 'default'"),
        (SetModeParams, ["plan"], "the argument: Input should be a valid dictionary"),
    ],
)
def test_a_malformed_call_is_answered_invalid_params(model: type[AskParams], args: list[object], problem: str) -> None:
    with pytest.raises(JsonRpcInvalidParams) as raised:
        command_params(model, "handrail.x", args)
    assert problem in str(raised.value)


def test_a_call_with_optional_fields_only_may_name_nothing() -> None:
    assert command_params(PermissionsParams, "handrail.permissions", []) == PermissionsParams()
    assert command_params(PermissionsParams, "handrail.permissions", [[]]) == PermissionsParams()
    params = command_params(SetModeParams, "handrail.setMode", [{"mode": "plan", "sessionId": "s", "future": 1}])
    assert (params.mode, params.session_id) == ("plan", "s")
