"""scripts/setup.sh's steps, run with stand-ins for the venv's python and moviebot (no installs, no KG build): the
demo KG's models are built by set-up, the phrasing model primed beside that build, and `--no-build` builds nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from conftest import REPO

PYTHON_STANDIN = """#!/usr/bin/env bash
echo "python $*" >> "$STEPS"
"""
# the background build waits (up to 20 s) for the priming to have run, and says whether it saw it while still building
MOVIEBOT_STANDIN = """#!/usr/bin/env bash
echo "moviebot $*" >> "$STEPS"
if [ "$*" = "--no-llm build" ]; then
  for _ in $(seq 200); do [ -e "$STEPS.primed" ] && break; sleep 0.1; done
  if [ -e "$STEPS.primed" ]; then echo "build ended after the priming" >> "$STEPS"; else echo "build ended alone" >> "$STEPS"; fi
fi
if [ "$*" = "llm prime" ]; then touch "$STEPS.primed"; fi
"""


def run_setup(tmp_path: Path, *args: str) -> tuple[list[str], str]:
    """Run a copy of scripts/setup.sh in a checkout whose .venv holds the stand-ins; (the steps they logged, stdout)."""
    checkout = tmp_path / "checkout"
    (checkout / "scripts").mkdir(parents=True)
    shutil.copy2(REPO / "scripts" / "setup.sh", checkout / "scripts" / "setup.sh")
    for name, text in (("python", PYTHON_STANDIN), ("moviebot", MOVIEBOT_STANDIN)):
        path = checkout / ".venv" / "bin" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o755)
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    (wheels / "llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl").touch()  # as if built once on this machine
    steps = tmp_path / "steps.log"
    env = {**os.environ, "STEPS": str(steps), "MOVIEBOT_WHEELS": str(wheels)}
    done = subprocess.run(["bash", str(checkout / "scripts" / "setup.sh"), *args], cwd=checkout, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return steps.read_text().splitlines(), done.stdout


def test_setup_builds_the_demo_models_and_primes_the_phrasing_model_beside_that_build(tmp_path):
    steps, output = run_setup(tmp_path)
    moviebot = [step for step in steps if not step.startswith("python ")]
    assert "moviebot --no-llm build" in moviebot and "moviebot llm prime" in moviebot
    assert "build ended after the priming" in moviebot  # primed while the build still ran, not after it
    assert "moviebot build" not in moviebot  # nothing left to build once both are done
    assert "demo KG ready after" in output.splitlines()[-1]
    llama = next(i for i, step in enumerate(steps) if "llama_cpp_python-0.3.36" in step)
    assert llama < steps.index("moviebot llm prime")  # the priming needs llama-cpp-python installed


def test_setup_without_the_build_leaves_the_models_to_the_first_start(tmp_path):
    steps, output = run_setup(tmp_path, "--no-build")
    assert steps and all(step.startswith("python ") for step in steps)
    assert "demo KG ready" not in output
