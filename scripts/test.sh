#!/usr/bin/env bash
# Install handrail with its test tools into .venv (if needed) and run lint, type checks, the layer
# contract and the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[test]"
.venv/bin/ruff check src tests
.venv/bin/mypy
.venv/bin/lint-imports  # the layers of pyproject.toml's [tool.importlinter]: lsp -> agent -> tools -> permissions
.venv/bin/pytest "$@"
# The VS Code extension (type check, lint, unit tests, the real server through the extension's protocol
# handlers, the chat webview in headless Chromium) when Node is installed; HANDRAIL_SKIP_VSCODE=1 skips it.
if [ -z "${HANDRAIL_SKIP_VSCODE:-}" ] && command -v npm >/dev/null 2>&1; then
  cd vscode-client
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
  fi
  HANDRAIL_PYTHON="$PWD/../.venv/bin/python" npm test
fi
