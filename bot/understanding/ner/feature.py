"""The NER feature: a Flair sequence tagger trained on the KG finds the names in a question.

Training (first use of a KG) happens in the build step, in the foreground, with a progress
bar; loading a trained tagger (importing Flair and torch: several seconds) happens in the
background, and until it is done the label index finds the entities on its own.
"""

from __future__ import annotations

import logging
from pathlib import Path

from bot.core.errors import FeatureError
from bot.core.features import Contribution, Feature
from bot.understanding.ner.matching import NerMentions
from bot.understanding.ner.training import build_step

log = logging.getLogger(__name__)


def load(agent) -> Contribution:
    settings = agent.settings
    if settings.ner_model:
        path = Path(settings.ner_model).expanduser()
        if not path.is_file():
            raise FeatureError(f"the configured ner_model {path} is not a file")
    else:
        path = build_step(settings, agent.kg.bundle, agent.kg.folder, agent.kg.key)

    def background() -> Contribution:
        import torch

        from bot.understanding.ner.tagger import NerTagger

        torch.set_num_threads(max(1, settings.torch_threads))
        tagger = NerTagger.load(path)
        log.info("NER tagger loaded from %s", path)
        understander = agent.understander
        return Contribution(mention_sources=[NerMentions(tagger, agent.kg.labels, settings.fuzzy_threshold, understander.vocabulary)])

    return Contribution(background=background)


FEATURE = Feature(
    name="ner",
    summary="Flair NER tagger trained on the KG's titles and names (falls back to the label index until loaded)",
    requires=("torch", "flair"),
    settings="ner",
    load=load,
    build=build_step,
)
