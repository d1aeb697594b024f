"""A built wheel works on its own: it carries the code and the data folders, and answers from another directory.

The source tree is copied (without .venv, .git, caches or a stale build/ that would leak old
files into the wheel), built with `pip wheel`, and installed into a fresh virtualenv that
borrows the project venv's installed dependencies through a .pth file (a path line only: the
editable install's own .pth in that folder is not processed, so `bot` comes from the wheel).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.e2e

DATA_FOLDERS = {"templates": "bot/resources/templates", "kg": "bot/resources/kg", "crowd": "bot/resources/crowd", "embeddings": "bot/resources/embeddings"}
NOT_SHIPPED = shutil.ignore_patterns(".venv", ".git", ".cache", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".ruff_cache", "artifacts", "out")


def run(*command, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True, timeout=900, **kwargs)
    assert result.returncode == 0, f"{command} failed:\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}"
    return result


@pytest.fixture(scope="module")
def build(tmp_path_factory) -> tuple[Path, str]:
    """The wheel built from a clean copy of the source tree, and what the build printed."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"
    shutil.copytree(REPO, source, ignore=NOT_SHIPPED, symlinks=True)
    result = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", source, "-w", root / "dist")
    (built,) = (root / "dist").glob("moviebot-*.whl")
    return built, result.stdout + result.stderr


@pytest.fixture(scope="module")
def wheel(build) -> Path:
    return build[0]


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh virtualenv with only the wheel installed, and the project venv's dependencies on its path."""
    folder = tmp_path_factory.mktemp("venv") / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", folder)
    python = folder / "bin" / "python"
    # the wheel first: with the .pth in place pip would see (and replace) the project's editable install
    run(sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", wheel)
    target = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())
    dependencies = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (target / "project-dependencies.pth").write_text("".join(f"{path}\n" for path in dependencies), encoding="utf-8")
    return folder


def clean_env(**overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "MOVIEBOT_CONFIG", "MOVIEBOT_KG")}
    return {**env, **overrides}


def test_the_build_has_no_packaging_warnings(build):
    """setuptools warns when a folder with files is no listed package (its files would be dropped some day)."""
    output = build[1]
    assert "absent from the `packages` configuration" not in output and "is deprecated" not in output, output[-3000:]


def test_the_wheel_carries_the_code_and_the_data_folders(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {p.relative_to(REPO).as_posix() for p in (REPO / "bot").rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    for folder, package in DATA_FOLDERS.items():
        expected |= {f"{package}/{p.relative_to(REPO / folder).as_posix()}" for p in (REPO / folder).rglob("*")
                     if p.is_file() and "__pycache__" not in p.parts}
    assert not expected - names, f"missing from the wheel: {sorted(expected - names)}"
    assert {f"bot/resources/templates/{p.name}" for p in (REPO / "templates").glob("*.json")} <= names
    assert {"bot/resources/kg/bundle.toml", "bot/resources/kg/graph.ttl", "bot/resources/kg/deliberate_errors.ttl"} <= names
    assert "bot/resources/crowd/demo_crowd.tsv" in names
    assert {"bot/resources/embeddings/entity_embeds.npy", "bot/resources/embeddings/manifest.json"} <= names


def test_the_installed_wheel_imports_from_its_own_venv(venv, tmp_path):
    script = "import bot, bot.resources as r; print(bot.__file__); print(r.demo_kg()); print(r.templates_dir())"
    lines = run(venv / "bin" / "python", "-c", script, cwd=tmp_path, env=clean_env()).stdout.split()
    site = str(venv.resolve())
    assert all(line.startswith(site) for line in lines), lines


def test_the_installed_wheel_answers_from_another_directory(venv, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = clean_env(MOVIEBOT_CACHE_DIR=str(tmp_path / "cache"), MOVIEBOT_FEATURES="")
    result = run(venv / "bin" / "moviebot", "--no-llm", "ask", "Who directed Good Will Hunting?", cwd=elsewhere, env=env)
    assert "Gus Van Sant" in result.stdout
    assert not list(elsewhere.iterdir()), "the bot wrote into the working directory"
