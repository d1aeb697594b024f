"""Building and loading the reader of one KG: the role tagger trained on the KG's generated questions.

Trained with a progress bar on first use (or when its inputs change) into the KG's build folder, next to the
chain classifier, and keyed the same way: by content, never by a hand-bumped version.
"""

from __future__ import annotations

from bot.core.cache import code_digest, combine
from bot.core.terms import Group
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


TRUST = "trust.json"
TRUST_EXAMPLES = 20_000  # generated questions read to fit the trust model (about one in twenty leaves words unknown)
# the styles that leave words a reading cannot place, more often than in the tagger's text: the trust model learns from those
TRUST_RATES = {"unforeseen": 0.35, "filler": 0.35, "typos": 0.35, "story": 0.3, "aside": 0.2, "chat": 0.25, "non_native": 0.25}


def trust_features(understander):
    """candidate -> the trust model's features, read against the message the understander is reading."""
    from bot.understanding.reader import current_reading
    from bot.understanding.reader.trust import reading_features

    ordinary, cues = understander.mentions.ordinary, understander.lexicon.cues

    def features(candidate) -> dict[str, float]:
        toks, reading = current_reading() or ([], None)
        tagged, text = (reading.tagged, reading.text) if reading is not None else (None, "")
        return reading_features(candidate, toks, tagged, ordinary, understander.speller, text, cues)

    return features


def trust_examples(understander, kg: KG, count: int, seed: int = 1, advance=lambda: None) -> list[tuple[dict[str, float], bool]]:
    """(features, right) of the readings that leave unknown words, over `count` generated relation-chain questions
    augmented as people write: whether the reading answered was the question's own chain about its own topic
    (`advance` is called after each question, for a progress bar)."""
    from bot.core.contracts import chain_code
    from bot.understanding.scoring import RecordingScorer

    generator = Generator(kg.bundle, KgFacts(kg), seed=seed)
    recorder = RecordingScorer(trust_features(understander))
    kept, understander.scorer = understander.scorer, recorder
    rows = []
    try:
        for example in augmented(generator, count, rates=TRUST_RATES):
            advance()
            # questions one or two relations long, as people ask them (three-hop ones with a word replaced are word salad)
            if example.gold is None or "several" in example.styles or example.gold[0].count(",") > 1:
                continue
            recorder.seen = []
            read = understander.understand(example.text)
            first = read.asks[0] if read.asks else None
            if not recorder.seen or first is None:
                continue  # no word left unknown, or declined for another reason: trust decided nothing
            right = first.after is None and chain_code(first.chain) == example.gold[0] and read.entities[first.topic].label == example.gold[1]
            rows.append((recorder.seen[-1], right))
    finally:
        understander.scorer = kept
    return rows


def load_trust(understander, kg: KG, classifier_key: str, quiet: bool = False, force: bool = False):
    """The KG's trust model, fitted on first use (after the reader) and kept in its build folder."""
    import pkgutil

    import bot.understanding
    from bot.understanding.reader.trust import TrustModel, fit

    modules = sorted(m.name for m in pkgutil.walk_packages(bot.understanding.__path__, "bot.understanding.") if not m.ispkg
                     and ".ner." not in m.name)
    key = combine(reader_key(kg.bundle.schema_hash(), kg.key, understander.reader_vocabulary), classifier_key, code_digest(*modules))
    path = kg.folder / TRUST
    if force or not artefact_fresh(kg.folder, TRUST, key):
        from bot.core.cache import progress

        films = sum(1 for group in kg.labels.groups if group == Group.FILM)  # labels of films: about one per film
        count = min(TRUST_EXAMPLES, max(MIN_TRAINING_EXAMPLES, EXAMPLES_PER_FILM * films))
        with progress() as bar:
            task = bar.add_task("reader: calibrated trust", total=count, visible=not quiet)
            model, _ = fit(trust_examples(understander, kg, count, advance=lambda: bar.advance(task)))
            model.save(path)
        record_artefact(kg.folder, TRUST, key)
    return TrustModel.load(path)
