#!/usr/bin/env bash
# The Docker image's build steps: the Dockerfile's RUN is exactly this script, and CI runs it
# too (tests/test_chat_docker.py), so a broken step fails CI although no Docker engine runs there.
#   1. install moviebot and its run-time extras into .venv, and build the demo KG's store, label index and
#      models into MOVIEBOT_CACHE_DIR, so containers start fast (scripts/setup.sh)
#   2. check the result: the chat modules import, and one question is answered offline
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
.venv/bin/python -c "import bot.chat.server, bot.chat.speakeasy, bot.chat.matrix"
answer=$(.venv/bin/moviebot ask "Who directed Good Will Hunting?" --no-llm)
echo "smoke test: $answer"
case "$answer" in
  *"Gus Van Sant"*) ;;
  *) echo "the built image does not answer the smoke-test question" >&2; exit 1 ;;
esac
