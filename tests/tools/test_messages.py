"""The Messages API shapes are types: a misspelt key or a block of the wrong shape in the history fails mypy."""

from __future__ import annotations

import textwrap
from pathlib import Path

from mypy import api as mypy_api

from handrail.agent.agent_loop import add_user_content
from handrail.tools.execution import error_block
from handrail.tools.messages import Message, is_text, is_tool_result, is_tool_use

MISSHAPEN = """\
from handrail.agent.agent_loop import add_user_content
from handrail.agent.session import Session
from handrail.tools.execution import error_block
from handrail.tools.messages import ContentBlock, Message


def build(session: Session) -> None:
    messages: list[Message] = session.messages
    add_user_content(messages, [{"type": "text", "text": "well formed"}])
    messages.append({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]})
    add_user_content(messages, [error_block("t1", "well formed")])
    add_user_content(messages, [{"type": "text", "txt": "a misspelt key"}])
    messages.append({"role": "system", "content": []})
    result: ContentBlock = {"type": "tool_result", "tool_use_idd": "t1", "content": "a misspelt key"}
    call: ContentBlock = {"type": "tool_use", "id": "t2", "name": "Read"}
    messages[0]["content"] = "the history keeps lists of blocks"
"""


def test_a_misshapen_message_or_block_fails_type_checking(tmp_path: Path) -> None:
    module = tmp_path / "history.py"
    module.write_text(textwrap.dedent(MISSHAPEN))
    out, _, status = mypy_api.run(
        ["--strict", "--follow-imports=silent", "--cache-dir", str(tmp_path / "cache"), str(module)]
    )
    lines = [line for line in out.splitlines() if ": error: " in line]
    errors = sorted({int(line.split(": error: ")[0].rsplit(":", 1)[1]) for line in lines})
    # the misspelt text key, the role, the misspelt tool_use_id, the tool_use without input, the string content
    assert status == 1 and errors == [12, 13, 14, 15, 16], out


def test_the_narrowing_helpers_read_a_block_s_type_like_get() -> None:
    blocks = [{"type": "text", "text": "hi"}, {"type": "tool_use", "id": "t1", "name": "Read", "input": {}},
              error_block("t1", "no"), {"text": "a block without a type"}]
    assert [is_text(b) for b in blocks] == [True, False, False, False]
    assert [is_tool_use(b) for b in blocks] == [False, True, False, False]
    assert [is_tool_result(b) for b in blocks] == [False, False, True, False]


def test_user_content_merges_into_a_trailing_user_message() -> None:
    messages: list[Message] = [{"role": "user", "content": [{"type": "text", "text": "first"}]}]
    add_user_content(messages, [error_block("t1", "no")])
    assert messages == [{"role": "user", "content": [
        {"type": "text", "text": "first"},
        {"type": "tool_result", "tool_use_id": "t1", "content": "no", "is_error": True},
    ]}]
