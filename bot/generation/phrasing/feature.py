"""The phrasing feature: a local GGUF model rewords answers from the verified facts, under the guard."""

from __future__ import annotations

import logging

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

    The shared prompt prefix is primed in the background: answers asked meanwhile find the
    model busy and keep their template sentences."""
    model = load_model(agent.settings, quiet=False)
    phraser = Phraser(model, agent.kg.bundle, FaithfulnessGuard(agent.kg.labels, agent.kg.bundle), agent.settings)

    def background() -> None:
        prime(model)

    return Contribution(phraser=phraser, background=background)


def build_step(settings: Settings, bundle: Bundle, folder, key, quiet: bool = False, force: bool = False) -> None:
    """Assemble the embedded default model at build time, so the first chat does not wait for it."""
    if settings.llm_model:
        return
    try:
        assemble_default_model(settings.cache_dir, quiet=quiet)
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
