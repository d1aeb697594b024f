"""The embeddings feature: TransE predictions for triples the graph lacks, and the 'embedding' question kind."""

from __future__ import annotations

from bot.answering.embeddings.answers import EmbeddingAnswers
from bot.answering.embeddings.artefacts import build_step
from bot.answering.embeddings.space import space_for
from bot.core.features import Contribution, Feature
from bot.core.kinds import Kind


def load(agent) -> Contribution:
    """Load (or, on first use of a KG, train) the embeddings now, so no answer waits for them."""
    answers = EmbeddingAnswers(agent, space_for(agent.kg, agent.settings))
    return Contribution(handlers={Kind.EMBEDDING: answers.handle}, fallbacks=[answers.fallback],
                        offers=("predict missing facts from the KG embeddings",))


FEATURE = Feature(
    name="embeddings",
    summary="TransE link predictions (clearly labelled) for missing triples and on request",
    requires=(),  # numpy reads shipped vectors; training new ones needs torch (the build step says so)
    settings="embedding",
    load=load,
    build=build_step,
)
