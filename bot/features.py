"""The optional features moviebot knows, and how they are chosen, built and loaded.

Each feature is declared as a `Feature` (bot.core.features) in its own layer; this registry
only names where each declaration lives. `Settings.features` (TOML `features = [...]`,
environment `MOVIEBOT_FEATURES=ner,crowd`) chooses which ones load, in the registry's order.
A feature whose packages are missing, or whose loading fails, logs one line saying why and
is off; the rest of the bot works without it.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
from dataclasses import dataclass

from bot.core.config import Settings
from bot.core.errors import FeatureError
from bot.core.features import Contribution, Feature

log = logging.getLogger(__name__)

DECLARATIONS = {  # in load order; the same names as bot.core.config.ALL_FEATURES
    "ner": "bot.understanding.ner.feature",
    "crowd": "bot.answering.crowd.feature",
    "embeddings": "bot.answering.embeddings.feature",
    "recommend": "bot.answering.recommend",
    "images": "bot.answering.images",
    "phrasing": "bot.generation.phrasing.feature",
}


@dataclass
class Loaded:
    """A feature as the agent got it: its declaration and what it contributed (None when it is off)."""

    feature: Feature
    contribution: Contribution | None
    off_because: str = ""


def missing_packages(feature: Feature) -> list[str]:
    return [name for name in feature.requires if importlib.util.find_spec(name) is None]


def declared(name: str) -> Feature:
    """The declaration of feature `name` (FeatureError for a name the registry does not know)."""
    if name not in DECLARATIONS:
        raise FeatureError(f"unknown feature {name!r}; the features are {', '.join(DECLARATIONS)}")
    return importlib.import_module(DECLARATIONS[name]).FEATURE


def chosen(settings: Settings) -> list[Feature]:
    """The features `settings` turns on, in the registry's order; unknown names are reported and skipped."""
    unknown = [n for n in settings.features if n not in DECLARATIONS]
    if unknown:
        log.warning("unknown feature(s) %s in the settings; the features are %s", ", ".join(unknown), ", ".join(DECLARATIONS))
    return [declared(name) for name in DECLARATIONS if name in settings.features]


def load_features(agent) -> list[Loaded]:
    """Load every chosen feature for `agent`; a missing package or a failing load turns only that feature off."""
    loaded = []
    for feature in chosen(agent.settings):
        missing = missing_packages(feature)
        if missing:
            why = f"missing package(s) {', '.join(missing)}"
        else:
            try:
                loaded.append(Loaded(feature, feature.load(agent)))
                continue
            except Exception as exc:  # noqa: BLE001 - any failure of an optional feature leaves the bot working without it
                why = f"{type(exc).__name__}: {exc}"
        log.warning("feature %s is off: %s", feature.name, why)
        loaded.append(Loaded(feature, None, why))
    return loaded


def run_build_steps(settings: Settings, bundle, folder, key, quiet: bool = False, force: bool = False) -> None:
    """Run the build step of every chosen feature whose packages are installed."""
    for feature in chosen(settings):
        if feature.build is None:
            continue
        missing = missing_packages(feature)
        if missing:
            log.warning("feature %s is not built: missing package(s) %s", feature.name, ", ".join(missing))
            continue
        feature.build(settings, bundle, folder, key, quiet, force)
