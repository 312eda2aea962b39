#!/usr/bin/env bash
# Install handrail with its test tools into .venv (if needed) and run lint, type checks and the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[test]"
.venv/bin/ruff check src tests
.venv/bin/mypy
.venv/bin/pytest "$@"
