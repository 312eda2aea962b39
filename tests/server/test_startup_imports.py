"""Server start-up stays light: the built-in tools, tree-sitter, the MCP SDK and jsonschema load with the first turn."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("handrail.tools.builtin", "tree_sitter", "mcp", "jsonschema")


def test_importing_the_server_loads_no_tools_tree_sitter_mcp_or_jsonschema() -> None:
    code = (
        "import sys, handrail.server.app\n"
        f"heavy = {HEAVY!r}\n"
        "print(sorted(m for m in sys.modules if any(m == h or m.startswith(h + '.') for h in heavy)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
