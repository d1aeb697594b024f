#!/usr/bin/env bash
# Set up everything the tests need, lint, then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test --no-build  # the tests build what they need into their own cache
export MOVIEBOT_CACHE_DIR="${MOVIEBOT_CACHE_DIR:-$PWD/.cache/test}"
export MOVIEBOT_SYNAPSE_PYTHON="${MOVIEBOT_SYNAPSE_PYTHON:-$PWD/.cache/synapse-venv/bin/python}"
.venv/bin/ruff check bot tests bench scripts
# every tier, in order: fast (no model training, no servers; `-m "not integration and not e2e"`, under a minute),
# integration (models trained on the KGs), end-to-end (chatrooms, Synapse, browser, wheel)
.venv/bin/python -m pytest "$@"
