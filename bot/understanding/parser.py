"""Understanding: from a message to a question plan (kind, asks, linked entities) — or an honest "I don't know".

1. Messages that are not questions come first: instructions to the bot, arithmetic and off-topic
   requests are declined, whole-message small talk is small talk (bot.understanding.conversation).
2. Names are found by the label index (labels, aliases, variants, fuzzy) and the NER layer, and
   masked, so titles do not trigger kind cues; surface cues pick recommendations, pictures and
   embedding requests (bot.understanding.cues).
3. A factual message is split into clauses ("Who directed Inception and when was it released?"),
   and each clause is read jointly for its entity and relation chain: every candidate span is
   masked in turn ("who directed ENT"), the chain classifier scores the masked wording, and each
   (entity, chain) candidate must account for the clause's words (bot.understanding.lexicon). A
   chain whose first relation the entity never takes part in is ROLE_ODDS times less likely, so
   "the movies Ann Lee worked on" follows the relation Ann Lee actually has. A clause may ask for
   several relations of one film ("the director, the year and the runtime of X"), one relation of
   several films ("When were A and B released?"), or refer back with a pronoun (to an earlier
   clause's film, or to the person an earlier clause asked for: "... and what else did they direct?").
4. A parse that leaves a word unexplained is not trusted: a word that asks for something the graph
   does not hold ("born", "budget") is said so; another relation's cue or an unknown word next to a
   title makes the bot say what it could not read instead of answering another question.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import combinations

from bot.core.contracts import Ask, Hop, LinkedEntity, Shared, Understanding, chain_code, parse_chain
from bot.core.features import MentionSource
from bot.core.kinds import Kind
from bot.core.text import YEAR, Token, contracted_not
from bot.kg import queries
from bot.kg.graph import KG
from bot.understanding.classifier import ChainClassifier
from bot.understanding.compose import COMPOSITION_WORDS, OSCAR_WORDS, Composer, Composition, excluding_words
from bot.understanding.constructions.clause import Clause, tokenise
from bot.understanding.constructions.overview import OverviewReader
from bot.understanding.conversation import decline_intent, social_intent
from bot.understanding.cues import question_kind
from bot.understanding.lexicon import PLACE_GROUPS, WEAK_CUES, Explanation, Lexicon, expected_answer
from bot.understanding.linking import Namesakes, link_span, namesakes
from bot.understanding.mentions import IndexMentions, Span
from bot.understanding.questions import ENT, supported_chains
from bot.understanding.recommendation_request import RecommendationReader
from bot.understanding.series import SeriesOrdinals
from bot.understanding.vocabulary import (
    EXCLUDING,
    FILLER_START,
    FILM_WORDS,
    GENERIC,
    LIST_WORDS,
    PRONOUNS,
    QUESTION_START,
    QUESTION_WORDS,
    SHARE_CUES,
    STOP,
    TITLE_FUNCTION_WORDS,
    YES_NO_START,
    Speller,
    word_set,
)

MAX_CANDIDATES = 16
MAX_CHAINS_PER_SPAN = 12  # chains scored per span (by classifier probability) before the explanation check
LENGTH_WEIGHT = 1.0  # log-probability bonus per token of the span
WORDING_PENALTY = 2.5  # spans made only of question wording ("who", "film") are unlikely names
FILM_CUES = frozenset({"film", "movie"})
ROLE_ODDS = 20.0  # how much likelier a chain is when the KG shows the entity in its first relation
# words around a name that does not ask anything yet ("The movie Inside, ...", "Apart from Miko Hughes, ...")
TOPIC_WORDS = frozenset({"the", "a", "an", "about", "so", "ok", "okay", "now", "vs", "versus", "and", "or", "between"}
                        | {w for phrase in EXCLUDING for w in phrase.split()})
# a closing clause that asks nothing ("... and The Wizard of Oz? thank you"): no question for a topic before it
POLITENESS = word_set("politeness")
NAMESAKE_READINGS = 6
MIN_COMPLETE_PROBABILITY = 0.0005  # a complete reading below this classifier probability is not preferred  # the best readings whose namesake films are told apart before the best is chosen
TRUST_WITH_UNKNOWN_WORDS = 0.2  # a reading that leaves unknown words is trusted only when the classifier is this sure
ORIGINAL_WORDS = frozenset({"original", "first", "earliest", "oldest", "older", "classic", "earlier"})
REMAKE_WORDS = frozenset({"remake", "newest", "newer", "latest", "later", "recent", "modern", "new"})
SEE_REQUEST = re.compile(r"\W*(?:(?:yo|hey|hi|hello|ok|okay|so|please|now)\W+)*(?:(?:can|could|may) i (?:please )?(?:see|have a look at)|"
                         r"let me see|show me|i want to see|i'?d like to see)\b", re.I)


@dataclass
class Candidate:
    """One reading of a clause: an entity behind a span, a chain from it, and how well it accounts for the clause."""

    span: Span | None  # None when the topic is a pronoun's referent
    entity: LinkedEntity | None
    chain: str
    probability: float
    score: float
    explanation: Explanation = field(default_factory=Explanation)
    coordinated: list[Span] = field(default_factory=list)  # more names the same question is asked about ("A and B")
    selectors: frozenset[int] = frozenset()  # tokens that chose the film among namesakes ("original", "Olivier's")

    @property
    def final(self) -> float:
        return self.score - self.explanation.penalty


@dataclass
class ClauseReading:
    """What one clause asks, or why it could not be read."""

    asks: list[tuple[LinkedEntity | None, str, float]] = field(default_factory=list)  # (topic, chain, probability)
    referent: str = ""  # the topic is a pronoun: "thing" (an earlier film) or "person"/"any" (an earlier answer)
    topic_only: LinkedEntity | None = None  # the clause names an entity but asks nothing ("I'm curious about X.")
    others: bool = False  # "what else" / "which other": earlier films of the message are left out
    missing: str = ""
    unclear: str = ""
    not_found: list[str] = field(default_factory=list)
    composition: Composition | None = None  # a yes/no check, comparison, superlative, count or filter
    excluded: tuple[str, ...] = ()  # IRIs the answers leave out ("apart from X")


def topic_role(bundle, hop) -> tuple[str, str]:
    """The relation of a chain's first hop and the topic entity's side of its triples ("s" or "o")."""
    forward = bundle.relations[hop.relation].direction == "forward"
    return hop.relation, "s" if forward == hop.to_value else "o"


class Understander:
    """Reads a message into a question plan against one KG."""

    def __init__(self, kg: KG, classifier: ChainClassifier, fuzzy_threshold: float = 90.0):
        self.kg = kg
        self.classifier = classifier
        self.threshold = fuzzy_threshold
        self.vocabulary = classifier.wording
        # "older", "longest", "pls", "vs" are wording too (a misspelt title is looked for between them)
        self.mentions = IndexMentions(kg.labels, self.vocabulary | COMPOSITION_WORDS | STOP | GENERIC)
        chains = supported_chains(kg.bundle)
        self.chain_start = {c.code: c.start for c in chains}
        column = {code: n for n, code in enumerate(classifier.classes)}
        # each relation's one-hop chains (both directions) and the films sharing its value, scored whenever a word
        # of the question names the relation, however the classifier ranks them
        self.cued_columns = {name: tuple(column[code] for code in (chain_code((Hop(name, True),)), chain_code((Hop(name, False),)),
                                                                   chain_code((Hop(name, True), Hop(name, False))))
                                         if code in column) for name in kg.bundle.relations}
        self.chain_role = {c.code: topic_role(kg.bundle, c.hops[0]) for c in chains}
        known = self.vocabulary | {g for g in classifier.vocabulary if " " not in g}
        self.lexicon = Lexicon.from_bundle(kg.bundle, frozenset(known))
        self.composer = Composer(kg, self.lexicon, self.vocabulary)
        self.series = SeriesOrdinals(kg)
        self.overview = OverviewReader(kg.bundle, self.lexicon)
        self.recommendations = RecommendationReader(kg, self)  # hook (issue 31): recommendation requests
        self.speller = Speller(known | self.lexicon.words | COMPOSITION_WORDS)
        # extra mention sources (the Flair NER layer, once loaded): (text, tokens) -> Spans; a span
        # that did not validate against the KG has no ids (it is only recorded in the trace)
        self.span_sources: list[MentionSource] = []
        # the graph is read-only, so these answers never go stale
        self.topic_roles = lru_cache(maxsize=4096)(self._topic_roles)
        self.films_linked = lru_cache(maxsize=1024)(self._films_linked)

    # --- names ----------------------------------------------------------------------------

    def candidate_spans(self, text: str, toks: list[Token], trace: dict | None = None) -> list[Span]:
        """Spans that name KG entities: the mention sources' validated spans and the label index's."""
        proposed = [span for source in self.span_sources for span in source(text, toks)]
        words = [t for t, _, _ in toks]
        spans = [s for s in proposed if s.ids and not (  # a surname tagged alone beside another unknown word: "jacob elordi"
            s.length <= 2 and not self.kg.labels.lookup(s.norm) and self.mentions.inside_longer_name(words, s.tok_start, s.tok_end))]
        index = self.mentions.exact(toks)
        covered = {i for s in index + spans if not self._wording_only(toks, s) and (s.fuzzy_score >= 100 or self._class_variant(s))
                   for i in range(s.tok_start, s.tok_end)}
        index += self.mentions.fuzzy(toks, self.threshold, covered, text)
        seen = {(s.tok_start, s.tok_end, s.norm) for s in spans}
        spans += [s for s in index if (s.tok_start, s.tok_end, s.norm) not in seen]
        if trace is not None and self.span_sources:
            trace["mentions"] = [
                {"text": text[s.start : s.end], "source": s.source, "expects": s.expects,
                 "label": s.norm if s.ids else None, "score": round(s.fuzzy_score, 1)}
                for s in proposed
            ]
            trace["spans_from"] = next((s.source for s in proposed if s.ids), "index")
        spans = [s for s in spans if not self._inside_a_capitalised_name(text, toks, s, spans) and not self._uncapitalised_surname(text, s, spans)]
        spans = self.series.resolve(text, toks, spans)  # "the first Harry Potter film" names one film
        # longest first; keep a bounded number of candidates
        spans.sort(key=lambda s: (-s.length, -s.fuzzy_score, s.tok_start))
        return spans[:MAX_CANDIDATES]

    def _uncapitalised_surname(self, text: str, span: Span, spans: list[Span]) -> bool:
        """A person's surname alone that is also a common word (other names start with it: "Black Swan"), typed in lower
        case in a message that capitalises the titles and names it types: "is Schindler's List in black and white" says
        nothing of Jack Black. ("Tom Hanks films with spielberg" still names Spielberg: no title starts with it.) A surname
        typed in lower case that is a relation's cue word is that word wherever it stands ("won", "star", "cast")."""
        labels = self.kg.labels
        if span.length != 1 or span.source != "variant" or text[span.start : span.end] != text[span.start : span.end].lower():
            return False
        if not all(labels.groups[i] == "person" for i in span.ids):
            return False
        if self.lexicon.is_cue(span.norm):
            return True  # "which films won best picture": the verb, not Han Jin-won
        if all(labels.groups[i] == "person" for i in labels.starting_with(span.norm + " ")):
            return False
        return any(other.fuzzy_score >= 100 and other.source != "variant" and (other.end <= span.start or other.start >= span.end)
                   and text[other.start].isupper() for other in spans)

    @staticmethod
    def _inside_a_capitalised_name(text: str, toks: list[Token], span: Span, spans: list[Span]) -> bool:
        """Whether `span` lies inside a longer exact label whose other words are capitalised as typed
        ("The Hours", "Still Alice", "Cohen and Tate"): the writer wrote the longer name, not the shorter one."""
        for longer in spans:
            if longer is span or longer.fuzzy_score < 100 or longer.length <= span.length:
                continue
            if not (longer.tok_start <= span.tok_start and span.tok_end <= longer.tok_end):
                continue
            extra = [k for k in range(longer.tok_start, longer.tok_end) if not span.tok_start <= k < span.tok_end]
            capitalised = [text[toks[k][1]].isupper() or text[toks[k][1]].isdigit() for k in extra]
            if any(capitalised) and all(c or toks[k][0] in TITLE_FUNCTION_WORDS for c, k in zip(capitalised, extra)):
                return True  # ("Off the Black", "Cohen and Tate": small words stay lowercase in titles)
        return False

    def mask_names(self, text: str, toks, spans: list[Span]) -> str:
        """The text with multi-word names replaced by ENT, so titles like "The Big Picture" or
        "Like Crazy" do not trigger the picture or recommendation cues."""
        chosen, taken = [], set()
        for span in sorted(spans, key=lambda s: (-s.length, s.start)):
            if span.length < 2 or taken & set(range(span.tok_start, span.tok_end)):
                continue
            if self._wording_only(toks, span) and not self._named_film(toks, span):
                continue
            taken.update(range(span.tok_start, span.tok_end))
            chosen.append(span)
        masked = text
        for span in sorted(chosen, key=lambda s: -s.start):
            masked = masked[: span.start] + ENT + masked[span.end :]
        return masked

    def _named_film(self, toks, span: Span) -> bool:
        """A film title made of wording words that the question introduces as one: "the movie Like It Is"."""
        return span.tok_start > 0 and toks[span.tok_start - 1][0] in FILM_CUES and any(
            self.kg.labels.groups[i] == "film" for i in span.ids
        )

    def _class_variant(self, span: Span) -> bool:
        """A generated variant of a genre, country or language ("thriller films", "westerns"): as exact as a label, so
        no misspelt name is looked for in its words (on a 2M-triple graph that search costs ~60 ms)."""
        return span.source == "variant" and all(self.kg.labels.groups[i] not in ("film", "person") for i in span.ids)

    def _wording_only(self, toks, span: Span) -> bool:
        return all(toks[i][0] in self.vocabulary for i in range(span.tok_start, span.tok_end))

    @staticmethod
    def _capitalised_title(text: str, toks, span: Span) -> bool:
        """A title made of question words, written as a title: "Come and See", "loved Once and Frozen II"."""
        if span.fuzzy_score < 100 or span.tok_start == 0 and span.length == 1:
            return False
        return all(text[toks[k][1]].isupper() or toks[k][0] in TITLE_FUNCTION_WORDS for k in range(span.tok_start, span.tok_end)) \
            and text[toks[span.tok_start][1]].isupper()

    def _name_like(self, toks, span: Span) -> bool:
        return not self._wording_only(toks, span) or span.length > 1

    # --- the message ------------------------------------------------------------------------

    def understand(self, text: str, trace: dict | None = None) -> Understanding:
        """What `text` asks; `trace` (the reply trace's detail dict) records where its spans came from."""
        declined = decline_intent(text)
        toks = tokenise(text)
        spans = self.candidate_spans(text, toks, trace) if declined != "injection" else []
        if declined == "arithmetic":  # unless the sum is part of a name
            declined = decline_intent(text, [(s.start, s.end) for s in spans if s.fuzzy_score >= 100 and s.length > 1])
        if declined:
            return Understanding(text, Kind.DECLINE, smalltalk=declined, confidence=1.0)
        names = [s for s in spans if self._name_like(toks, s)]
        # a lowercase word only near a name ("weather" ~ Carl Weathers) does not make small talk a question about it
        typed_names = [s for s in names if s.fuzzy_score >= 100 or any(c.isupper() for c in text[s.start : s.end])]
        intent = social_intent(text, bool(typed_names))
        if intent and any(s.fuzzy_score >= 100 and s.length > 1 and any(c.isupper() for c in text[s.start : s.end]) for s in names):
            intent = ""  # "Nice to Meet You" is also a film title: the question is about a name (as typed, capitalised)
        if intent == "off_topic":
            return Understanding(text, Kind.DECLINE, smalltalk=intent, confidence=1.0)
        if intent:
            return Understanding(text, Kind.SMALLTALK, smalltalk=intent, confidence=1.0)
        shortfall = self.series.shortfall(toks, spans)
        if shortfall is not None:  # "the third Harry Potter film" when the graph has two: not guessed
            named, missing = shortfall
            labels = self.kg.labels
            entity = LinkedEntity(labels.labels[named], labels.iris[named], labels.labels[named], 100.0, labels.groups[named])
            return Understanding(text, Kind.FACTUAL, entities=[entity], missing=missing)
        masked = self.mask_names(text, toks, spans)
        kind, _ = question_kind(masked)
        if kind is Kind.FACTUAL:  # no cue as written: maybe a misspelt one ("recommendatoins", "any fils like X")
            kind, _ = question_kind(" ".join(self.speller(w) for w in masked.split()))
        if kind is Kind.FACTUAL and self._asks_to_see_someone(text, toks, spans):
            kind = Kind.MULTIMEDIA
        if kind is Kind.RECOMMENDATION:  # hook (issue 31): the request reader of bot.understanding.recommendation_request
            return self.recommendations.understand(text, [(self.speller(t), s, e) for t, s, e in toks], spans)
        if kind is not Kind.FACTUAL:
            return Understanding(text, kind, entities=self.all_entities(text, toks, spans), confidence=1.0)
        return self.plan(text, toks, spans)

    def _asks_to_see_someone(self, text: str, toks, spans: list[Span]) -> bool:
        """'show me Tom Hardy', 'let me see Rob Reiner': a person and nothing else is a picture request."""
        starts = [0] + [m.end() for m in re.finditer(r"[.?!:;]\s*", text)]
        match = next((m for start in starts if (m := SEE_REQUEST.match(text, start))), None)
        if not match:
            return False
        rest = [(i, t) for i, (t, s, _) in enumerate(toks) if s >= match.end()]
        for span in spans:
            if any(self.kg.labels.groups[i] == "person" for i in span.ids):
                left = [t for i, t in rest if not span.tok_start <= i < span.tok_end]
                if all(t in self.lexicon.generic_or_stop for t in left) and not set(left) & FILM_WORDS:
                    return True  # "show me Keith David" (but "show me Austin Butler films" asks for his films)
        return False

    def plan(self, text: str, toks: list[Token], spans: list[Span]) -> Understanding:
        """The asks of a factual message, clause by clause, with pronouns resolved to earlier clauses."""
        entities: list[LinkedEntity] = []
        asks: list[Ask] = []
        missing, unclear, not_found = "", "", []
        composition, offset = None, 0
        last_thing: int | None = None  # entity index of the latest film the message talked about
        clauses = self.clauses(text, toks, spans)
        asking = [(a, b) for a, b in clauses if not self._filler(toks, a, b, text[toks[a][1] : toks[b - 1][2]])]
        for a, b in asking or clauses:  # "hey, ...", "... thank you", "(just curious)" ask nothing
            clause_text = text[toks[a][1] : toks[b - 1][2]]
            reading = self.read_clause(text, toks, spans, a, b, context=entities[last_thing] if last_thing is not None else None,
                                       earlier_answer=bool(asks))
            if reading.topic_only is not None and asks and not reading.asks and self._only_a_topic(toks, spans, a, b) \
                    and reading.topic_only.group == entities[asks[-1].topic].group and asks[-1].after is None:
                # "who made Top Gun: Maverick? and Harry Potter and the Philosopher's Stone?": the same question again
                entities.append(reading.topic_only)
                asks.append(replace(asks[-1], topic=len(entities) - 1, text=clause_text))
                if reading.topic_only.group == "film":
                    last_thing = len(entities) - 1
                continue
            if reading.topic_only is not None and not reading.asks and not reading.composition and not reading.not_found:
                overview = self.overview.read(Clause(text, toks, a, b, spans), reading.topic_only)
                if overview is not None:  # "tell me about Heat", "Heat?"
                    reading = ClauseReading(composition=Composition(entities=[reading.topic_only], overview=overview))
            if reading.topic_only is not None:
                entities.append(reading.topic_only)
                last_thing = len(entities) - 1
            families = self._families(toks, a, b, reading)
            for topic, code, probability in reading.asks:
                chain = parse_chain(code)
                if topic is None:  # a pronoun
                    if reading.referent == "thing" and last_thing is not None:
                        asks.append(Ask(chain, last_thing, None, clause_text, probability, reading.others, families(chain), reading.excluded))
                    else:
                        asks.append(Ask(chain, 0, len(asks) - 1, clause_text, probability, reading.others, families(chain), reading.excluded))
                    continue
                entities.append(topic)
                asks.append(Ask(chain, len(entities) - 1, None, clause_text, probability, reading.others, families(chain), reading.excluded))
                if topic.group == "film":
                    last_thing = len(entities) - 1
            if reading.composition is not None and composition is None:
                composition, offset = reading.composition, len(entities)
                entities += composition.entities
                composed_asks = len(asks), len(asks) + len(composition.asks)
                asks += [replace(ask, topic=ask.topic + offset, text=ask.text or clause_text) for ask in composition.asks]
                films = [n for n, e in enumerate(composition.entities) if e.group == "film"]
                if len(films) == 1:  # "how many Oscars did The Godfather win and who directed it": "it" is that film
                    last_thing = offset + films[0]
            missing = missing or reading.missing
            unclear = unclear or reading.unclear
            not_found += reading.not_found
            if len(asking) > 1 and not (reading.asks or reading.composition or reading.topic_only or reading.missing
                                         or reading.unclear or reading.not_found):
                # a question of several that yields nothing ("... and who composed its music?" after a superlative)
                unclear = unclear or f'what "{clause_text}" asks'
        if composition is not None:
            first, last = composed_asks
            # the message's other questions ("... and who directed it?") are answered beside the composition, not dropped
            also = [Understanding(a.text or text, Kind.FACTUAL, a.chain, [entities[a.topic]], a.confidence, asks=[replace(a, topic=0)])
                    if a.after is None else  # "... and who composed its music?" about the composition's answer: said, not guessed
                    Understanding(a.text or text, Kind.FACTUAL, unclear=f'how to answer "{a.text}" about that answer')
                    for n, a in enumerate(asks) if not first <= n < last]
            if unclear:  # a clause beside the composition that was not understood is said, not dropped
                also.append(Understanding(text, Kind.FACTUAL, unclear=unclear))
            composed = self._composed_understanding(text, entities, asks[first:last], composition, offset, missing, not_found)
            composed.also = also
            return composed
        if not asks:
            if missing or unclear:
                return Understanding(text, Kind.FACTUAL, entities=entities, missing=missing, unclear=unclear, not_found=not_found)
            if entities:  # "I'm curious about Heat."
                return Understanding(text, Kind.FACTUAL, entities=entities, unclear="what you would like to know about it")
            return Understanding(text, Kind.UNKNOWN, not_found=not_found or self.unexplained(text, toks))
        first = asks[0]
        return Understanding(text, Kind.FACTUAL, first.chain, entities, min(a.confidence for a in asks), not_found, asks=asks,
                             shared=self._shared_asks(toks, asks, entities), missing=missing, unclear=unclear)

    @staticmethod
    def _shared_asks(toks: list[Token], asks: list[Ask], entities: list[LinkedEntity]) -> Shared | None:
        """'Which actors appeared in films by both Scorsese and Coppola?': one clause asking the same chain of two or
        more names with "both" (or "in common") wants what the answers have in common, not each name's answers."""
        words = {t[0] for t in toks}
        if not words & {"both", "common"} or len(asks) < 2 or toks[0][0] in YES_NO_START:
            return None  # (a yes/no "are X and Y both directors?", "were both released in the 80s?" checks each one)
        if any(a.after is not None or a.chain != asks[0].chain or a.text != asks[0].text for a in asks):
            return None
        topics = tuple(sorted(dict.fromkeys(a.topic for a in asks), key=lambda t: entities[t].start))  # in the order said
        if len(topics) != len(asks) or len({entities[t].group for t in topics}) != 1:
            return None
        return Shared(asks[0].chain, topics)

    def _filler(self, toks, a: int, b: int, clause_text: str) -> bool:
        """A clause that asks nothing: politeness, thanks, a smiley."""
        words = [toks[k][0] for k in range(a, b)]
        if any(w in QUESTION_WORDS for w in words):
            return False  # "and when?"
        return all(w in self.lexicon.generic_or_stop for w in words) or bool(social_intent(clause_text, False))

    def _families(self, toks, a: int, b: int, reading: ClauseReading):
        """'Which Oscars did Roma win': of the awards, only the Academy Awards answer."""
        oscars = OSCAR_WORDS & {toks[k][0] for k in range(a, b)}
        award = self.composer.award

        def families(chain) -> tuple[str, ...]:
            return self.composer.oscars if oscars and chain and chain[-1].to_value and chain[-1].relation == award else ()

        return families

    @staticmethod
    def _composed_understanding(text, entities, asks, composition: Composition, offset: int, missing: str, not_found) -> Understanding:
        def shifted(indices):
            return tuple(i + offset for i in indices)

        comparison = composition.comparison
        if comparison is not None:
            comparison = replace(comparison, entities=shifted(comparison.entities))
        verification = composition.verification
        if verification is not None:
            verification = replace(verification, topic=verification.topic + offset,
                                   value=None if verification.value is None else verification.value + offset)
        shared = composition.shared
        if shared is not None:
            shared = replace(shared, entities=shifted(shared.entities))
        overview = composition.overview
        if overview is not None:
            overview = replace(overview, topic=overview.topic + offset)
        first = asks[0].chain if asks else ()
        return Understanding(text, Kind.FACTUAL, first, entities, 1.0, list(not_found), asks=asks, constraints=list(composition.constraints),
                             aggregate=composition.aggregate, comparison=comparison, verification=verification, shared=shared, overview=overview,
                             missing=missing)

    def clauses(self, text: str, toks: list[Token], spans: list[Span]) -> list[tuple[int, int]]:
        """Token ranges of the message's questions: split at sentence ends and at 'and'/',' before a new
        question ("... and when was it released"), never inside a name."""
        if not toks:
            return []
        inside = set()
        for s in spans:
            if s.fuzzy_score < 90:
                continue
            if self._name_like(toks, s):
                inside.update(range(s.tok_start + 1, s.tok_end))
            labels = [self.kg.labels.labels[i].strip() for i in s.ids]
            after = text[toks[s.tok_end - 1][2] : toks[s.tok_end][1]] if s.tok_end < len(toks) else ""
            before = text[toks[s.tok_start - 1][2] : toks[s.tok_start][1]] if s.tok_start > 0 else ""
            if any(label[-1:] in "?!." and self._only_the_mark(after, label[-1]) for label in labels):
                inside.add(s.tok_end)  # "Who Is Cletis Tout?", "Star! released": the mark belongs to the title
            if any(label[:1] in "?!." and self._only_the_mark(before, label[0]) for label in labels):
                inside.add(s.tok_start)  # "...All the Marbles"
        cuts = [0]
        for k in range(1, len(toks)):
            if k in inside:
                continue
            between = text[toks[k - 1][2] : toks[k][1]]
            word = toks[k][0]
            if between in (".", ",") and toks[k - 1][0].isdigit() and word.isdigit():
                continue  # a decimal or grouped number ("2.5 hours", "$1,000,000") ends no sentence
            if re.search(r"[.?!;\n]", between):
                cuts.append(k)
            elif word in ("and", "also", "plus") and k + 1 < len(toks) and toks[k + 1][0] in QUESTION_START:
                cuts.append(k)
            elif "," in between and word in QUESTION_START and word not in ("is", "are", "was", "were", "has", "have", "had", "do", "does", "did"):
                cuts.append(k)
        ranges: list[tuple[int, int]] = []
        topic = None
        bounds = list(zip(cuts, cuts[1:] + [len(toks)]))
        for n, (a, b) in enumerate(bounds):
            while a < b and toks[a][0] in ("and", "also", "plus", "then"):
                a += 1
            if a >= b:
                continue
            if topic is not None:
                a, topic = topic, None
            polite_next = n + 1 < len(bounds) and all(toks[k][0] in POLITENESS for k in range(*bounds[n + 1]))
            if b < len(toks) and not polite_next and self._only_a_topic(toks, spans, a, b):
                topic = a  # "the movie Inside, when was it released": the name is the next question's subject
                continue
            ranges.append((a, b))
        return ranges

    @staticmethod
    def _only_the_mark(between: str, mark: str) -> bool:
        """Whether the text between two words holds the title's own mark and no sentence end besides
        ("Good Bye, Lenin!? and who ..." ends a question after the title's "!")."""
        return mark in between and not re.search(r"[.?!;\n]", between.strip().strip(mark))

    def _only_a_topic(self, toks: list[Token], spans: list[Span], a: int, b: int) -> bool:
        """Whether tokens a..b only name something ("The movie Inside", "Heat"), asking nothing yet."""
        named = set()
        for s in spans:
            if a <= s.tok_start and s.tok_end <= b and s.fuzzy_score >= 90 and self._name_like(toks, s):
                named.update(range(s.tok_start, s.tok_end))
        return bool(named) and all(k in named or toks[k][0] in FILM_WORDS or toks[k][0] in TOPIC_WORDS for k in range(a, b))

    # --- one clause -------------------------------------------------------------------------

    def read_clause(self, text: str, toks: list[Token], spans: list[Span], a: int, b: int,
                    context: LinkedEntity | None, earlier_answer: bool) -> ClauseReading:
        clause_spans = [s for s in spans if a <= s.tok_start and s.tok_end <= b]
        composed = self._composed(text, toks, spans, a, b)
        if composed is not None:
            return composed
        excluded, excluding = self._exclusions(text, toks, clause_spans, a, b)
        if excluded:
            clause_spans = [s for s in clause_spans if not set(range(s.tok_start, s.tok_end)) & excluding]
            reading = self._read_with(text, toks, clause_spans, a, b, context, earlier_answer, frozenset(excluding))
            reading.excluded = tuple(dict.fromkeys(e.iri for e in excluded))
        else:
            reading = self._read_with(text, toks, clause_spans, a, b, context, earlier_answer, frozenset())
        negation = self._negation(toks, a, b, excluding | {k for s in clause_spans for k in range(s.tok_start, s.tok_end)})
        if negation and reading.asks:
            # "which films did Nolan not direct": a chain answers the question without its "not" -- the opposite
            topic = next((topic for topic, _, _ in reading.asks if topic is not None), None)
            return ClauseReading(topic_only=topic, unclear=f'how "{negation}" fits the question')
        return reading

    @staticmethod
    def _negation(toks: list[Token], a: int, b: int, skip: set[int]) -> str:
        """A "not", "never" or "-n't" inside the clause (not its opening "didn't ...?" or "isn't ...?", which asks
        yes or no), as written; "" when there is none."""
        start = a
        while start < b and toks[start][0] in FILLER_START:
            start += 1
        for k in range(start + 1, b):
            word = toks[k][0]
            if k in skip:
                continue
            if contracted_not(toks, k) and k - 1 > start:
                return toks[k - 1][0] + "'t"
            if word in ("not", "never"):
                return word
        return ""

    def _with_selectors(self, candidate: Candidate, tokens: frozenset[int], toks, a: int, b: int) -> Candidate:
        chosen = replace(candidate, selectors=candidate.selectors | tokens)
        chosen.explanation = self._explain(toks, a, b, chosen, chosen.entity)
        return chosen

    def _exclusions(self, text: str, toks, clause_spans: list[Span], a: int, b: int) -> tuple[list[LinkedEntity], set[int]]:
        """Names the answers must leave out, and the tokens that said so: "apart from X", "besides X",
        "except X", "other than X", "alongside X" (with "else", which they explain)."""
        found, tokens_used = [], set()
        names = sorted((s for s in clause_spans if self._name_like(toks, s) and s.fuzzy_score >= 90), key=lambda s: (s.tok_start, -s.length))
        for span in names:
            said = excluding_words(toks, a, span.tok_start, EXCLUDING)
            # "besides De Niro and Pacino": the names joined to an excluded one are left out too
            joined = tokens_used and span.tok_start - 1 in tokens_used | {max(tokens_used) + 1} and (
                toks[span.tok_start - 1][0] in ("and", "or") or "," in text[toks[span.tok_start - 1][2] : span.start])
            if said or joined:
                entity = self._link(text, span, None, [])
                if entity is not None:
                    found.append(entity)
                    tokens_used |= (said or {span.tok_start - 1}) | set(range(span.tok_start, span.tok_end))
        if found:
            tokens_used |= {k for k in range(a, b) if toks[k][0] in ("else", "other", "others")}
        return found, tokens_used

    def _read_with(self, text: str, toks: list[Token], clause_spans: list[Span], a: int, b: int,
                   context: LinkedEntity | None, earlier_answer: bool, explained: frozenset[int]) -> ClauseReading:
        pronoun = next((k for k in range(a, b) if toks[k][0] in PRONOUNS
                        and not any(s.tok_start <= k < s.tok_end and self._name_like(toks, s) for s in clause_spans)), None)
        candidates = self.candidates(text, toks, clause_spans, a, b)
        if pronoun is not None:
            referent = PRONOUNS[toks[pronoun][0]]
            group = context.group if referent == "thing" and context is not None else None
            if referent != "thing" and earlier_answer:
                group = "person"
            if group is not None or (referent == "thing" and context is not None):
                candidates += self.pronoun_candidates(text, toks, a, b, pronoun, group or "film", context if referent == "thing" else None)
        elif context is not None and not any(s.ids for s in clause_spans) and a > 0:
            # "When did Encanto come out? And who was the director": the earlier clause's film, left unsaid
            candidates += self.pronoun_candidates(text, toks, a, b, None, context.group, context)
            pronoun = -1
        if explained:  # the words that said what to leave out are accounted for
            candidates = [self._with_selectors(c, explained, toks, a, b) for c in candidates]
        years = [int(y) for y in YEAR.findall(text)]
        if not candidates:
            reading = ClauseReading()
            topic = self._topic_only(text, toks, clause_spans, years)
            if topic is not None:
                reading.topic_only = topic
            else:
                clause = toks[a:b]
                reading.not_found = [text[clause[x][1] : clause[y - 1][2]] for x, y in self.mentions.residual_runs(clause)]
            return reading
        # a film among namesakes is told apart by the clause's other words ("the Halloween with Donald
        # Pleasence"): read those words as its selector before comparing readings
        ranked = sorted(candidates, key=lambda c: -c.final)
        candidates = [self._select_among_namesakes(c, text, toks, clause_spans, a, b) if n < NAMESAKE_READINGS else c
                      for n, c in enumerate(ranked)]
        # a reading that accounts for every word beats one that leaves words unexplained (which would only
        # say "not sure"), unless the classifier all but rules it out
        complete = [c for c in candidates if c.explanation.complete and c.probability >= MIN_COMPLETE_PROBABILITY]
        best = max(complete or candidates, key=lambda c: c.final)
        best = self._main_role_reading(best, toks, a, b)
        best = self._with_more_relations(best, text, toks, a, b) or best
        reading = ClauseReading(others=bool(set(self._content(toks, a, b, best)) & SHARE_CUES))
        extended = self._longer_title(text, toks, best, b)
        if extended:
            reading.not_found = [extended]
            return reading
        explanation = best.explanation
        if explanation.unsupported:
            reading.missing = explanation.unsupported[0]
            if best.entity is not None:
                reading.topic_only = best.entity
            return reading
        unknown_name = self._unknown_name(text, toks, a, b, best) or self._film_of_another_year(toks, a, b, best)
        if unknown_name:  # "did X direct the third harry potter movie": a name the graph lacks is not a detail to skip
            reading.not_found = [unknown_name]
            return reading
        guessing = explanation.unknown and best.probability < TRUST_WITH_UNKNOWN_WORDS
        if explanation.other_cues or explanation.unevidenced or explanation.answer_type or guessing:
            reading.unclear = self._unclear_words(explanation, toks, a, b) or "what you would like to know"
            if best.entity is not None:
                reading.topic_only = best.entity
            return reading
        if best.span is None:
            reading.referent = PRONOUNS[toks[pronoun][0]] if pronoun is not None and pronoun >= 0 else "thing"
            reading.asks = [(None, best.chain, best.probability)]
            return reading
        multi = best.chain.split(";")
        topics = [best.entity] + [e for e in (self._link(text, s, best.entity.group, years) for s in best.coordinated) if e is not None]
        reading.asks = [(topic, code, best.probability) for topic in topics for code in multi]
        reading.not_found = self._unknown_list_members(text, toks, a, b, best)
        return reading

    def _unknown_list_members(self, text: str, toks, a: int, b: int, best: Candidate) -> list[str]:
        """Words no vocabulary knows listed with the names ("Who directed Heat and Casino?" when the graph has
        no Casino): the reply says it could not find them instead of leaving them out silently."""
        unknown = set(best.explanation.unknown)
        names = ([best.span] if best.span else []) + best.coordinated
        if not unknown or not names:
            return []
        named = {k for s in names for k in range(s.tok_start, s.tok_end)}
        found = []
        for s in names:
            for k, step in ((s.tok_end, 1), (s.tok_start - 1, -1)):
                if not a <= k < b or toks[k][0] not in ("and", "or", "&") and "," not in text[toks[k - 1][2] : toks[k][1]]:
                    continue
                j = k + step if toks[k][0] in ("and", "or", "&") else k
                run = []
                while a <= j < b and j not in named and self.speller(toks[j][0]) in unknown:
                    run.append(j)
                    j += step
                if run:
                    lo, hi = min(run), max(run)
                    found.append(text[toks[lo][1] : toks[hi][2]])
        return list(dict.fromkeys(found))

    def _unknown_name(self, text: str, toks, a: int, b: int, best: Candidate) -> str:
        """Two or more adjacent words no vocabulary knows, or one capitalised inside the message ("Did Peter Jackson
        direct The Hobbit?"), outside the reading's names: a name the graph does not have (the question is about it,
        so answering the rest would answer another question)."""
        unknown = set(best.explanation.unknown)
        if not unknown:
            return ""
        skip = set(best.selectors)
        for span in ([best.span] if best.span else []) + best.coordinated:
            skip.update(range(span.tok_start, span.tok_end))
        run: list[int] = []
        for k in range(a, b + 1):
            if k < b and k not in skip and self.speller(toks[k][0]) in unknown:
                run.append(k)
                continue
            if len(run) >= 2:
                return text[toks[run[0]][1] : toks[run[-1]][2]]
            vocative = run and "," in text[toks[run[0] - 1][2] : toks[run[0]][1]]  # "..., Sir": someone addressed
            known = run and self.kg.labels.lookup_any(toks[run[0]][0])  # part of a name the graph has ("the one with De Niro")
            if len(run) == 1 and run[0] > 0 and text[toks[run[0]][1]].isupper() and not vocative and not known:
                first = run[0] - 1 if run[0] - 1 > a and toks[run[0] - 1][0] in ("the", "a", "an") and text[toks[run[0] - 1][1]].isupper() else run[0]
                return text[toks[first][1] : toks[run[0]][2]]  # with its capitalised article: "The Hobbit"
            run = []
        return ""

    @staticmethod
    def _film_of_another_year(toks, a: int, b: int, best: Candidate) -> str:
        """'Dune 1984' or 'the 1984 Dune' when the graph's only Dune is from 2021: the film asked about is not in the
        graph (namesakes of that year were already chosen by it), so its answers would be another film's."""
        entity, span = best.entity, best.span
        if entity is None or span is None or entity.group != "film" or not entity.year or entity.selected_by:
            return ""
        near = [k for k in (span.tok_start - 1, span.tok_start - 2, span.tok_end, span.tok_end + 1) if a <= k < b]
        years = [int(toks[k][0]) for k in near if YEAR.fullmatch(toks[k][0])]
        if years and all(abs(year - entity.year) > 1 for year in years):  # (a festival premiere may be a year early)
            return f"{entity.label} ({years[0]})"
        return ""

    def _select_among_namesakes(self, best: Candidate, text: str, toks, clause_spans: list[Span], a: int, b: int) -> Candidate:
        """Films that share a title are told apart by a year, by 'the original' / 'the remake', or by a person
        the question names with it ("Olivier's Hamlet", "the Halloween with Donald Pleasence")."""
        entity = best.entity
        if best.span is None or entity is None or entity.group != "film" or not entity.alternatives:
            return best
        films = [{"iri": entity.iri, "label": entity.label, "year": entity.year}] + [
            alt for alt in entity.alternatives if alt.get("group") == "film" and alt.get("year")]
        if len(films) < 2 or not entity.year:
            return best
        years = {int(y) for y in YEAR.findall(text)}
        content = [toks[k][0] for k in range(a, b) if not best.span.tok_start <= k < best.span.tok_end]
        chosen, by, used = None, "", set()
        dated = [f for f in films if f["year"] in years]
        if dated:
            if dated[0]["iri"] == entity.iri:
                return replace(best, entity=replace(entity, selected_by="year"))
            chosen, by = dated[0], "year"
        elif set(content) & ORIGINAL_WORDS:
            chosen, by = min(films, key=lambda f: f["year"]), "original"
            used = {k for k in range(a, b) if toks[k][0] in ORIGINAL_WORDS}
        elif set(content) & REMAKE_WORDS:
            chosen, by = max(films, key=lambda f: f["year"]), "newest"
            used = {k for k in range(a, b) if toks[k][0] in REMAKE_WORDS}
        else:
            for span in clause_spans:
                if span is best.span or span.tok_start < best.span.tok_end and best.span.tok_start < span.tok_end:
                    continue
                person = self._link(text, span, "person", [])
                if person is None:
                    continue
                with_person = self.films_linked(tuple(f["iri"] for f in films), person.iri)
                linked = [f for f in films if f["iri"] in with_person]
                if len(linked) == 1:
                    chosen, by, used = linked[0], "person", set(range(span.tok_start, span.tok_end))
                    break
        if chosen is None:
            chosen = self._spelled_exactly(text, toks, best.span, films)
            by = "spelling"
        if chosen is None:
            return best
        others = [alt for alt in [{"iri": entity.iri, "label": entity.label, "year": entity.year, "degree": None, "group": "film"},
                                  *entity.alternatives] if alt["iri"] != chosen["iri"]]
        picked = replace(entity, iri=chosen["iri"], label=chosen["label"], year=chosen["year"], alternatives=others, selected_by=by)
        candidate = replace(best, entity=picked, selectors=best.selectors | frozenset(used))
        candidate.explanation = self._explain(toks, a, b, candidate, picked)
        return candidate

    def _films_linked(self, films: tuple[str, ...], person: str) -> frozenset[str]:
        """Those of `films` that `person` is linked to (cached in __init__: the clause's best readings often share
        their film and ask again)."""
        rows = self.kg.graph.select(queries.films_linked_to(list(films), person))
        return frozenset(r["film"].value for r in rows if r.get("film") is not None)

    def _main_role_reading(self, best: Candidate, toks, a: int, b: int) -> Candidate:
        """"The films of Bong Joon-ho": when no word says which of a person's roles the question goes through,
        a role most of their films have (he directed more than he produced), the bundle's first of those -- not
        whichever role the classifier happened to rank first."""
        if best.entity is None or best.entity.group != "person" or ";" in best.chain:
            return best
        chain = parse_chain(best.chain)
        first = chain[0].relation
        if chain[0].to_value or self.lexicon.cues.get(first, frozenset()) & set(self._content(toks, a, b, best)):
            return best
        roles = {r for r in self.composer.roles_of(best.entity)}
        if len(roles) < 2:
            return best
        counts = self.composer.films_per_role(best.entity, roles)
        top = max(counts.values(), default=0)
        order = list(self.kg.bundle.relations)
        # the roles with at least half as many films as the commonest (as Composer.main_roles), and of those the one
        # the bundle lists first: Andrew Stanton wrote four films and directed two, and "his movies" are those he directed
        main = min((r for r in counts if counts[r] * 2 >= top), key=lambda r: order.index(r) if r in order else len(order), default=first)
        if main == first:
            return best
        code = chain_code((Hop(main, False), *chain[1:]))
        if code not in self.chain_start:
            return best
        candidate = replace(best, chain=code)
        candidate.explanation = self._explain(toks, a, b, candidate, best.entity)
        return candidate if candidate.explanation.penalty <= best.explanation.penalty else best

    @staticmethod
    def _spelled_exactly(text: str, toks, span: Span, films: list[dict]) -> dict | None:
        """The one namesake whose title is exactly what was typed ("Up" rather than "Up!", "Brüno" rather
        than "Bruno"); none when the spelling does not tell them apart."""
        start, end = toks[span.tok_start][1], toks[span.tok_end - 1][2]
        if len({f["label"] for f in films}) < 2:
            return None
        for typed in (text[start:end + 1], text[start:end]):  # with a trailing "!" first
            for same in (str, str.casefold):  # "LUV" rather than "Luv"; then regardless of case
                exact = [f for f in films if same(f["label"]) == same(typed)]
                if len(exact) == 1:
                    return exact[0]
        return None

    def _composed(self, text: str, toks, spans: list[Span], a: int, b: int) -> ClauseReading | None:
        """The clause as a compositional question, when it reads as one and accounts for its words."""
        spelled = [(self.speller(t), s, e) for t, s, e in toks]  # "lonest" -> "longest", "moives" -> "movies"
        composition = self.composer.read(text, spelled, spans, a, b, self._name_like)
        if composition is None:
            return None
        content = [self.speller(toks[k][0]) for k in range(a, b) if k not in composition.used]
        chain = tuple(Hop(r, True) for r in sorted(composition.relations))
        explanation = self.lexicon.explain(content, chain, bool(set(content) & FILM_WORDS), set())
        if explanation.unsupported:
            return ClauseReading(missing=explanation.unsupported[0], topic_only=composition.entities[0] if composition.entities else None)
        if explanation.other_cues:
            return None
        if explanation.unknown and not composition.entities:
            return None  # "Which is Joon-ho's earliest film": an unknown name would widen the question to the whole graph
        return ClauseReading(composition=composition)

    def _unclear_words(self, explanation: Explanation, toks: list[Token], a: int, b: int) -> str:
        """The first word the reading could not account for, as the user wrote it (the speller read "order" as
        "older"; the reply quotes "order")."""
        words = list(explanation.other_cues) + list(explanation.unknown)
        if not words:
            return ""
        written = next((toks[k][0] for k in range(a, b) if toks[k][0] == words[0]), None) or \
            next((toks[k][0] for k in range(a, b) if self.speller(toks[k][0]) == words[0]), words[0])
        return f"how \"{written}\" fits the question"

    def _topic_only(self, text, toks, clause_spans, years) -> LinkedEntity | None:
        names = [s for s in clause_spans if self._name_like(toks, s)]
        for span in sorted(names, key=lambda s: (-s.length, -s.fuzzy_score)):
            entity = self._link(text, span, None, years)
            if entity is not None and span.fuzzy_score >= 95:
                return entity
        return None

    def _link(self, text: str, span: Span, group: str | None, years: list[int]) -> LinkedEntity | None:
        return link_span(span, text, self.kg.labels, group, years)

    def _content(self, toks: list[Token], a: int, b: int, candidate: Candidate) -> list[str]:
        """The clause's words outside the candidate's names (spelling corrected to the wording words)."""
        skip = set(candidate.selectors)
        for span in ([candidate.span] if candidate.span else []) + candidate.coordinated:
            skip.update(range(span.tok_start, span.tok_end))
        return [self.speller(toks[k][0]) for k in range(a, b) if k not in skip and toks[k][0] not in PRONOUNS]

    def candidates(self, text: str, toks: list[Token], spans: list[Span], a: int, b: int) -> list[Candidate]:
        """Every (entity, chain) reading of the clause, scored and checked against its words."""
        spans = [s for s in spans if s.ids]
        if not spans:
            return []
        clause_start, clause_end = toks[a][1], toks[b - 1][2]
        groups = {id(s): self._coordinated(text, toks, s, spans) for s in spans}
        masked = []
        for span in spans:
            members = [span] + groups[id(span)]
            start, end = min(m.start for m in members), max(m.end for m in members)
            masked.append(text[clause_start:start] + ENT + text[end:clause_end])
        probs = self.classifier.predict(masked)
        classes = self.classifier.classes
        years = [int(y) for y in YEAR.findall(text)]
        order = probs.argsort(axis=1)[:, ::-1]
        found = []
        # a span's chains share few (start group, role) pairs: link it once per pair (at 20M triples a span can name
        # dozens of namesakes, and each link ranks them all)
        ranked: dict[tuple, Namesakes] = {}
        linked: dict[tuple, LinkedEntity | None] = {}

        def link(span: Span, group: str | None, role: tuple[str, str] | None) -> LinkedEntity | None:
            if (id(span), group) not in ranked:
                ranked[id(span), group] = namesakes(span, text, self.kg.labels, group, years)
            if (id(span), group, role) not in linked:
                linked[id(span), group, role] = link_span(span, text, self.kg.labels, group, years, role, ranked[id(span), group])
            return linked[id(span), group, role]

        for row, span in enumerate(spans):
            wording = sum(toks[i][0] in self.vocabulary for i in range(span.tok_start, span.tok_end))
            length = span.length - wording / 2  # "movie Crazy" is a weaker name than "Crazy Heart"
            prior = LENGTH_WEIGHT * length - (100 - span.fuzzy_score) / 10
            if self._wording_only(toks, span):
                prior -= WORDING_PENALTY
            outside = {self.speller(toks[k][0]) for k in range(a, b) if not span.tok_start <= k < span.tok_end}
            cued = [self.cued_columns[r] for r, cues in self.lexicon.cues.items() if r in self.cued_columns and cues & outside]
            columns = list(order[row][:MAX_CHAINS_PER_SPAN])
            columns += [c for pair in cued for c in pair if c not in columns]  # the relations the words name, however ranked
            ignored = words = None
            for col in columns:
                chain, p = classes[col], float(probs[row, col])
                start = self.chain_start.get(chain)
                entity = link(span, start, self.chain_role.get(chain))
                plays_role = entity is not None
                if entity is None:
                    entity = link(span, start, None)
                    if entity is None:
                        continue
                score = math.log(max(p, 1e-9)) + prior - (0.0 if plays_role else math.log(ROLE_ODDS))
                candidate = Candidate(span, entity, chain, p, score, coordinated=groups[id(span)])
                if words is None:  # the same for every chain of the span
                    words = self._clause_words(toks, a, b, candidate)
                candidate.explanation = self._explain(toks, a, b, candidate, entity, words)
                if ignored is None:  # the same for every chain of the span
                    ignored = self._ignored_names(text, toks, spans, candidate)
                if ignored:
                    candidate.explanation = replace(candidate.explanation, other_cues=candidate.explanation.other_cues + ignored)
                found.append(candidate)
        return found

    def _ignored_names(self, text: str, toks, spans: list[Span], candidate: Candidate) -> tuple[str, ...]:
        """Other names of the clause, written as names, that the reading leaves out ("Richard Dreyfuss was in Stand
        by Me - who were the co-stars" read about Dreyfuss alone answers another question)."""
        used = [candidate.span, *candidate.coordinated]
        taken = {k for s in used for k in range(s.tok_start, s.tok_end)} | set(candidate.selectors)
        ignored = []
        first = min(s.tok_start for s in spans)
        for span in spans:
            if span.fuzzy_score < 100 or any(k in taken for k in range(span.tok_start, span.tok_end)):
                continue
            if self._wording_only(toks, span) or not text[span.start].isupper():
                continue
            if span.length == 1 and (span.tok_start == 0 or span.tok_start == first and not text[: span.start].strip()):
                continue  # one capitalised word opening the message may only be capitalised for that
            if any(self.kg.labels.groups[i] in ("film", "person") for i in span.ids):
                ignored.append(span.norm)
        return tuple(ignored)

    def pronoun_candidates(self, text: str, toks: list[Token], a: int, b: int, pronoun: int | None, group: str,
                           referent: LinkedEntity | None) -> list[Candidate]:
        """Readings of a clause whose topic is a pronoun: 'when was it released' -> the film named before;
        `pronoun` None: the topic is left unsaid ("and who was the director?"), read as if named at the end."""
        if pronoun is None:
            said = text[toks[a][1] : toks[b - 1][2]]
            masked = f"{said} {ENT}" if toks[b - 1][0] in QUESTION_WORDS else f"{said} of {ENT}"  # "and when?" / "and the director?"
        else:
            start, end = toks[pronoun][1], toks[pronoun][2]
            masked = text[toks[a][1] : start] + ENT + ("'s" if toks[pronoun][0] in ("its", "his", "her", "their") else "") + text[end : toks[b - 1][2]]
        probs = self.classifier.predict([masked])[0]
        found = []
        for col in probs.argsort()[::-1][:MAX_CHAINS_PER_SPAN]:
            chain, p = self.classifier.classes[col], float(probs[col])
            if self.chain_start.get(chain) != group:
                continue
            candidate = Candidate(None, referent, chain, p, math.log(max(p, 1e-9)) + 1.0)
            candidate.explanation = self._explain(toks, a, b, candidate, referent)
            found.append(candidate)
        return found

    def _clause_words(self, toks, a: int, b: int, candidate: Candidate) -> tuple[list[str], str]:
        """The clause's content words outside the candidate's names, and the kind of answer its wording asks for: the same
        for every chain read from one name (a clause has ~20 readings, a few names)."""
        names = set()
        for span in ([candidate.span] if candidate.span else []) + candidate.coordinated:
            names.update(range(span.tok_start, span.tok_end))
        return self._content(toks, a, b, candidate), expected_answer([toks[k][0] for k in range(a, b) if k not in names])

    def _explain(self, toks, a: int, b: int, candidate: Candidate, entity: LinkedEntity | None,
                 words: tuple[list[str], str] | None = None) -> Explanation:
        """How the candidate's chain accounts for the clause; `words`: its _clause_words, when already known."""
        content, expected = words or self._clause_words(toks, a, b, candidate)
        idx = self.kg.labels.by_iri.get(entity.iri) if entity is not None else None
        roles = self.topic_roles(idx) if idx is not None else frozenset()
        chain = tuple(h for code in candidate.chain.split(";") for h in parse_chain(code))
        explanation = self.lexicon.explain(content, chain, bool(set(content) & FILM_WORDS), roles)
        if entity is not None and entity.group != "film" and (years := tuple(w for w in content if YEAR.fullmatch(w))):
            # "the composer of the film Ridley Scott directed in 1982": a chain from a person cannot use the year, and
            # without it would answer about all of his films (a film's reading may use a year to tell namesakes apart)
            explanation = replace(explanation, other_cues=explanation.other_cues + years)
        given = self._answer_type(chain[-1]) if ";" not in candidate.chain else "value"
        if expected and given != expected and given != "value" and not (expected == "place" and given in PLACE_GROUPS):
            explanation = replace(explanation, answer_type=expected)
        first = self._first_hop_named(toks, a, candidate)
        if first and chain[0].relation not in first:
            # "films for the director of X": the relation named right before the name is the first step from it
            explanation = replace(explanation, unevidenced=explanation.unevidenced + ("first step",))
        last = chain[-1].relation
        if expected and expected == given and last in explanation.unevidenced and self.lexicon.through.get(last, frozenset()) & set(content) - WEAK_CUES:
            # "adapted from whose novel?": the work's words and a question for a person ask for its author
            explanation = replace(explanation, unevidenced=tuple(r for r in explanation.unevidenced if r != last))
        if expected == given == "date" and chain[-1].relation in explanation.unevidenced:
            # "... and when?": the question word asks for the date itself
            explanation = replace(explanation, unevidenced=tuple(r for r in explanation.unevidenced if r != chain[-1].relation))
        return explanation

    def _topic_roles(self, idx: int) -> frozenset[str]:
        """The relations the label index's entity `idx` takes part in as a film's value (cached in __init__: every
        reading of a clause asks about its entity, ~30 readings a question)."""
        return frozenset(name for name, rel in self.kg.bundle.relations.items()
                         if self.kg.labels.has_role(idx, name, "o" if rel.direction == "forward" else "s"))

    def _first_hop_named(self, toks, a: int, candidate: Candidate) -> frozenset[str]:
        """The relations of a noun right before "of <name>" ("the director of X"), else an empty set (also for several
        asks: "the director, the release year and the running time of X")."""
        span = candidate.span
        if span is None or candidate.coordinated or ";" in candidate.chain or span.tok_start - 2 < a or toks[span.tok_start - 1][0] != "of":
            return frozenset()
        noun = self.speller(toks[span.tok_start - 2][0])
        if noun in FILM_WORDS or any(toks[k][0] in FILM_WORDS for k in range(span.tok_end, min(len(toks), span.tok_end + 2))):
            return frozenset()  # "the release dates of Ana Coto acted films": the name qualifies the films after it
        return self.lexicon.relations_of(noun)

    def _answer_type(self, hop: Hop) -> str:
        """What a chain ending in `hop` answers: 'film', 'person', 'date', another class group, or a value kind."""
        if not hop.to_value:
            return "film"
        relation = self.kg.bundle.relations[hop.relation]
        if relation.kind in ("date", "year"):
            return "date"
        return relation.value_class or relation.kind

    def _coordinated(self, text: str, toks: list[Token], span: Span, spans: list[Span]) -> list[Span]:
        """Names listed with `span` ("A and B", "A, B or C"): they are asked the same question."""
        names = [s for s in spans if s is not span and self._name_like(toks, s)]
        chosen, edge = [], (span.tok_start, span.tok_end)
        for direction in (1, -1):
            lo, hi = edge
            while True:
                nxt = None
                for s in names:
                    gap = range(hi, s.tok_start) if direction == 1 else range(s.tok_end, lo)
                    if (direction == 1 and s.tok_start >= hi or direction == -1 and s.tok_end <= lo) and len(gap) <= 2:
                        between = text[toks[gap.start - 1][2] if gap.start > 0 else 0 : toks[gap.stop][1]] if gap.stop < len(toks) else ""
                        listed = all(toks[k][0] in LIST_WORDS for k in gap) or (  # "of A and of B"
                            len(gap) == 2 and toks[gap[0]][0] in LIST_WORDS and toks[gap[1]][0] in ("of", "for", "in", "about", "the"))
                        if listed and (gap or re.search(r"[,&/]", between)):
                            if nxt is None or s.length > nxt.length:
                                nxt = s
                if nxt is None or any(nxt.tok_start < c.tok_end and c.tok_start < nxt.tok_end for c in chosen):
                    break
                chosen.append(nxt)
                lo, hi = (lo, nxt.tok_end) if direction == 1 else (nxt.tok_start, hi)
        return chosen

    def _with_more_relations(self, best: Candidate, text: str, toks, a: int, b: int) -> Candidate | None:
        """'the director, the release year and the running time of X': one ask per relation a cue names."""
        if best.span is None or best.entity is None or best.entity.group != "film" or not best.explanation.other_cues:
            return None
        clause = text[toks[a][1] : toks[b - 1][2]]
        if not re.search(r",|\band\b|&", clause):
            return None  # several relations are asked as a list: "the director, the year and the runtime of X"
        content = self._content(toks, a, b, best)
        labels, idx = self.kg.labels, self.kg.labels.by_iri.get(best.entity.iri)
        held = {name for name, rel in self.kg.bundle.relations.items()
                if idx is not None and labels.has_role(idx, name, "s" if rel.direction == "forward" else "o")}
        named = []
        for word in content:
            # a word several relations share ("wrote": the screenplay, the score, the novel) names first those the film has
            for name in sorted(self.lexicon.relations_of(word), key=lambda name: (name not in held, name)):
                code = chain_code((Hop(name, True),))
                if code in self.chain_start and self.chain_start[code] == "film" and code not in named:
                    named.append(code)
        base = best.chain if best.chain in named else None
        if len(named) < 2:
            return None
        for chosen in self._relation_sets(named, content, base):
            candidate = Candidate(best.span, best.entity, ";".join(chosen), best.probability, best.score, coordinated=best.coordinated)
            candidate.explanation = self._explain(toks, a, b, candidate, best.entity)
            if candidate.explanation.complete or (not candidate.explanation.other_cues and not candidate.explanation.unevidenced):
                return candidate
        return None

    def _relation_sets(self, named: list[str], content: list[str], base: str | None) -> list[list[str]]:
        """The smallest sets of relations (in the order the question names them) whose cues cover the words."""
        position = {code: min((i for i, w in enumerate(content) if parse_chain(code)[0].relation in self.lexicon.relations_of(w)), default=99)
                    for code in named}
        ordered = sorted(named, key=lambda c: position[c])
        sets = []
        for size in range(2, min(5, len(ordered)) + 1):
            for combo in combinations(ordered, size):
                if base is None or base in combo:
                    sets.append(list(combo))
        return sets

    def _longer_title(self, text: str, toks, best: Candidate, b: int) -> str:
        """A title followed by a sequel number or an unknown word ('Toy Story 4', 'The Dark Knight Rises', 'the dark
        knight rises') names another film than the label found: the whole mention, to report as not found."""
        span = best.span
        if span is None or best.entity is None or best.entity.group != "film":
            return ""
        k = span.tok_end
        if k >= b or re.search(r"[,;&]", text[toks[k - 1][2] : toks[k][1]]):
            return ""  # "Heat, Blorpo and Goodfellas": the next word starts another name
        word = toks[k][0]
        sequel_number = (word.isdigit() and len(word) <= 2) or word in ("ii", "iii", "iv", "vi", "vii", "viii", "ix")
        typed = text[span.start : span.end]
        # an unknown word after the title, capitalised like a title word, or after a title typed all in lower case
        unknown = word in best.explanation.unknown and (text[toks[k][1]].isupper() or typed == typed.lower())
        if sequel_number or unknown:
            return text[span.start : toks[k][2]]
        return ""

    def all_entities(self, text: str, toks, spans: list[Span]) -> list[LinkedEntity]:
        """Non-overlapping entities, longest first (for recommendations and pictures)."""
        years = [int(y) for y in YEAR.findall(text)]
        taken: set[int] = set()
        found = []
        for span in spans:
            if self._wording_only(toks, span) and not self._capitalised_title(text, toks, span):
                continue
            if any(i in taken for i in range(span.tok_start, span.tok_end)):
                continue
            entity = link_span(span, text, self.kg.labels, None, years)
            if entity is not None:
                found.append(entity)
                taken.update(range(span.tok_start, span.tok_end))
        return sorted(found, key=lambda e: e.start)

    def unexplained(self, text: str, toks) -> list[str]:
        return [text[toks[a][1] : toks[b - 1][2]] for a, b in self.mentions.residual_runs(toks)]
