"""Optional features plug into the agent and the build here, in one place.

Each feature module offers `install(agent)` (register handlers, fallbacks, amenders, a
phraser or mention sources) and optionally `build_step(settings, bundle, folder, key,
quiet, force)` (train or index something at build time, cached under `folder`).
A feature whose optional dependencies are missing logs why and stays off.
"""

from __future__ import annotations

import importlib
import logging

log = logging.getLogger(__name__)

# module names under bot/, in the order they install
FEATURES: list[str] = ["ner", "crowd", "embeddings", "recommend", "images", "phrasing"]


def _modules():
    for name in FEATURES:
        try:
            yield name, importlib.import_module(f"bot.{name}")
        except ImportError as exc:
            log.warning("feature %s is off: %s", name, exc)


def install_features(agent) -> None:
    for name, module in _modules():
        install = getattr(module, "install", None)
        if install is not None:
            install(agent)


def run_build_steps(settings, bundle, folder, key, quiet: bool = False, force: bool = False) -> None:
    for name, module in _modules():
        step = getattr(module, "build_step", None)
        if step is not None:
            step(settings, bundle, folder, key, quiet=quiet, force=force)
