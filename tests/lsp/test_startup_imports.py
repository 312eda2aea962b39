"""Server start-up stays light: what answers `initialize` is pygls and the LSP side of handrail; the agent
(`handrail.agent`: sessions, the turn, the MCP and model SDKs), the wire models (pydantic), the permission
engine, the tools and tree-sitter load after."""

from __future__ import annotations

import subprocess
import sys

HEAVY = (
    "pydantic",
    "anthropic",
    "httpx",
    "mcp",
    "jsonschema",
    "tree_sitter",
    "watchdog",
    "handrail.tools",
    "handrail.permissions.context",
    "handrail.permissions.settings",
    "handrail.agent",
    "handrail.wire.models",
)


def test_building_the_server_loads_none_of_the_agents_modules() -> None:
    code = (
        "import sys, handrail.cli\n"
        "from handrail.lsp.app import create_server\n"
        "create_server()\n"
        f"heavy = {HEAVY!r}\n"
        "print(sorted(m for m in sys.modules if any(m == h or m.startswith(h + '.') for h in heavy)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
