"""The tool protocol's fail-closed defaults, typed definitions, and the built-in tools' definitions."""

from __future__ import annotations

import textwrap
from pathlib import Path

from mypy import api as mypy_api
from pydantic import BaseModel, Field

from handrail.tools.builtin import BASH, EDIT, GLOB, GREP, READ, WRITE, builtin_tools
from handrail.tools.context import ToolUseContext
from handrail.tools.protocol import ToolResult, build_tool


class Echo(BaseModel):
    text: str = Field(description="what to echo")


async def _echo(value: Echo, _: ToolUseContext) -> ToolResult:
    return ToolResult(value.text)


async def test_minimal_tool_is_fail_closed(ctx: ToolUseContext) -> None:
    tool = build_tool(name="Echo", input_model=Echo, description="echo", call=_echo)
    value = Echo(text="hi")
    assert not tool.is_read_only(value)
    assert not tool.is_concurrency_safe(value)
    assert tool.interrupt_behavior == "block"
    assert (await tool.check_permissions(value, ctx)).behavior == "passthrough"
    assert (await tool.validate_input(value, ctx)).ok
    assert tool.paths(value) == ()
    assert tool.rule_content(value) is None
    assert tool.summary(value) == ""
    assert tool.max_result_size_chars == 50_000 and not tool.should_defer and tool.is_enabled()
    assert (await tool.call(value, ctx)).data == "hi"


MISTYPED = """\
    from pydantic import BaseModel

    from handrail.tools.context import ToolUseContext
    from handrail.tools.protocol import ToolResult, build_tool


    class Path(BaseModel):
        file_path: str


    class Query(BaseModel):
        query: str


    async def read(value: Path, ctx: ToolUseContext) -> ToolResult:
        return ToolResult(value.file_path)


    GOOD = build_tool(name="Good", input_model=Path, description="d", call=read, summary=lambda v: v.file_path)
    WRONG_CALL = build_tool(name="Call", input_model=Query, description="d", call=read)
    WRONG_HOOK = build_tool(name="Hook", input_model=Path, description="d", call=read, summary=lambda v: v.query)
    WRONG_FIELD = build_tool(name="Field", input_model=Path, description="d", call=read, is_destructive=True)
"""


def test_a_mistyped_tool_definition_fails_type_checking(tmp_path: Path) -> None:
    module = tmp_path / "definitions.py"
    module.write_text(textwrap.dedent(MISTYPED))
    out, _, status = mypy_api.run(
        ["--strict", "--follow-imports=silent", "--cache-dir", str(tmp_path / "cache"), str(module)]
    )
    errors = [line.split(": error: ")[0].rsplit(":", 1)[1] for line in out.splitlines() if ": error: " in line]
    assert status == 1 and errors == ["20", "21", "22"], out  # the call's input, the hook's, an unknown field


def test_builtin_tools_sorted_by_name() -> None:
    tools = builtin_tools()
    names = [tool.name for tool in tools]
    assert names == sorted(names)
    for name in ("Bash", "BashOutput", "Edit", "Glob", "Grep", "KillShell", "MultiEdit", "NotebookEdit", "Read"):
        assert name in names
    for name in ("AskUserQuestion", "Diagnostics", "EnterPlanMode", "ExitPlanMode", "TodoWrite", "WebFetch", "Write"):
        assert name in names
    assert all(tool.prompt and tool.search_hint for tool in tools)


def test_grep_schema_uses_aliases() -> None:
    schema = GREP.definition()["input_schema"]
    props = schema["properties"]
    for flag in ("-i", "-n", "-A", "-B", "-C"):
        assert flag in props, flag
        assert props[flag]["description"]
    assert "case_insensitive" not in props
    assert schema["required"] == ["pattern"]
    assert schema["additionalProperties"] is False
    assert "title" not in schema


def test_grep_input_accepts_aliases_and_rejects_unknown_fields() -> None:
    value = GREP.input_model.model_validate({"pattern": "x", "-i": True, "-C": 2})
    assert value.case_insensitive is True
    assert value.context == 2
    try:
        GREP.input_model.model_validate({"pattern": "x", "bogus": 1})
    except ValueError:
        pass
    else:
        raise AssertionError("unknown fields must be refused")


def test_every_field_is_described() -> None:
    for tool in builtin_tools():
        for name, prop in tool.definition()["input_schema"]["properties"].items():
            assert prop.get("description"), f"{tool.name}.{name}"


def test_flags_paths_and_summaries() -> None:
    read = READ.input_model(file_path="/w/a.py")
    assert READ.is_read_only(read) and READ.is_concurrency_safe(read)
    assert READ.paths(read) == (Path("/w/a.py"),)
    assert READ.rule_content(read) == "/w/a.py"
    assert READ.summary(read) == "Read /w/a.py"

    write = WRITE.input_model(file_path="/w/a.py", content="x")
    assert not WRITE.is_read_only(write)
    assert WRITE.rule_content(write) == "/w/a.py"

    edit = EDIT.input_model(file_path="/w/a.py", old_string="a", new_string="b")
    assert not EDIT.is_read_only(edit) and not EDIT.is_concurrency_safe(edit)
    assert EDIT.summary(edit) == "Edit /w/a.py"

    glob = GLOB.input_model(pattern="**/*.py")
    assert GLOB.is_read_only(glob) and GLOB.is_concurrency_safe(glob)
    assert GLOB.paths(glob) == ()
    assert GLOB.paths(GLOB.input_model(pattern="/w/src/**/*.py")) == (Path("/w/src"),)

    bash = BASH.input_model(command="npm test\necho done")
    assert not BASH.is_read_only(bash) and not BASH.is_concurrency_safe(bash)
    assert BASH.rule_content(bash) == "npm test\necho done"
    assert BASH.summary(bash) == "$ npm test"
    assert BASH.summary(BASH.input_model(command="ls", description="Lists files")) == "Lists files"
