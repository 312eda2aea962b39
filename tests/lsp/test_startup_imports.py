"""Server start-up stays light: what answers `initialize` is pygls and the LSP side of handrail; the agent's
modules (pydantic, the permission engine, sessions, tools, tree-sitter, the MCP SDK, the model SDK) load after."""

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
    "handrail.agent.agent_loop",
    "handrail.agent.session",
    "handrail.agent.mcp_manager",
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
