"""The layer contract of pyproject.toml holds: lsp -> agent -> tools -> permissions, only lsp/ imports pygls
and lsprotocol, and wire/ depends on neither side that speaks it (import-linter, as scripts/test.sh runs it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_are_kept() -> None:
    lint_imports = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout
