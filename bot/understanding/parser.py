"""Understanding: from a message to a question plan (kind, asks, linked entities) — or an honest "I don't know".

The driver: it splits a message into clauses and asks the constructions (bot/understanding/constructions/, one module
per question shape) for their readings of each, ranked by the scorer (bot.understanding.scoring).

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

from dataclasses import dataclass, field, replace

from bot.core.contracts import Ask, Hop, LinkedEntity, Referents, Understanding, parse_chain
from bot.core.features import MentionSource
from bot.core.kinds import Kind
from bot.core.terms import Group
from bot.core.text import YEAR, contracted_not
from bot.kg.graph import KG
from bot.understanding import compositions
from bot.understanding.classifier import ChainClassifier, classifier_key
from bot.understanding.clauses import ClauseSplitter
from bot.understanding.compose import (
    COLLABORATION_WORDS,
    COMPOSITION_WORDS,
    OSCAR_WORDS,
    Composer,
    Composition,
    composed_understanding,
    excluding_words,
)
from bot.understanding.constructions import recommendation
from bot.understanding.constructions.clause import Clause, Token, tokenise
from bot.understanding.constructions.fact import Candidate, ChainReader
from bot.understanding.constructions.multimedia import asks_to_see_someone
from bot.understanding.constructions.overview import OverviewReader
from bot.understanding.constructions.person_films import main_role_reading
from bot.understanding.constructions.shared import shared_asks
from bot.understanding.conversation import decline_intent, social_intent
from bot.understanding.cues import question_kind
from bot.understanding.leftovers import Leftovers
from bot.understanding.lexicon import Lexicon
from bot.understanding.mentions import IndexMentions, Span
from bot.understanding.names import NameFinder
from bot.understanding.namesakes import NamesakeChoice
from bot.understanding.reader import context_of, description_of, reading_message
from bot.understanding.reader.build import load_reader, load_trust, ordinary_words, reader_vocabulary, trust_features
from bot.understanding.referents import resolve_referents
from bot.understanding.scoring import NAMESAKE_READINGS, HandScorer, LearnedScorer
from bot.understanding.vocabulary import (
    EXCLUDING,
    FILLER_START,
    FILM_WORDS,
    GENERIC,
    PRONOUNS,
    QUESTION_WORDS,
    SHARE_CUES,
    STOP,
    Speller,
)


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
    composition: Composition | None = None  # a yes/no check, comparison, superlative, count, filter or overview
    excluded: tuple[str, ...] = ()  # IRIs the answers leave out ("apart from X")


class Understander:
    """Reads a message into a question plan against one KG."""

    def __init__(self, kg: KG, classifier: ChainClassifier, fuzzy_threshold: float = 90.0, quiet: bool = False, force: bool = False):
        """`quiet`: no progress bar while the reader trains on first use; `force`: train it again."""
        self.kg = kg
        self.classifier = classifier
        self.vocabulary = classifier.wording
        known = self.vocabulary | {g for g in classifier.vocabulary if " " not in g}
        self.lexicon = Lexicon.from_bundle(kg.bundle, frozenset(known))
        ordinary = ordinary_words(kg)
        self.speller = Speller(known | self.lexicon.words | COMPOSITION_WORDS, frozenset().union(*self.lexicon.cues.values()), ordinary)
        # "older", "longest", "pls", "vs" are wording too (a misspelt title is looked for between them); so are the words of
        # a collaboration ("Who has Nolan collaborated with": no name "Nolan collaborated")
        self.mentions = IndexMentions(kg.labels, self.vocabulary | COMPOSITION_WORDS | COLLABORATION_WORDS | STOP | GENERIC, ordinary)
        self.names = NameFinder(kg, self.lexicon, self.mentions, self.vocabulary, fuzzy_threshold)
        self.composer = Composer(kg, self.lexicon, self.vocabulary)
        self.chains = ChainReader(kg, classifier, self.lexicon, self.speller, self.names)
        self.namesakes = NamesakeChoice(kg, self.names, self.chains.explain)
        self.leftovers = Leftovers(kg, self.speller)
        self.overview = OverviewReader(kg.bundle, self.lexicon)
        self.clauses = ClauseSplitter(kg, self.names)  # (text, toks, spans) -> the token ranges of the message's questions
        self.scorer = HandScorer()  # ranks the chain readings; the trust model below decides on readings with unknown words
        self.recommendations = recommendation.READER(kg, self)  # recommendation requests
        # what each word of a message does (bot.understanding.reader): context words need no explanation, descriptions
        # pick or check the film they describe
        self.reader_vocabulary = reader_vocabulary(self.lexicon, frozenset(known), COMPOSITION_WORDS, ordinary)
        self.reader = load_reader(kg, self.reader_vocabulary, self.mentions, quiet=quiet, force=force)
        # whether a reading that leaves unknown words is answered: calibrated on generated questions (trained once)
        self.scorer = LearnedScorer(load_trust(self, kg, classifier_key(kg.bundle), quiet=quiet, force=force), trust_features(self))

    @property
    def span_sources(self) -> list[MentionSource]:
        """Extra mention sources (the Flair NER layer, once loaded), which features add to."""
        return self.names.span_sources

    @span_sources.setter
    def span_sources(self, sources: list[MentionSource]) -> None:
        self.names.span_sources = sources

    def candidate_spans(self, text: str, toks: list[Token], trace: dict | None = None) -> list[Span]:
        return self.names.candidate_spans(text, toks, trace)

    def all_entities(self, text: str, toks, spans: list[Span]) -> list[LinkedEntity]:
        return self.names.all_entities(text, toks, spans)

    # --- the message ------------------------------------------------------------------------

    def understand(self, text: str, trace: dict | None = None, referents: Referents | None = None) -> Understanding:
        """What `text` asks; `trace` (the reply trace's detail dict) records where its spans came from. `referents`: what
        the conversation before it offers a pronoun the message itself does not resolve (bot.understanding.referents),
        and the topic of a message that names nothing ("and the music?")."""
        text = self.respelled(text, trace)
        declined = decline_intent(text)
        toks = tokenise(text)
        reading = self.reader.read(text, toks)
        reading_message(toks, reading)
        if trace is not None and reading.tagged is not None:
            trace["roles"] = reading.to_trace(toks)
        spans = self.names.candidate_spans(text, toks, trace) if declined != "injection" else []
        if declined == "arithmetic":  # unless the sum is part of a name
            declined = decline_intent(text, [(s.start, s.end) for s in spans if s.fuzzy_score >= 100 and s.length > 1])
        if declined:
            return Understanding(text, Kind.DECLINE, smalltalk=declined, confidence=1.0)
        names = [s for s in spans if self.names.name_like(toks, s)]
        # a lowercase word only near a name ("weather" ~ Carl Weathers) does not make small talk a question about it
        typed_names = [s for s in names if s.fuzzy_score >= 100 or any(c.isupper() for c in text[s.start : s.end])]
        intent = social_intent(text, bool(typed_names))
        if intent and any(s.fuzzy_score >= 100 and s.length > 1 and any(c.isupper() for c in text[s.start : s.end]) for s in names):
            intent = ""  # "Nice to Meet You" is also a film title: the question is about a name (as typed, capitalised)
        if intent == "off_topic":
            return Understanding(text, Kind.DECLINE, smalltalk=intent, confidence=1.0)
        if intent:
            return Understanding(text, Kind.SMALLTALK, smalltalk=intent, confidence=1.0)
        shortfall = self.names.series.shortfall(toks, spans)
        if shortfall is not None:  # "the third Harry Potter film" when the graph has two: not guessed
            named, missing = shortfall
            labels = self.kg.labels
            entity = LinkedEntity(labels.labels[named], labels.iris[named], labels.labels[named], 100.0, labels.groups[named])
            return Understanding(text, Kind.FACTUAL, entities=[entity], missing=missing)
        masked = self.names.mask_names(text, toks, spans)
        kind, _ = question_kind(masked)
        if kind is Kind.FACTUAL:  # no cue as written: maybe a misspelt one ("recommendatoins", "any fils like X")
            kind, _ = question_kind(" ".join(self.speller(w) for w in masked.split()))
        if kind is Kind.FACTUAL and asks_to_see_someone(self.kg, self.lexicon, text, toks, spans):
            kind = Kind.MULTIMEDIA
        # a recommendation a story tells of beside a question ("my friend recommended Heat, who directed it?") asks for none
        request = (text, self.spelled(toks), spans) if kind is Kind.RECOMMENDATION else None
        if request and not self.clauses.asks_besides_its_story(text, toks, spans):
            return self.recommendations.understand(*request)  # the request reader of bot.understanding.recommendation_request
        # (a recommendation reads its pronouns with the conversation's recommendations: bot.dialogue.recommendations)
        resolved = resolve_referents(text, toks, spans, referents, self.kg.labels, self.names.name_like,
                                     lambda: self._asking(text, toks, spans))
        if resolved.replaced:  # the message as it will be read: its words' roles are those around the names now
            text, toks, spans = resolved.text, resolved.toks, resolved.spans
            reading_message(toks, self.reader.read(text, toks))
            if trace is not None:
                trace["referents"] = [f"{said} = {meant}" for said, meant in resolved.replaced]
        if kind is Kind.FACTUAL or request:  # (beside a story's recommendation: the question, unless none is read)
            planned = self.plan(text, toks, spans, trace, resolved.unsaid)
            return planned if not request or planned.asks or planned.compositional else self.recommendations.understand(*request)
        return Understanding(text, kind, entities=self.names.all_entities(text, toks, spans), confidence=1.0)

    def plan(self, text: str, toks: list[Token], spans: list[Span], trace: dict | None = None,
             unsaid: LinkedEntity | None = None) -> Understanding:
        """The asks of a factual message, clause by clause, with pronouns resolved to earlier clauses; `unsaid`: the
        topic of a clause that names nothing when no earlier clause of the message gives one (the conversation's)."""
        entities: list[LinkedEntity] = []
        asks: list[Ask] = []
        missing, unclear, not_found = "", "", []
        composition, offset = None, 0
        last_thing: int | None = None  # entity index of the latest film the message talked about
        clauses = self.clauses(text, toks, spans)
        asking = self._asking(text, toks, spans, clauses)
        for a, b in asking or clauses:  # "hey, ...", "... thank you", "(just curious)" ask nothing
            clause_text = text[toks[a][1] : toks[b - 1][2]]
            reading = self.read_clause(Clause(text, toks, a, b, spans), context=entities[last_thing] if last_thing is not None else unsaid,
                                       earlier_answer=Group.PERSON if asks else composition and composition.answer_group, trace=trace)
            if reading.topic_only is not None and asks and not reading.asks and self.clauses.only_a_topic(toks, spans, a, b) \
                    and reading.topic_only.group == entities[asks[-1].topic].group and asks[-1].after is None:
                # "who made Top Gun: Maverick? and Harry Potter and the Philosopher's Stone?": the same question again
                entities.append(reading.topic_only)
                asks.append(replace(asks[-1], topic=len(entities) - 1, text=clause_text))
                if reading.topic_only.group == Group.FILM:
                    last_thing = len(entities) - 1
                continue
            told = self.clauses.story_topic(text, toks, spans, a, b) if reading.unclear or reading.not_found else None
            if told is not None and (a, b) != (asking or clauses)[-1]:
                reading = ClauseReading(topic_only=told)  # "I watched Heat last night. who directed it?": the question's topic
            if reading.topic_only is unsaid:
                reading.topic_only = None  # a topic left unsaid is not said by failing to read the clause about it
            if reading.topic_only is not None and not reading.asks and not reading.composition and not reading.not_found:
                overview = self._overview(Clause(text, toks, a, b, spans), reading.topic_only)
                if overview is not None:  # "tell me about Heat", "Heat?", "tell me about Hamlet, the 1948 one"
                    reading = overview
            if reading.topic_only is not None:
                entities.append(reading.topic_only)
                last_thing = len(entities) - 1
            families = self._families(toks, a, b, reading)
            for topic, code, probability in reading.asks:
                chain = parse_chain(code)
                if topic is None and last_thing is None and not asks and unsaid is not None:
                    topic = unsaid  # "and the music?" after a question about a film: that film, left unsaid
                if topic is None:  # a pronoun
                    if reading.referent == "thing" and last_thing is not None:
                        asks.append(Ask(chain, last_thing, None, clause_text, probability, reading.others, families(chain), reading.excluded))
                    else:  # the answer of the ask before, or of the composition before it
                        asks.append(Ask(chain, 0, len(asks) - 1 if asks else None, clause_text, probability, reading.others, families(chain),
                                        reading.excluded, of_composition=not asks and composition is not None))
                    continue
                entities.append(topic)
                asks.append(Ask(chain, len(entities) - 1, None, clause_text, probability, reading.others, families(chain), reading.excluded))
                if topic.group == Group.FILM:
                    last_thing = len(entities) - 1
            if reading.composition is not None and composition is None:
                composition, offset = reading.composition, len(entities)
                entities += composition.entities
                composed_asks = len(asks), len(asks) + len(composition.asks)
                asks += [replace(ask, topic=ask.topic + offset, text=ask.text or clause_text) for ask in composition.asks]
                films = [n for n, e in enumerate(composition.entities) if e.group == Group.FILM]
                if len(films) == 1:  # "how many Oscars did The Godfather win and who directed it": "it" is that film
                    last_thing = offset + films[0]
            missing = missing or reading.missing
            unclear = unclear or reading.unclear
            not_found += reading.not_found
            if len(asking) > 1 and not (reading.asks or reading.composition or reading.topic_only or reading.missing
                                         or reading.unclear or reading.not_found):
                # a question of several that yields nothing ("... and who composed its music?" after a count)
                unclear = unclear or f'what "{clause_text}" asks'
        if composition is not None:
            first, last = composed_asks
            # the message's other questions ("... and who directed it?") are answered beside the composition, not dropped
            also = [Understanding(a.text or text, Kind.FACTUAL, a.chain, [] if a.of_composition else [entities[a.topic]], a.confidence,
                                  asks=[replace(a, topic=0)]) if a.after is None else  # (of the composition's answer: the agent's)
                    Understanding(a.text or text, Kind.FACTUAL, unclear=f'how to answer "{a.text}" about that answer')
                    for n, a in enumerate(asks) if not first <= n < last]
            if unclear:  # a clause beside the composition that was not understood is said, not dropped
                also.append(Understanding(text, Kind.FACTUAL, unclear=unclear))
            composed = composed_understanding(text, entities, asks[first:last], composition, offset, missing, not_found)
            composed.also = also
            return composed
        if not asks:
            if missing or unclear:
                return Understanding(text, Kind.FACTUAL, entities=entities, missing=missing, unclear=unclear, not_found=not_found)
            if entities:  # "I'm curious about Heat."
                return Understanding(text, Kind.FACTUAL, entities=entities, unclear="what you would like to know about it")
            return Understanding(text, Kind.UNKNOWN, not_found=not_found or self.names.unexplained(text, toks))
        first = asks[0]
        return Understanding(text, Kind.FACTUAL, first.chain, entities, min(a.confidence for a in asks), not_found, asks=asks,
                             shared=shared_asks(toks, asks, entities), missing=missing, unclear=unclear)

    def _asking(self, text: str, toks: list[Token], spans: list[Span], clauses: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
        """The clauses of the message that ask something (not "hey", "thanks!", "(just curious)")."""
        clauses = self.clauses(text, toks, spans) if clauses is None else clauses
        return [(a, b) for a, b in clauses if not self._filler(toks, a, b, text[toks[a][1] : toks[b - 1][2]])]

    def respelled(self, text: str, trace: dict | None = None) -> str:
        """`text` with chat spelling read as words ("whos in heat n who did the music"); the KG's names as typed stay."""
        typed = tokenise(text)
        names = [(s.start, s.end) for s in self.mentions.exact(typed) if s.fuzzy_score >= 100 and (s.length > 1 or text[s.start].isupper())]
        respelling = self.reader.respell(text, names)
        if respelling.changes and trace is not None:
            trace["respelled"] = [list(change) for change in respelling.changes]
        return respelling.text

    def _overview(self, clause: Clause, topic: LinkedEntity) -> ClauseReading | None:
        """The clause as an overview request about `topic`, or about another film or person it names where a description
        beside the name picks it ("Seven, the Fincher one": the film, though "Fincher" alone reads best as the person).
        A description's words count as read only where it fits the film (bot.understanding.namesakes)."""
        text, toks = clause.text, clause.tokens
        years = [int(y) for y in YEAR.findall(text)]
        described = description_of(toks)
        spans = [s for s in clause.inside() if s.ids and s.fuzzy_score >= 95 and self.names.name_like(toks, s)]
        for span in sorted(spans, key=lambda s: (not (s.start == topic.start and s.end == topic.end), -s.length, -s.fuzzy_score)):
            own = span.start == topic.start and span.end == topic.end
            if not own and not {span.tok_start - 1, span.tok_end} & described:
                continue
            # the topic as read, else the film or person of that name ("Hamlet, the 1948 one": the film, not the play)
            entities = [topic] if own and topic.group in (Group.FILM, Group.PERSON) else [
                e for e in (self.names.link(text, span, group, years) for group in (Group.FILM, Group.PERSON)) if e is not None]
            for entity in entities:
                if entity.group not in (Group.FILM, Group.PERSON):
                    continue
                read = self.namesakes.described(Candidate(span, entity, "", 0.0, 0.0), text, toks, clause.inside(), clause.start, clause.end)
                if read.contradicted:
                    return ClauseReading(not_found=[read.contradicted])
                overview = self.overview.read(clause, read.entity, read.selectors)
                if overview is not None:
                    return ClauseReading(composition=Composition(entities=[read.entity], overview=overview))
        return None

    def _filler(self, toks, a: int, b: int, clause_text: str) -> bool:
        """A clause that asks nothing: politeness, thanks, a smiley, a story."""
        words = [toks[k][0] for k in range(a, b)]
        if any(w in QUESTION_WORDS for w in words):
            return False  # "and when?"
        context = context_of(toks)
        if all(k in context for k in range(a, b)):
            return True
        return all(w in self.lexicon.generic_or_stop for w in words) or bool(social_intent(clause_text, False))

    def _families(self, toks, a: int, b: int, reading: ClauseReading):
        """'Which Oscars did Roma win': of the awards, only the Academy Awards answer."""
        oscars = OSCAR_WORDS & {toks[k][0] for k in range(a, b)}
        award = self.composer.award

        def families(chain) -> tuple[str, ...]:
            return self.composer.oscars if oscars and chain and chain[-1].to_value and chain[-1].relation == award else ()

        return families

    def read_clause(self, clause: Clause, context: LinkedEntity | None, earlier_answer: str | None, trace: dict | None = None) -> ClauseReading:
        """What one clause asks: a composition when one reads and accounts for the words, else the best relation chain
        (or what could not be read); `earlier_answer`: the group of what an earlier part of the message answers, which a
        pronoun may stand for."""
        text, toks, a, b = clause.text, clause.tokens, clause.start, clause.end
        clause_spans = clause.inside()
        composed = self._composed(clause, trace)
        if composed is not None:
            return composed
        excluded, excluding = self._exclusions(text, toks, clause_spans, a, b)
        if excluded:
            clause_spans = [s for s in clause_spans if not set(range(s.tok_start, s.tok_end)) & excluding]
            reading = self._read_with(text, toks, clause_spans, a, b, context, earlier_answer, frozenset(excluding), trace)
            reading.excluded = tuple(dict.fromkeys(e.iri for e in excluded))
        else:
            reading = self._read_with(text, toks, clause_spans, a, b, context, earlier_answer, frozenset(), trace)
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

    def _exclusions(self, text: str, toks, clause_spans: list[Span], a: int, b: int) -> tuple[list[LinkedEntity], set[int]]:
        """Names the answers must leave out, and the tokens that said so: "apart from X", "besides X",
        "except X", "other than X", "alongside X" (with "else", which they explain)."""
        found, tokens_used = [], set()
        names = sorted((s for s in clause_spans if self.names.name_like(toks, s) and s.fuzzy_score >= 90), key=lambda s: (s.tok_start, -s.length))
        for span in names:
            said = excluding_words(toks, a, span.tok_start, EXCLUDING)
            # "besides De Niro and Pacino": the names joined to an excluded one are left out too
            joined = tokens_used and span.tok_start - 1 in tokens_used | {max(tokens_used) + 1} and (
                toks[span.tok_start - 1][0] in ("and", "or") or "," in text[toks[span.tok_start - 1][2] : span.start])
            if said or joined:
                entity = self.names.link(text, span, None, [])
                if entity is not None:
                    found.append(entity)
                    tokens_used |= (said or {span.tok_start - 1}) | set(range(span.tok_start, span.tok_end))
        if found:
            tokens_used |= {k for k in range(a, b) if toks[k][0] in ("else", "other", "others")}
        return found, tokens_used

    def _read_with(self, text: str, toks: list[Token], clause_spans: list[Span], a: int, b: int,
                   context: LinkedEntity | None, earlier_answer: str | None, explained: frozenset[int], trace: dict | None = None) -> ClauseReading:
        pronoun = next((k for k in range(a, b) if toks[k][0] in PRONOUNS
                        and not any(s.tok_start <= k < s.tok_end and self.names.name_like(toks, s) for s in clause_spans)), None)
        candidates = self.chains.candidates(text, toks, clause_spans, a, b)
        if pronoun is not None:
            referent = PRONOUNS[toks[pronoun][0]]
            group = context.group if referent == "thing" and context is not None else None
            if earlier_answer == Group.PERSON and referent != "thing" or earlier_answer == Group.FILM and referent == "thing" and not context:
                group = earlier_answer  # "who directed Heat and what else did he direct?", "... is the longest and who scored it?"
            if group is not None or (referent == "thing" and context is not None):
                candidates += self.chains.pronoun_candidates(text, toks, a, b, pronoun, group or Group.FILM, context if referent == "thing" else None)
        elif context is not None and not any(s.ids and self.names.name_like(toks, s) for s in clause_spans):
            # "When did Encanto come out? And who was the director": the earlier clause's film (or the conversation's topic)
            candidates += self.chains.pronoun_candidates(text, toks, a, b, None, context.group, context)
            pronoun = -1
        if explained:  # the words that said what to leave out are accounted for
            candidates = [self.chains.with_selectors(c, explained, toks, a, b) for c in candidates]
        years = [int(y) for y in YEAR.findall(text)]
        if not candidates:
            reading = ClauseReading()
            topic = self.names.topic_only(text, toks, clause_spans, years)
            if topic is not None:
                reading.topic_only = topic
            else:
                clause = toks[a:b]
                reading.not_found = [text[clause[x][1] : clause[y - 1][2]] for x, y in self.names.mentions.residual_runs(clause)]
            return reading
        # a film among namesakes is told apart by the clause's other words ("the Halloween with Donald
        # Pleasence"): read those words as its selector before comparing readings
        ranked = self.scorer.rank(candidates)
        candidates = [self.namesakes.described(self.namesakes.choose(c, text, toks, clause_spans, a, b), text, toks, clause_spans, a, b)
                      if n < NAMESAKE_READINGS else c for n, c in enumerate(ranked)]
        # a reading that accounts for every word beats one that leaves words unexplained (which would only
        # say "not sure"), unless the classifier all but rules it out (bot.understanding.scoring)
        best = self.scorer.best(candidates)
        if trace is not None:
            trace.setdefault("readings", []).append(self.scorer.traced(candidates, best))
        best = main_role_reading(self.chains, self.composer, best, toks, a, b)
        best = self.chains.with_more_relations(best, text, toks, a, b) or best
        reading = ClauseReading(others=bool(set(self.chains.content(toks, a, b, best)) & SHARE_CUES))
        if best.contradicted:  # "the 1975 Ronin" when the graph's Ronin is from 1998: a film the graph does not have
            reading.not_found = [best.contradicted]
            return reading
        extended = self.leftovers.longer_title(text, toks, best, b)
        if extended:
            reading.not_found = [extended]
            return reading
        explanation = best.explanation
        if explanation.unsupported:
            reading.missing = explanation.unsupported[0]
            if best.entity is not None:
                reading.topic_only = best.entity
            return reading
        unknown_name = self.leftovers.unknown_name(text, toks, a, b, best) or self.leftovers.film_of_another_year(toks, a, b, best)
        if unknown_name:  # "did X direct the third harry potter movie": a name the graph lacks is not a detail to skip
            reading.not_found = [unknown_name]
            return reading
        guessing = not self.scorer.trusted(best)
        if explanation.other_cues or explanation.unevidenced or explanation.answer_type or guessing:
            reading.unclear = self.leftovers.unclear_words(explanation, toks, a, b) or "what you would like to know"
            if best.entity is not None:
                reading.topic_only = best.entity
            return reading
        if best.span is None:
            reading.referent = PRONOUNS[toks[pronoun][0]] if pronoun is not None and pronoun >= 0 else "thing"
            reading.asks = [(None, best.chain, best.probability)]
            return reading
        multi = best.chain.split(";")
        topics = [best.entity] + [e for e in (self.names.link(text, s, best.entity.group, years) for s in best.coordinated) if e is not None]
        reading.asks = [(topic, code, best.probability) for topic in topics for code in multi]
        reading.not_found = self.leftovers.unknown_list_members(text, toks, a, b, best)
        return reading

    def _composed(self, clause: Clause, trace: dict | None = None) -> ClauseReading | None:
        """The clause as a compositional question, when it reads as one and accounts for its words."""
        toks, a, b = clause.tokens, clause.start, clause.end
        spelled = replace(clause, tokens=self.spelled(toks))  # "lonest" -> "longest", "moives" -> "movies"
        composition, attempts = compositions.read(self.composer, spelled, self.names.name_like)
        if trace is not None and attempts:
            trace.setdefault("compositions", []).append([{"construction": t.construction, "read": t.reading is not None} for t in attempts])
        if composition is None:
            return None
        context = context_of(toks)
        content = [self.speller(toks[k][0]) for k in range(a, b) if k not in composition.used and k not in context]
        chain = tuple(Hop(r, True) for r in sorted(composition.relations))
        explanation = self.lexicon.explain(content, chain, bool(set(content) & FILM_WORDS), set())
        if explanation.unsupported:
            return ClauseReading(missing=explanation.unsupported[0], topic_only=composition.entities[0] if composition.entities else None)
        if explanation.other_cues:
            return None
        if explanation.unknown and not composition.entities:
            return None  # "Which is Joon-ho's earliest film": an unknown name would widen the question to the whole graph
        return ClauseReading(composition=composition)

    def spelled(self, toks: list[Token]) -> list[Token]:
        """The tokens with misspelt wording corrected ("lonest" -> "longest")."""
        return [Token(self.speller(t.text), t.start, t.end) for t in toks]
