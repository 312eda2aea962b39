#!/usr/bin/env bash
# End-to-end test in a real VS Code: code-server 1.100 (installed once into a cache folder outside the
# repository) + headless Chromium, the packaged .vsix, the repository's handrail server and scripted model.
# Screenshots and logs go to vscode-client/test-report/e2e/. Needs Debian's chromium and libkrb5-dev.
set -euo pipefail
cd "$(dirname "$0")/.."
CODE_SERVER="$(bash scripts/install-code-server.sh)"
[ -d node_modules ] || npm ci --no-audit --no-fund
npm run package
npm run compile-tests
CODE_SERVER="$CODE_SERVER" HANDRAIL_VSIX="$PWD/handrail.vsix" node --test --test-reporter=spec --test-concurrency=1 out/test/e2e/
