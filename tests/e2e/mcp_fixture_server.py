"""An MCP server for the tests, written with the SDK: slow, failing, progressing, crashing and image tools,
tools that add or remove tools at runtime (announcing it with notifications/tools/list_changed), content
and a resource for the user's audience only, and a tool that can only run as an MCP task.

    python mcp_fixture_server.py [--http PORT] [--many N] [--fail-start] [--log FILE] [--wait-for FILE]
                                 [--handshake]

`--log FILE` appends one line per event the tests wait for (started, cancelled);
`--wait-for FILE` makes start-up slow: the server answers nothing until FILE exists;
`--handshake` serves stdio in the 2025 handshake era only (`initialize`, no `server/discover`),
so clients fall back to it and get change notifications unasked instead of through `subscriptions/listen`.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import sys
import time
from pathlib import Path

import anyio
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from mcp_types import Annotations, TextContent, Tool, ToolExecution

USER_ONLY = Annotations(audience=["user"])
# a 1x1 PNG
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


class FixtureServer(MCPServer):
    """The SDK's server, with one tool that can only run as an MCP task (the decorator cannot say so)."""

    async def list_tools(self) -> list[Tool]:
        tools = await super().list_tools()
        return [
            t.model_copy(update={"execution": ToolExecution(task_support="required")}) if t.name == "long_job" else t
            for t in tools
        ]


def build(many: int, log: Path | None) -> MCPServer:
    server = FixtureServer("fixture")

    def note(line: str) -> None:
        if log is not None:
            with log.open("a") as handle:
                handle.write(line + "\n")

    @server.tool(description="Echo the text back")
    def echo(text: str) -> str:
        return f"echo: {text}"

    @server.tool(description="Report progress in steps, then finish")
    async def progress(steps: int, ctx: Context) -> str:
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step} of {steps}")
        return f"finished {steps} steps"

    @server.tool(description="Wait until cancelled (reports progress once first)")
    async def wait_forever(ctx: Context) -> str:
        await ctx.report_progress(0, None, "waiting")
        try:
            await asyncio.sleep(3600)
        except BaseException:
            note("cancelled")
            raise
        return "never"

    @server.tool(description="Always fails")
    def fail(reason: str) -> str:
        raise ToolError(f"failed on purpose: {reason}")

    @server.tool(description="Return a tiny image")
    def pixel() -> Image:
        return Image(data=PIXEL, format="png")

    @server.tool(description="Return a lot of text")
    def big(size: int) -> str:
        return "x" * size

    @server.tool(description="Crash the server process")
    def crash() -> str:
        print("fixture: crashing on request", file=sys.stderr, flush=True)
        os._exit(3)

    @server.tool(description="Always loaded", meta={"anthropic/alwaysLoad": True})
    def pinned() -> str:
        return "pinned"

    async def tools_changed(ctx: Context) -> None:
        await ctx.notify_tools_changed()  # 2026-07-28: to the client's subscriptions/listen stream
        await ctx.session.send_tool_list_changed()  # handshake era: sent unasked (dropped on modern connections)

    @server.tool(description="Register a new tool NAME that answers TEXT")
    async def add_tool(name: str, text: str, ctx: Context) -> str:
        def added() -> str:
            return text

        server.add_tool(added, name=name, description=f"Added at runtime; answers {text!r}")
        await tools_changed(ctx)
        return f"added {name}"

    @server.tool(description="Unregister the tool NAME")
    async def remove_tool(name: str, ctx: Context) -> str:
        server.remove_tool(name)
        await tools_changed(ctx)
        return f"removed {name}"

    @server.resource("fixture://readme", name="readme", mime_type="text/plain")
    def readme() -> str:
        return "the fixture's readme"

    @server.resource("fixture://private", name="private", mime_type="text/plain", annotations=USER_ONLY)
    def private() -> str:
        return "for the user's eyes only"

    @server.tool(description="Answer with one note for the user and one for the model")
    def notes() -> list[TextContent]:
        return [
            TextContent(type="text", text="a note for the user only", annotations=USER_ONLY),
            TextContent(type="text", text="a note for the model"),
        ]

    @server.tool(description="A job that only runs as an MCP task")
    def long_job() -> str:
        return "ran without a task"

    for index in range(many):

        def extra(n: int = index) -> str:
            return f"extra {n}"

        server.add_tool(extra, name=f"extra_{index:02d}", description=f"Extra tool number {index}")
    return server


async def serve_handshake_only(server: MCPServer) -> None:
    """Stdio in the handshake era only: `server/discover` is refused, so clients fall back to `initialize`."""
    lowlevel = server._lowlevel_server
    options = lowlevel.create_initialization_options(NotificationOptions(tools_changed=True))
    async with stdio_server() as (read_stream, write_stream), lowlevel.lifespan(lowlevel) as state:
        await serve_loop(lowlevel, read_stream, write_stream, lifespan_state=state, init_options=options)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    parser.add_argument("--many", type=int, default=0)
    parser.add_argument("--fail-start", action="store_true")
    parser.add_argument("--log", type=Path)
    parser.add_argument("--wait-for", type=Path)
    parser.add_argument("--handshake", action="store_true")
    args = parser.parse_args()
    while args.wait_for is not None and not args.wait_for.exists():
        time.sleep(0.02)
    print(f"fixture: pid {os.getpid()} starting", file=sys.stderr, flush=True)
    if args.fail_start:
        print("fixture: cannot start, the database is missing", file=sys.stderr, flush=True)
        sys.exit(2)
    if args.log is not None:
        with args.log.open("a") as handle:
            handle.write(f"started {os.getpid()}\n")
    server = build(args.many, args.log)
    if args.handshake:
        anyio.run(serve_handshake_only, server)
    elif args.http:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run()


if __name__ == "__main__":
    main()
