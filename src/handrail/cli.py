"""The `handrail` command: `handrail lsp` serves LSP, `handrail demo` shows a session on a sample workspace."""

from __future__ import annotations

import argparse
import logging
import os
import platform
import sys
from pathlib import Path
from typing import BinaryIO

from handrail import __version__
from handrail.lsp.process_exit import exit_now
from handrail.permissions.modes import PERMISSION_MODES


def protect_stdout() -> BinaryIO:
    """Keep stdout for LSP alone: stray prints and child processes go to stderr instead."""
    lsp_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return lsp_out


def _serve(tcp: str | None) -> int:
    from handrail.lsp.app import create_server

    server = create_server()
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
        return 0
    server.exit_at_once = True  # `exit` ends the process from its handler (lsp/process_exit.py)
    server.start_io(sys.stdin.buffer, protect_stdout())
    exit_now(server.exit_code)  # the client closed the connection without `exit`


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script."""
    parser = argparse.ArgumentParser(prog="handrail", description=__doc__)
    parser.add_argument("--log-level", default=os.environ.get("HANDRAIL_LOG_LEVEL", "WARNING"))
    parser.add_argument(  # editors' health checks read it (Neovim's :checkhealth handrail)
        "--version", action="version", version=f"handrail {__version__} (Python {platform.python_version()})"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    lsp = commands.add_parser("lsp", help="serve the Language Server Protocol (stdio unless --tcp)")
    lsp.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    demo = commands.add_parser("demo", help="run a scripted session on a temporary sample workspace")
    demo.add_argument("--keep", action="store_true", help="keep the temporary workspace afterwards")
    demo.add_argument(
        "--serve",
        action="store_true",
        help="for an editor: serve the scripted model for a sample copy, print {workspace, baseUrl, prompt} as JSON, "
        "run until standard input closes",
    )
    permissions = commands.add_parser("permissions", help="inspect permission decisions")
    permission_commands = permissions.add_subparsers(dest="permissions_command", required=True)
    check = permission_commands.add_parser("check", help="print the decision for a tool call without running it")
    check.add_argument("--cwd", type=Path, default=Path.cwd(), help="the workspace folder (default: here)")
    check.add_argument("--mode", choices=PERMISSION_MODES, help="the permission mode to decide in")
    check.add_argument("--trusted", action="store_true", help="treat the workspace as trusted and approved")
    check.add_argument("--jsonl", action="store_true", help='read {"tool", "input"} lines, write one decision each')
    check.add_argument("tool", nargs="?", help="the tool name, e.g. Bash")
    check.add_argument("input_json", nargs="?", help="the tool input as JSON, e.g. '{\"command\": \"ls\"}'")
    args = parser.parse_args(argv)

    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("pygls").setLevel(max(logging.WARNING, logging.getLogger().level))
    if args.command == "lsp":
        return _serve(args.tcp)
    if args.command == "permissions":
        from handrail.permission_check import run_check

        return run_check(cwd=args.cwd, mode=args.mode, trusted=args.trusted, jsonl=args.jsonl, tool=args.tool,
                         input_json=args.input_json)
    from handrail.demo.run import run_demo, serve_demo

    return serve_demo(keep=args.keep) if args.serve else run_demo(keep=args.keep)


if __name__ == "__main__":
    sys.exit(main())
