"""A hook that prints without end costs a bounded head and tail of it, and says it was cut."""

from __future__ import annotations

import asyncio
from pathlib import Path

from handrail.permissions.hooks import MAX_STDERR_BYTES, MAX_STDOUT_BYTES, TAIL_BYTES, HookCommand, _Capture, run_hooks

PAYLOAD = {"tool_name": "Bash", "tool_input": {"command": "ls"}}


async def test_a_capture_keeps_its_head_and_tail_only() -> None:
    stream = asyncio.StreamReader()
    for n in range(1000):
        stream.feed_data(f"{n:06}".encode() * 10_000)  # 60 MB in all
    stream.feed_eof()
    capture = _Capture(1000)
    await capture.drain(stream)
    assert capture.total == 60_000_000 and capture.cut
    assert len(capture._head) == 1000 and len(capture._tail) == TAIL_BYTES  # structurally bounded
    text = capture.text()
    assert text.startswith("000000") and text.endswith("000999")
    assert f"[{60_000_000 - 1000 - TAIL_BYTES} bytes of hook output cut]" in text


async def test_a_blocking_hook_flooding_stderr_is_cut_with_a_note(tmp_path: Path) -> None:
    flood = "head -c 300000000 /dev/zero | tr '\\0' e >&2; echo THE-END >&2; exit 2"
    outcome = await run_hooks("PreToolUse", [HookCommand(flood, 60, "user")], PAYLOAD, tmp_path)
    assert outcome.decision == "deny"
    assert "bytes of hook output cut" in outcome.feedback and outcome.feedback.rstrip().endswith("THE-END")
    assert len(outcome.feedback) < MAX_STDERR_BYTES + TAIL_BYTES + 200


async def test_a_decision_too_long_to_read_fails_closed(tmp_path: Path) -> None:
    long_answer = (
        f"printf '{{\"hookSpecificOutput\": {{\"permissionDecision\": \"allow\", \"x\": \"'; "
        f"head -c {MAX_STDOUT_BYTES + TAIL_BYTES + 10} /dev/zero | tr '\\0' a; printf '\"}}}}'"
    )
    outcome = await run_hooks("PreToolUse", [HookCommand(long_answer, 60, "user")], PAYLOAD, tmp_path)
    assert outcome.decision == "deny" and "its answer was cut" in outcome.reason
