"""An MCP server for the tests, written with the SDK: slow, failing, progressing, crashing and image tools,
tools that add or remove tools at runtime (announcing it with notifications/tools/list_changed), content
and a resource for the user's audience only, and a tool that can only run as an MCP task; prompts, a
resource template and a JSON blob; tools that elicit (a form of choices, a typed name, a URL), list the
client's roots, log, and ask for sampling; read-only tools that meet, and a destructive one.

    python mcp_fixture_server.py [--http PORT | --sse PORT] [--many N] [--fail-start] [--fail-start-if FILE]
                                 [--log FILE] [--wait-for FILE] [--handshake] [--instructions TEXT]

`--log FILE` appends one line per event the tests wait for (started, cancelled);
`--wait-for FILE` makes start-up slow: the server answers nothing until FILE exists;
`--fail-start-if FILE` fails to start while FILE exists (a server that crashed and cannot come back);
`--handshake` serves stdio in the 2025 handshake era only (`initialize`, no `server/discover`),
so clients fall back to it and get change notifications unasked instead of through `subscriptions/listen`
(and the server may send requests to the client: elicitation, roots, sampling).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import anyio
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import (
    Annotations,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    SamplingMessage,
    TextContent,
    Tool,
    ToolAnnotations,
    ToolExecution,
)

warnings.simplefilter("ignore", MCPDeprecationWarning)  # roots, logging and sampling are 2025-era features

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


ORDER_FORM = {
    "type": "object",
    "properties": {
        "size": {
            "type": "string",
            "title": "Size",
            "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}],
        },
        "gift": {"type": "boolean", "title": "Gift wrap", "description": "Wrap it as a present"},
        "toppings": {
            "type": "array",
            "title": "Toppings",
            "items": {"type": "string", "enum": ["cheese", "ham", "olives"]},
            "minItems": 1,
            "maxItems": 2,
        },
        "note": {"type": "string", "title": "Note"},
        "count": {"type": "integer", "title": "How many", "default": 1, "minimum": 1},
    },
    "required": ["size", "gift"],
}
NAME_FORM = {"type": "object", "properties": {"name": {"type": "string", "title": "Your name"}}, "required": ["name"]}
ARRIVALS: dict[str, Any] = {"count": 0, "event": None}


def build(many: int, log: Path | None, instructions: str | None = None) -> MCPServer:
    server = FixtureServer("fixture", instructions=instructions)

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

    @server.tool(description="Take an order: asks the user through a form of choices")
    async def order(ctx: Context) -> str:
        answer = await ctx.session.elicit("What would you like?", ORDER_FORM, related_request_id=ctx.request_id)
        return json.dumps({"action": answer.action, "content": answer.content})

    @server.tool(description="Take an order the 2026 way (input_required), asking through a form of choices")
    async def order_modern(ctx: Context) -> Any:
        answer = (ctx.input_responses or {}).get("order")
        if answer is not None:
            return json.dumps({"action": answer.action, "content": answer.content})
        form = ElicitRequestFormParams(message="What would you like?", requested_schema=ORDER_FORM)
        return InputRequiredResult(input_requests={"order": ElicitRequest(params=form)})

    @server.tool(description="Ask for the user's name (typed)")
    async def ask_name(ctx: Context) -> str:
        answer = await ctx.session.elicit("Who are you?", NAME_FORM, related_request_id=ctx.request_id)
        return json.dumps({"action": answer.action, "content": answer.content})

    @server.tool(description="Ask the user to open a page")
    async def open_page(url: str, ctx: Context) -> str:
        answer = await ctx.elicit_url("Please confirm in the browser", url, "page-1")
        return f"the user answered {answer.action}"

    @server.tool(description="Ask the client's model for a completion (sampling)")
    async def sample(ctx: Context) -> str:
        message = SamplingMessage(role="user", content=TextContent(type="text", text="say hi"))
        result = await ctx.session.create_message([message], max_tokens=5)
        return f"sampled: {result}"

    @server.tool(description="List the client's roots")
    async def roots(ctx: Context) -> str:
        listed = await ctx.session.list_roots()
        return json.dumps([str(root.uri) for root in listed.roots])

    @server.tool(description="Log a message to the client")
    async def shout(text: str, ctx: Context) -> str:
        await ctx.warning(text, logger_name="shouter")
        return "shouted"

    @server.tool(description="Wait for another call of this tool",
                 annotations=ToolAnnotations(readOnlyHint=True))
    async def meet(ctx: Context) -> str:
        if ARRIVALS["event"] is None:
            ARRIVALS["event"] = anyio.Event()
        ARRIVALS["count"] += 1
        if ARRIVALS["count"] >= 2:
            ARRIVALS["event"].set()
        with anyio.move_on_after(20):
            await ARRIVALS["event"].wait()
        return "together" if ARRIVALS["event"].is_set() else "alone"

    @server.tool(description="Delete the target", annotations=ToolAnnotations(destructiveHint=True))
    def wipe(target: str) -> str:
        return f"wiped {target}"

    @server.prompt(description="Review a file for a kind of problem")
    def review(path: str, focus: str = "bugs") -> str:
        return f"Please review {path}, looking for {focus}."

    @server.prompt(description="Look at a picture")
    def picture() -> list[Any]:
        return ["Describe this picture:", Image(data=PIXEL, format="png")]

    @server.resource("fixture://notes/{name}", name="note", mime_type="text/plain", description="A note by name")
    def named_note(name: str) -> str:
        return f"the note called {name}"

    @server.resource("fixture://data.json", name="data", mime_type="application/json")
    def data() -> bytes:
        return json.dumps({"answer": 42}).encode()

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
    parser.add_argument("--sse", type=int)
    parser.add_argument("--fail-start-if", type=Path)
    parser.add_argument("--instructions")
    args = parser.parse_args()
    while args.wait_for is not None and not args.wait_for.exists():
        time.sleep(0.02)
    print(f"fixture: pid {os.getpid()} starting", file=sys.stderr, flush=True)
    if args.fail_start_if is not None and args.fail_start_if.exists():
        print("fixture: cannot start again", file=sys.stderr, flush=True)
        sys.exit(2)
    if args.fail_start:
        print("fixture: cannot start, the database is missing", file=sys.stderr, flush=True)
        sys.exit(2)
    if args.log is not None:
        with args.log.open("a") as handle:
            handle.write(f"started {os.getpid()}\n")
    server = build(args.many, args.log, args.instructions)
    if args.handshake:
        anyio.run(serve_handshake_only, server)
    elif args.http:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    elif args.sse:
        server.run("sse", host="127.0.0.1", port=args.sse)
    else:
        server.run()


if __name__ == "__main__":
    main()
