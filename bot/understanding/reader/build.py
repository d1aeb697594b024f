"""Building and loading the reader of one KG: the role tagger trained on the KG's generated questions.

Trained with a progress bar on first use (or when its inputs change) into the KG's build folder, next to the
chain classifier, and keyed the same way: by content, never by a hand-bumped version.
"""

from __future__ import annotations

from bot.core.text import Token
from bot.kg.graph import KG, artefact_fresh, record_artefact
from bot.understanding.reader import Reader
from bot.understanding.reader.augment import augmented
from bot.understanding.reader.corpus import Generator, KgFacts
from bot.understanding.reader.tagger import MODEL, TRAINING_EXAMPLES, Features, RoleTagger, Vocabulary, reader_key, train


def exact_names(mentions, wording: frozenset[str]):
    """(text, toks) -> per token "B"/"I" inside an exact label of the KG (a title or name, not question wording)."""

    def names_of(text: str, toks: list[Token]) -> list[str]:
        out = [""] * len(toks)
        for span in mentions.exact(toks):
            if span.fuzzy_score < 100 or all(t in wording for t, _, _ in toks[span.tok_start : span.tok_end]):
                continue
            for k in range(span.tok_start, span.tok_end):
                if not out[k]:
                    out[k] = "B" if k == span.tok_start else "I"
        return out

    return names_of


def load_reader(kg: KG, vocabulary: Vocabulary, mentions, quiet: bool = False, force: bool = False,
                examples: int = TRAINING_EXAMPLES) -> Reader:
    """The KG's reader, its tagger trained on first use."""
    names_of = exact_names(mentions, vocabulary.wording)
    features = Features(vocabulary)
    key = reader_key(kg.bundle.schema_hash(), kg.key, vocabulary)
    path = kg.folder / MODEL
    if force or not artefact_fresh(kg.folder, MODEL, key):
        generator = Generator(kg.bundle, KgFacts(kg), seed=0)
        train(augmented(generator, examples), features, names_of, path, quiet=quiet)
        record_artefact(kg.folder, MODEL, key)
    return Reader(RoleTagger(path, features), names_of)
