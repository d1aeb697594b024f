"""The phrasing feature: a local GGUF model rewords answers from the verified facts, under the guard."""

from __future__ import annotations

import logging
from pathlib import Path

from bot.core.config import Settings
from bot.core.errors import ModelUnavailable
from bot.core.features import Contribution, Feature
from bot.generation.phrasing.guard import FaithfulnessGuard
from bot.generation.phrasing.model import assemble_default_model, load_model
from bot.generation.phrasing.phraser import Phraser, prime
from bot.kg.bundle import Bundle

log = logging.getLogger(__name__)


def load(agent) -> Contribution:
    """The phraser, once the model loads (ModelUnavailable otherwise: replies keep their template sentences).

    The shared prompt prefix is primed in the background (restored from the cache after the
    first time): answers asked meanwhile find the model busy and keep their template sentences."""
    model = load_model(agent.settings, quiet=False)
    phraser = Phraser(model, agent.kg.bundle, FaithfulnessGuard(agent.kg.labels, agent.kg.bundle), agent.settings)

    def background() -> None:
        prime(model, primed_dir(agent.settings))

    return Contribution(phraser=phraser, background=background)


def primed_dir(settings: Settings) -> Path:
    """Where the model's state after the shared prompt prefix is kept (next to the assembled default model)."""
    return Path(settings.cache_dir).expanduser() / "llm"


def ready_model(settings: Settings, quiet: bool = False) -> None:
    """Assemble the embedded default model (unless another is configured) and prime it into the cache, so the first
    chat waits for neither. It depends on no KG: set-up runs it (`moviebot llm prime`) beside the KG's build.
    ModelUnavailable when there is no model to load."""
    if not settings.llm_model:
        assemble_default_model(settings.cache_dir, quiet=quiet)
    prime(load_model(settings), primed_dir(settings), quiet)


def build_step(settings: Settings, bundle: Bundle, folder, key, quiet: bool = False, force: bool = False) -> None:
    """The model made ready at build time (`ready_model`); without one, phrasing is off and the build goes on."""
    try:
        ready_model(settings, quiet)
    except ModelUnavailable as exc:
        log.warning("LLM phrasing will be off: %s", exc)


FEATURE = Feature(
    name="phrasing",
    summary="a local GGUF model (llama-cpp-python) words answers from verified facts; a guard keeps it faithful",
    requires=("llama_cpp",),
    settings="llm",
    load=load,
    build=build_step,
)
