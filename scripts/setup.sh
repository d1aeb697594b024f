#!/usr/bin/env bash
# Create .venv and install moviebot with everything it needs.
#   scripts/setup.sh          the bot
#   scripts/setup.sh --test   the bot plus test tools (and the Debian packages the tests use)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
extras="."
if [ "${1:-}" = "--test" ]; then
  extras=".[test]"
fi
.venv/bin/python -m pip install -q -e "$extras"
