#!/usr/bin/env bash
# Set up everything the tests need, then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
export MOVIEBOT_CACHE_DIR="${MOVIEBOT_CACHE_DIR:-$PWD/.cache/test}"
.venv/bin/python -m pytest "$@"
