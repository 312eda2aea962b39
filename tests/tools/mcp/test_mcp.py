"""MCP without servers: names, definitions and their expansion, result mapping, schema checks, trust, the pool."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from handrail.permissions.context import PermissionContext
from handrail.permissions.mcp_approval import approval_key, server_trust, with_server_approved
from handrail.permissions.rules import PermissionRule, parse_rule, rule_covers_tool
from handrail.permissions.settings import parse_settings
from handrail.permissions.sources import load_sources
from handrail.permissions.trust import Approvals
from handrail.tools.mcp.config import MissingVariableError, collect_servers, expand, parse_server
from handrail.tools.mcp.model import McpCallOutcome, McpResource, McpToolSpec, ProgressCallback
from handrail.tools.mcp.names import mcp_tool_name, normalize_name
from handrail.tools.mcp.results import content_block, result_block
from handrail.tools.mcp.tools import callable_directly, mcp_tool, schema_problems
from handrail.tools.registry import assemble_tool_pool
from tests.permissions.support import trusting

API_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="


@pytest.mark.parametrize(
    ("server", "tool", "expected"),
    [
        ("time", "get_current_time", "mcp__time__get_current_time"),
        ("my server", "do.it", "mcp__my_server__do_it"),
        ("a__b", "t", "mcp__a_b__t"),  # `__` separates server from tool, so never inside a server name
        ("ü", "ß", "mcp______"),
    ],
)
def test_tool_names_are_normalized(server: str, tool: str, expected: str) -> None:
    assert mcp_tool_name(server, tool) == expected
    assert API_NAME.match(mcp_tool_name(server, tool))


def test_long_names_keep_their_start_and_stay_distinct() -> None:
    one, two = mcp_tool_name("s", "x" * 80 + "1"), mcp_tool_name("s", "x" * 80 + "2")
    assert len(one) == 64 and API_NAME.match(one) and one.startswith("mcp__s__xxx") and one != two
    assert normalize_name("") == "_"


@pytest.mark.parametrize(
    ("rule", "tool", "covered"),
    [
        ("mcp__time", "mcp__time__get_current_time", True),
        ("mcp__time__*", "mcp__time__convert_time", True),
        ("mcp__time__convert_time", "mcp__time__convert_time", True),
        ("mcp__time__convert_time", "mcp__time__get_current_time", False),
        ("mcp__time", "mcp__timer__x", False),
        ("mcp__time", "Bash", False),
    ],
)
def test_rules_cover_mcp_tools_at_server_and_tool_level(rule: str, tool: str, covered: bool) -> None:
    assert not isinstance(parse_rule(rule), Exception)
    assert rule_covers_tool(rule, tool) is covered


def test_expansion_with_defaults_and_missing_variables() -> None:
    env = {"HOME": "/home/u", "EMPTY": ""}
    assert expand("${HOME}/bin:${NOPE:-/usr/bin}", env) == "/home/u/bin:/usr/bin"
    assert expand("${EMPTY:-fallback}", env) == "fallback"
    assert expand("$HOME ${ not a var", env) == "$HOME ${ not a var"
    with pytest.raises(MissingVariableError, match="NOPE"):
        expand("${NOPE}", env)


def test_parsing_stdio_and_http_definitions() -> None:
    env = {"TOKEN": "s3cret"}
    stdio = parse_server("t", {"command": "uvx", "args": ["srv", "${X:-1}"], "env": {"K": "${TOKEN}"}}, "user", env)
    assert (stdio.transport, stdio.command, stdio.args) == ("stdio", "uvx", ("srv", "1"))
    assert dict(stdio.env) == {"K": "s3cret"}
    # described as written: what runs, and which of the user's variables it is sent (never their values)
    assert stdio.describe() == (
        "runs uvx srv '${X:-1}' with env K=${TOKEN} "
        "and it is sent your environment's ${X} into args[1], ${TOKEN} into env.K"
    )
    http = parse_server("w", {"url": "https://x/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}, "user", env)
    assert http.transport == "http" and http.headers["Authorization"] == "Bearer s3cret" and http.error is None
    assert http.describe() == (
        "connects to https://x/mcp with headers Authorization: Bearer ${TOKEN} "
        "and it is sent your environment's ${TOKEN} into headers.Authorization"
    )


@pytest.mark.parametrize(
    ("definition", "problem"),
    [
        ({"args": ["x"]}, "needs a 'command'"),
        ({"type": "websocket", "url": "ws://x"}, "unsupported type"),
        ({"type": "sse"}, "an sse server needs a 'url'"),
        ({"type": "http", "url": "ftp://x"}, "http://"),
        ({"command": "x", "args": "not a list"}, "list of strings"),
        ({"command": "x", "env": {"A": 1}}, "object of strings"),
        ({"command": "${MISSING}"}, "MISSING is not set"),
        ("just text", "must be an object"),
    ],
)
def test_unusable_definitions_keep_their_error(definition: Any, problem: str) -> None:
    config = parse_server("s", definition, "project", {})
    assert config.error is not None and problem in config.error


def test_digest_covers_the_definition_as_written() -> None:
    one = parse_server("s", {"command": "a", "args": ["1"]}, "mcp.json", {})
    same = parse_server("s", {"args": ["1"], "command": "a"}, "mcp.json", {"UNUSED": "x"})
    other = parse_server("s", {"command": "a", "args": ["2"]}, "mcp.json", {})
    assert one.digest == same.digest != other.digest


def test_sources_and_precedence(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / ".handrail").mkdir(parents=True)
    user = tmp_path / "user.json"
    user.write_text(json.dumps({"mcpServers": {"shared": {"command": "user"}, "mine": {"command": "mine"}}}))
    (root / ".handrail" / "settings.json").write_text(json.dumps({"mcpServers": {"proj": {"command": "p"}}}))
    (root / ".handrail" / "settings.local.json").write_text(json.dumps({"mcpServers": {"shared": {"command": "l"}}}))
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"proj": {"command": "j"}, "team": {"command": "t"}}}))
    loaded = load_sources([root], policy_path=None, user_path=user)
    servers = {c.name: c for c in collect_servers(loaded, [root], {})}
    assert {n: (c.source, c.command) for n, c in servers.items()} == {
        "shared": ("local", "l"),
        "proj": ("project", "p"),
        "team": ("mcp.json", "t"),
        "mine": ("user", "mine"),
    }
    assert servers["team"].root == root and servers["team"].project_supplied and not servers["mine"].project_supplied


def test_a_broken_mcp_json_is_reported_not_fatal(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text("{nope")
    loaded = load_sources([tmp_path], policy_path=None, user_path=tmp_path / "missing.json")
    (broken,) = collect_servers(loaded, [tmp_path], {})
    assert broken.error is not None and "not usable" in broken.error


def test_settings_files_keep_mcp_servers_and_report_bad_ones() -> None:
    settings, problems = parse_settings({"mcpServers": {"a": {"command": "x"}}})
    assert settings.mcp_servers == {"a": {"command": "x"}} and problems == ()
    settings, problems = parse_settings({"mcpServers": ["x"]})
    assert settings.mcp_servers is None and "mcpServers" in problems[0].message


def test_project_servers_need_trust_then_approval_of_this_definition(tmp_path: Path) -> None:
    file = tmp_path / ".mcp.json"
    kwargs: dict[str, Any] = {"name": "s", "file": file, "root": tmp_path, "project_supplied": True}
    untrusted = Approvals()
    trusted = trusting(tmp_path)
    assert server_trust(digest="d1", approvals=untrusted, **kwargs) == "untrusted"
    assert server_trust(digest="d1", approvals=trusted, **kwargs) == "unapproved"
    approved = with_server_approved(trusted, name="s", file=file, digest="d1")
    assert server_trust(digest="d1", approvals=approved, **kwargs) == "approved"
    assert server_trust(digest="d2", approvals=approved, **kwargs) == "changed"
    assert server_trust(digest="d1", approvals=approved.with_client_trust(tmp_path, False), **kwargs) == "untrusted"
    key = approval_key(file, "../settings.json")  # a name can never point at another file's approval
    assert key.parent == tmp_path and Path(os.path.realpath(key)) == key.resolve() == key
    user = {**kwargs, "project_supplied": False, "root": None}
    assert server_trust(digest="d1", approvals=untrusted, **user) == "trusted"


def test_content_for_the_users_audience_only_is_left_out() -> None:
    outcome = McpCallOutcome(
        content=(
            {"type": "text", "text": "secret for you", "annotations": {"audience": ["user"]}},
            {"type": "text", "text": "for both", "annotations": {"audience": ["user", "assistant"]}},
            {"type": "text", "text": "plain"},
        )
    )
    text = result_block(outcome, "t1")["content"]
    assert "secret for you" not in text and "for both" in text and "plain" in text
    assert "1 content item(s) meant for the user only" in text


def test_a_tool_that_requires_an_mcp_task_is_not_offered() -> None:
    assert callable_directly(McpToolSpec("a")) and callable_directly(McpToolSpec("b", task_support="optional"))
    assert not callable_directly(McpToolSpec("c", task_support="required"))


def test_result_mapping() -> None:
    assert content_block({"type": "text", "text": "hi"}) == {"type": "text", "text": "hi"}
    image = content_block({"type": "image", "data": PNG, "mimeType": "image/png"})
    assert image == {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
    assert content_block({"type": "image", "data": PNG, "mimeType": "image/tiff"})["type"] == "text"
    embedded = content_block({"type": "resource", "resource": {"uri": "file:///a", "text": "body"}})
    assert embedded == {"type": "text", "text": "[Resource: file:///a]\nbody"}
    zipped = {"uri": "x:b", "mimeType": "application/zip", "blob": "AAAA"}
    blob = content_block({"type": "resource", "resource": zipped})
    assert "3 bytes" in blob["text"]
    link = content_block({"type": "resource_link", "uri": "x:y", "name": "y"})
    assert "x:y" in link["text"]
    assert "cannot hear" in content_block({"type": "audio", "data": "", "mimeType": "audio/wav"})["text"]


def test_result_blocks_pass_is_error_through_and_join_text() -> None:
    outcome = McpCallOutcome(({"type": "text", "text": "a"}, {"type": "text", "text": "b"}), is_error=True)
    expected = {"type": "tool_result", "tool_use_id": "t1", "content": "a\n\nb", "is_error": True}
    assert result_block(outcome, "t1") == expected
    mixed = result_block(McpCallOutcome(({"type": "image", "data": PNG, "mimeType": "image/png"},)), "t2")
    assert isinstance(mixed["content"], list) and "is_error" not in mixed
    structured = result_block(McpCallOutcome((), structured={"k": 1}), "t3")
    assert structured["content"] == '{"k": 1}'


def test_schema_problems_are_readable() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert schema_problems(schema, {"n": 1}) == []
    assert any("'n' is a required property" in p for p in schema_problems(schema, {}))
    assert any(p.startswith("- n:") for p in schema_problems(schema, {"n": "x"}))
    assert "not valid JSON Schema" in schema_problems({"type": "nonsense"}, {})[0]


class _NoConnection:
    supports_resources = False

    async def list_tools(self) -> tuple[McpToolSpec, ...]:
        return ()

    async def call_tool(self, name: str, arguments: Any, on_progress: ProgressCallback | None) -> McpCallOutcome:
        raise AssertionError("not called")

    async def list_resources(self) -> tuple[McpResource, ...]:
        return ()

    async def read_resource(self, uri: str) -> tuple[dict[str, Any], ...]:
        return ()


def test_mcp_tools_are_cautious_and_carry_their_origin() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    spec = McpToolSpec(name="search.docs", description="Search", input_schema=schema)
    tool = mcp_tool("docs", spec, _NoConnection())
    assert tool.name == "mcp__docs__search_docs"
    assert tool.search_hint == "docs search.docs"  # the server's name and the tool's own, for ToolSearch
    value = tool.input_model.model_validate({"q": "x"})
    assert not tool.is_read_only(value) and not tool.is_concurrency_safe(value)
    assert tool.definition()["input_schema"] == schema and tool.should_defer and not tool.always_load
    pinned = mcp_tool("docs", McpToolSpec(name="p", meta={"anthropic/alwaysLoad": True}), _NoConnection())
    assert pinned.always_load


def test_pool_puts_mcp_tools_after_builtins_and_defers_them_when_large() -> None:
    tools = [mcp_tool("big", McpToolSpec(name=f"t{i:02d}"), _NoConnection()) for i in range(40)]
    pinned = mcp_tool("big", McpToolSpec(name="pinned", meta={"anthropic/alwaysLoad": True}), _NoConnection())
    deny = parse_rule("mcp__big__t00")
    assert isinstance(deny, PermissionRule)
    context = PermissionContext().with_rule("deny", deny)
    pool = assemble_tool_pool(context, [*tools, pinned])
    names = [t.name for t in pool.tools]
    assert "mcp__big__t00" not in names and names.index("mcp__big__t01") > names.index("Write")
    deferred = {t.name for t in pool.deferred()}
    assert "mcp__big__t01" in deferred and "mcp__big__pinned" not in deferred
    assert pool.find("ToolSearch") is not None
