"""Building and loading the reader of one KG: the role tagger trained on the KG's generated questions.

Trained with a progress bar on first use (or when its inputs change) into the KG's build folder, next to the
chain classifier, and keyed the same way: by content, never by a hand-bumped version.
"""

from __future__ import annotations

from bot.core.cache import code_digest, combine
from bot.core.text import Token
from bot.kg.graph import KG, artefact_fresh, record_artefact
from bot.understanding.reader import Reader
from bot.understanding.reader.augment import augmented
from bot.understanding.reader.corpus import Generator, KgFacts
from bot.understanding.reader.tagger import MODEL, TRAINING_EXAMPLES, Features, RoleTagger, Vocabulary, reader_key, train
from bot.understanding.vocabulary import FILM_WORDS, GENERIC, STOP

MIN_TRAINING_EXAMPLES = 3_000
EXAMPLES_PER_FILM = 30


def reader_vocabulary(lexicon, wording: frozenset[str], compare: frozenset[str], ordinary: frozenset[str]) -> Vocabulary:
    """The tagger's word lists from the understander's own: the bundle's relation cues (bot.understanding.lexicon), the
    classifier's question wording, the shared vocabulary, the words of comparisons, superlatives and counts, and the
    ordinary English words."""
    return Vocabulary(frozenset().union(*lexicon.cues.values()), wording, STOP, GENERIC, FILM_WORDS, compare, ordinary)


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


ORDINARY_WORDS = "ordinary-words.txt"


def ordinary_words(kg: KG) -> frozenset[str]:
    """The ordinary English words (bot.core.english), kept in the KG's build folder: read in milliseconds at start."""
    from bot.core import english

    path = kg.folder / ORDINARY_WORDS
    key = combine(code_digest(english), str(english.COMMON))
    if not artefact_fresh(kg.folder, ORDINARY_WORDS, key):
        path.write_text("\n".join(sorted(english.common_words())), encoding="utf-8")
        record_artefact(kg.folder, ORDINARY_WORDS, key)
    return frozenset(path.read_text(encoding="utf-8").split())


def training_examples(films: int) -> int:
    """How many generated messages the tagger learns from: enough for the KG's wording and names, no more (a test KG
    of ten films needs a few thousand; the demo KG's 655 films about twenty thousand)."""
    return max(MIN_TRAINING_EXAMPLES, min(TRAINING_EXAMPLES, EXAMPLES_PER_FILM * films))


def load_reader(kg: KG, vocabulary: Vocabulary, mentions, quiet: bool = False, force: bool = False) -> Reader:
    """The KG's reader, its tagger trained on first use."""
    names_of = exact_names(mentions, vocabulary.wording)
    features = Features(vocabulary)
    key = reader_key(kg.bundle.schema_hash(), kg.key, vocabulary)
    path = kg.folder / MODEL
    if force or not artefact_fresh(kg.folder, MODEL, key):
        facts = KgFacts(kg)
        generator = Generator(kg.bundle, facts, seed=0)
        train(augmented(generator, training_examples(len(facts.films))), features, names_of, path, quiet=quiet)
        record_artefact(kg.folder, MODEL, key)
    return Reader(RoleTagger(path, features), names_of)
