"""`handrail demo --serve`: the scripted model an editor runs the demo with ("Try without a key" in VS Code)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from urllib.parse import urlsplit

from anthropic import AsyncAnthropic

from handrail.demo.run import PROMPT


async def test_serve_prints_the_sample_and_its_local_model_and_cleans_up_when_input_closes() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "handrail",
        "demo",
        "--serve",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stdin is not None
    line = await asyncio.wait_for(proc.stdout.readline(), 60)
    facts = json.loads(line)
    workspace = Path(facts["workspace"])
    try:
        assert set(facts) == {"workspace", "baseUrl", "prompt"}
        assert facts["prompt"] == PROMPT
        assert urlsplit(facts["baseUrl"]).hostname == "127.0.0.1", "the model listens on this machine only"
        assert (workspace / "calculator.py").read_text().count("len(values) - 1") == 1, "a fresh copy with its bug"
        # the model answers the real SDK, as the editor's server will ask it
        client = AsyncAnthropic(base_url=facts["baseUrl"], api_key="demo-key", max_retries=0)
        async with client.messages.stream(
            model="claude-sonnet-4-6", max_tokens=1024, messages=[{"role": "user", "content": PROMPT}]
        ) as stream:
            message = await stream.get_final_message()
        assert any(block.type == "tool_use" for block in message.content), message.content
    finally:
        proc.stdin.close()
        assert await asyncio.wait_for(proc.wait(), 60) == 0
    assert not await asyncio.to_thread(workspace.exists), "the copy is removed when the editor closes its input"
