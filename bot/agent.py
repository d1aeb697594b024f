"""The agent: one place where the pipeline stages are assembled.

    Message text -> Understanding -> Facts -> Sentence -> Reply

The agent is built from a KG and what its features declare they contribute (bot/features.py);
`describe()` lists the assembled pipeline. `Agent.answer` never raises: any failure becomes a
friendly reply (and a log entry), so a chat never shows a stack trace.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from bot.answering.compose import ComposedAnswers
from bot.answering.factual import Retriever
from bot.answering.sparql import SparqlAnswerer
from bot.core.config import Settings
from bot.core.contracts import Conversation, Facts, LinkedEntity, Referents, Reply, TraceStep, Understanding
from bot.core.errors import MoviebotError, PlanError, StoreError
from bot.core.features import Amender, Contribution, Fallback, Handler, Phraser
from bot.core.kinds import REGISTRY, Kind
from bot.core.text import clean_message, join_labels, join_or
from bot.features import Loaded, load_features, run_build_steps
from bot.generation.templates import template_sentence
from bot.kg import queries
from bot.kg.graph import KG, build_graph, open_kg
from bot.understanding.classifier import load_classifier
from bot.understanding.parser import Understander
from bot.understanding.sparql_message import SparqlMessage, sparql_message

log = logging.getLogger(__name__)
MAX_MESSAGE_CHARS = 2000

EXAMPLES = ("I answer questions about films from my knowledge graph, for example \"Who directed Good Will Hunting?\", "
            "\"What genres are the films written by Quentin Tarantino?\" or \"Which movies share the director of Jaws?\".")


def smalltalk_replies(offers: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """The small-talk replies, saying only what the assembled pipeline can do: `offers` are what its features add, by
    feature (`Contribution.offers`: recommendations, pictures, crowd answers, predictions, ...), as `moviebot pipeline`
    lists them; a feature that is off or lacks its data (no images index, no crowd file) offers nothing."""
    listed = [offer for feature_offers in offers.values() for offer in feature_offers]
    more = f" I can also {join_labels(listed)}." if listed else ""
    recommends = bool(offers.get("recommend"))
    marked = [what for what, feature in (("a crowd answer", "crowd"), ("a prediction", "embeddings")) if offers.get(feature)]
    return {
        "greeting": "Hello! Ask me about films: who directed them, who starred in them, when they came out, and more.",
        "thanks": "You're welcome! Ask me anything else about films.",
        "bye": "Goodbye, and enjoy your next film!",
        "help": EXAMPLES + more,
        "identity": (
            "I'm moviebot, a chatbot that answers questions about films from a knowledge graph, offline. "
            "Every fact I give comes from that graph" + (f" (or is marked as {join_or(marked)})." if marked else ".")
        ),
        "wellbeing": "I'm fine, thank you! What would you like to know about films?",
        "newcomer": "Welcome! " + EXAMPLES + more,
        "praise": "Thank you! Ask me anything else about films.",
        "taste": "I don't watch films myself, so I have no favourite, but I know a lot about them. " + (
            "Tell me one you like and I'll recommend similar ones, or ask for something like \"a comedy from the 90s\"." if recommends
            else "Ask me for something like \"a comedy from the 90s\"."),
        "bored": "How about a film? " + (
            "Tell me one you liked and I'll suggest similar ones, or ask for something like " if recommends else "Ask me for something like ")
        + "\"a thriller from the 90s\" or \"films with Tom Hanks\".",
        "laughter": "Glad you're having fun! Ask me about a film whenever you like.",
    }


DECLINE_REPLIES = {
    "injection": "I only tell you what my knowledge graph says about films, and I don't change that on request. "
                 "Ask me a question about a film, for example \"Who directed Jaws?\"",
    "arithmetic": "I'm a film bot, so I don't do arithmetic. Ask me about a film instead, for example \"How long is Titanic?\"",
    "off_topic": "I only know about films. Ask me who directed a film, who starred in it, when it came out, and more.",
}


class Timer:
    """Collects per-stage timings for the reply trace."""

    def __init__(self):
        self.steps: list[TraceStep] = []

    @contextmanager
    def stage(self, name: str):
        detail: dict = {}
        t0 = time.perf_counter()
        try:
            yield detail
        finally:
            self.steps.append(TraceStep(name, (time.perf_counter() - t0) * 1000, detail))


@dataclass
class Reading:
    """A message as read, before it is answered: exactly one of a reply it gets without being read (empty, too long,
    a failure), a SPARQL query, or the question plan (which the dialogue may edit before `Agent.respond`)."""

    text: str  # as written
    plan: Understanding | None = None
    query: SparqlMessage | None = None
    early: Reply | None = None
    steps: list[TraceStep] = field(default_factory=list)
    started: float = 0.0  # perf_counter() when reading began (the reply's latency counts from it)


@dataclass
class Answered:
    """A reply with the plan it answered and the facts it was phrased from (None for replies not drawn from the graph)."""

    reply: Reply
    plan: Understanding | None
    facts: Facts | None


def build(settings: Settings, quiet: bool = False, force: bool = False) -> KG:
    """Build (or reuse) everything for settings.kg: store, label index, classifier, reader, and the chosen features' models."""
    kg = build_graph(settings, quiet=quiet, force=force)
    Understander(kg, load_classifier(kg, quiet=quiet, force=force), settings.fuzzy_threshold, quiet=quiet, force=force)  # trains the reader
    run_build_steps(settings, kg.bundle, kg.folder, kg.key, quiet=quiet, force=force)
    return kg


class Agent:
    """Answers one question at a time against one KG."""

    def __init__(self, kg: KG, settings: Settings | None = None, background: bool = True):
        self.kg = kg
        self.settings = settings or Settings()
        self.understander = Understander(kg, load_classifier(kg), self.settings.fuzzy_threshold)
        self.retriever = Retriever(kg, self.settings.max_answers)
        self.composed = ComposedAnswers(kg, self._single)
        self.sparql = SparqlAnswerer(kg, self.settings)  # SPARQL typed into the chat, answered before any understanding
        self.handlers: dict[Kind, Handler] = {
            Kind.FACTUAL: self._factual, Kind.SMALLTALK: self._smalltalk, Kind.DECLINE: self._decline, Kind.UNKNOWN: self._unknown,
        }
        self.fallbacks: list[Fallback] = []
        self.amenders: list[Amender] = []
        self.phraser: Phraser | None = None
        self.features: list[Loaded] = []
        self._background: list[threading.Thread] = []  # features loading in the background (the agent answers meanwhile)
        # With background=False (a one-shot `moviebot ask`) slow loads are not started but kept here by feature name:
        # the caller runs those its question needs (`load_now`), and no thread is left running when it exits.
        self.load_in_background = background
        self.pending: dict[str, Callable[[], Contribution | None]] = {}

    @classmethod
    def from_settings(cls, settings: Settings, background: bool = True) -> Agent:
        """An agent on settings.kg with the features settings.features chooses; `background=False` defers their slow
        loads to `load_now`."""
        agent = cls(open_kg(settings), settings, background)
        agent.load_features()
        return agent

    # --- assembly -----------------------------------------------------------------------

    def load_features(self) -> None:
        for loaded in load_features(self):
            self.features.append(loaded)
            if loaded.contribution is not None:
                self.contribute(loaded.feature.name, loaded.contribution)

    def contribute(self, name: str, contribution: Contribution) -> None:
        """Join what a feature contributes; its background load (if any) starts on a thread and joins when done, or
        waits in `pending` for `load_now` when the agent was made without background loads."""
        for kind, handler in contribution.handlers.items():
            self.handlers[kind] = handler
        self.fallbacks += contribution.fallbacks
        self.amenders += contribution.amenders
        self.understander.span_sources += contribution.mention_sources
        if contribution.phraser is not None:
            self.phraser = contribution.phraser
        if contribution.background is not None and not self.load_in_background:
            self.pending[name] = contribution.background
        elif contribution.background is not None:
            # not a daemon: the interpreter waits for a load still running when the process ends. A daemon thread is
            # stopped where it next takes the GIL, and inside torch's native code (the NER tagger's layers being made)
            # that aborts the process ("terminate called without an active exception") after a correct answer.
            thread = threading.Thread(target=self._finish_load, args=(name, contribution.background), name=f"load {name}")
            self._background.append(thread)
            thread.start()

    def _finish_load(self, name: str, load) -> None:
        try:
            more = load()
        except Exception as exc:  # noqa: BLE001 - a failing background load turns only its feature off
            if not threading.main_thread().is_alive():  # the process is ending (a short chat): Python refuses new exit hooks
                log.debug("feature %s stopped loading as the process ended: %s", name, exc)
            else:
                log.warning("feature %s is off: %s: %s", name, type(exc).__name__, exc)
            return
        if more is not None:
            self.contribute(name, more)

    def load_now(self, *names: str) -> None:
        """Run the pending loads of the features `names` (all when none is named) in this thread, and join what they
        contribute: a one-shot answer waits only for what it needs (the phrasing model), never for the rest."""
        while chosen := [n for n in self.pending if not names or n in names]:
            for name in chosen:
                self._finish_load(name, self.pending.pop(name))

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait for the background loads (benchmarks and tests that need every feature in place)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for thread in list(self._background):
            thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return not any(thread.is_alive() for thread in self._background)

    def describe(self) -> dict:
        """The assembled pipeline: the KG, the handler of each question kind, the features and what they added."""
        return {
            "kg": {"bundle": self.kg.bundle.name, "graph": self.kg.graph.describe(), "entities": len(self.kg.labels.iris)},
            "kinds": {
                str(kind): {"answered_by": spec.answered_by, "phrased": spec.phrased,
                            "answered": kind in self.handlers or (kind is Kind.SPARQL and self.settings.sparql_in_chat),
                            "clarifies": spec.clarifies}
                for kind, spec in REGISTRY.items() if spec.answered_by
            },
            "features": [
                {"name": f.feature.name, "summary": f.feature.summary, "on": f.contribution is not None, "off_because": f.off_because,
                 **({"adds": f.contribution.describe()} if f.contribution is not None else {})}
                for f in self.features
            ],
            "mention_sources": len(self.understander.span_sources),
            "phraser": self.phraser is not None,
            "offers": self.offers(),
        }

    # --- answering ----------------------------------------------------------------------

    def answer(self, text: str, conversation: Conversation | None = None, sender: str = "") -> Reply:
        """The reply to `text` asked on its own (a chat goes through bot.dialogue, which reads a message with what
        the conversation offers and edits the plan before it is answered); `sender` (who wrote it) keys the
        per-person limits. The plan and its facts are added to `conversation` when one is given."""
        answered = self.respond(self.read(text), conversation, sender)
        if conversation is not None and answered.facts is not None:
            conversation.remember(answered.plan, answered.facts)
        return answered.reply

    def read(self, text: str, referents: Referents | None = None) -> Reading:
        """What `text` is: a SPARQL query, a message the bot answers without reading it (empty, too long), or the
        question plan (`referents`: what the conversation offers its pronouns and its unsaid topic). Never raises."""
        started = time.perf_counter()
        timer = Timer()
        raw, cleaned = text or "", clean_message(text or "")
        reading = Reading(raw, started=started)
        try:
            if not cleaned:
                reading.early = Reply("Your message was empty. Ask me something about films, for example \"Who directed Casablanca?\"", Kind.EMPTY)
            elif len(cleaned) > MAX_MESSAGE_CHARS:
                reading.early = Reply(
                    f"That message is {len(cleaned):,} characters long; I can read questions of up to {MAX_MESSAGE_CHARS:,}. "
                    "Please ask one question at a time.",
                    Kind.TOO_LONG,
                )
            elif (query := sparql_message(raw)) is not None:  # the raw text: a query's line breaks matter (# comments end with them)
                reading.query = query
            else:
                with timer.stage("understand") as detail:
                    plan = self.understander.understand(cleaned, detail, referents)
                    detail.update(
                        kind=plan.kind,
                        chain=",".join(h.code for h in plan.chain),
                        confidence=round(plan.confidence, 3),
                        entities=[e.to_json() for e in plan.entities],
                    )
                reading.plan = plan
        except Exception as exc:  # noqa: BLE001 - the chat must never see a traceback
            reading.early = failure_reply(exc, raw)
        reading.steps = timer.steps
        return reading

    def respond(self, reading: Reading, conversation: Conversation | None = None, sender: str = "") -> Answered:
        """The reply to a read message (its plan possibly edited by the dialogue), with the plan and facts it answered.
        Never raises: any failure becomes a friendly reply (and a log entry)."""
        timer = Timer()
        timer.steps = list(reading.steps)
        conversation = conversation if conversation is not None else Conversation()
        plan, facts = reading.plan, None
        try:
            if reading.early is not None:
                reply = reading.early
            elif reading.query is not None:
                reply = self.sparql.answer(reading.query, sender, timer)
            else:
                facts = self._retrieve(plan, conversation, timer)
                reply = self._sentence(plan, facts, timer)
        except Exception as exc:  # noqa: BLE001 - the chat must never see a traceback
            reply, facts = failure_reply(exc, reading.text), None
        reply.trace = timer.steps
        reply.latency_ms = (time.perf_counter() - reading.started) * 1000
        return Answered(reply, plan, facts)

    def _retrieve(self, understanding: Understanding, conversation: Conversation, timer: Timer) -> Facts:
        with timer.stage("retrieve") as detail:
            facts = self._facts(understanding, conversation)
            detail.update(source=facts.source, answers=len(facts.answers), **{k: v for k, v in facts.extra.items() if k == "sparql"})
        return facts

    def _sentence(self, understanding: Understanding, facts: Facts, timer: Timer) -> Reply:
        with timer.stage("phrase") as detail:
            sentence = template_sentence(facts, self.kg.bundle)
            if self.phraser is not None and facts.answers:
                sentence = self.phraser.phrase(facts, sentence, detail)
            detail["path"] = sentence.path
        return Reply(
            text=sentence.text,
            kind=facts.kind,
            answers=[a.label for a in facts.answers],
            facts=facts.facts,
            entities=understanding.entities,
            image=facts.extra.get("image"),
        )

    def _facts(self, understanding: Understanding, conversation: Conversation) -> Facts:
        handler = self.handlers.get(understanding.kind)
        if handler is None:  # a kind whose feature is off
            return Facts(understanding.kind, understanding.text,
                         message=f"I cannot answer {understanding.kind} questions with this knowledge graph yet.")
        return handler(understanding, conversation)

    def offers(self) -> dict[str, tuple[str, ...]]:
        """What the loaded features let people ask beyond the graph's facts, in their words, by feature (see `describe()`)."""
        offers = {f.feature.name: f.contribution.offers for f in self.features if f.contribution is not None and f.contribution.offers}
        if self.settings.sparql_in_chat:
            offers["sparql"] = ("run SPARQL queries pasted into the chat",)
        return offers

    def _smalltalk(self, understanding: Understanding, conversation: Conversation) -> Facts:
        return Facts(Kind.SMALLTALK, understanding.text, message=smalltalk_replies(self.offers())[understanding.smalltalk])

    def _decline(self, understanding: Understanding, conversation: Conversation) -> Facts:
        return Facts(Kind.DECLINE, understanding.text, message=DECLINE_REPLIES[understanding.smalltalk])

    def _unknown(self, understanding: Understanding, conversation: Conversation) -> Facts:
        return Facts(Kind.UNKNOWN, understanding.text, message=self._not_understood(understanding))

    def _factual(self, understanding: Understanding, conversation: Conversation) -> Facts:
        """Every ask of the question plan, answered in order (an ask may take an earlier one's answer as its topic)."""
        if understanding.compositional:
            resolved = self._unresolved_films(understanding)
            composed = resolved if isinstance(resolved, Facts) else self.composed.answer(resolved)
            if not understanding.also:
                return composed
            # "... and who composed its music?": an ask of the composition's answer takes it as its topic
            parts = [composed, *(self._after(other, 0, composed) if other.asks and other.asks[0].of_composition
                                 else self._factual(other, conversation) for other in understanding.also)]
            combined = Facts(Kind.FACTUAL, understanding.text, [a for p in parts for a in p.answers], [f for p in parts for f in p.facts],
                             understanding.entities, understanding.chain, parts=parts)
            combined.extra["sparql"] = [p.extra.get("sparql", "") for p in parts]
            return combined
        if not understanding.asks:
            return Facts(Kind.FACTUAL, understanding.text, topic=understanding.entities, message=cannot_answer(understanding, self.kg))
        parts: list[Facts] = []
        for n, ask in enumerate(understanding.asks):
            if ask.after is None:
                facts = self._single(understanding.ask(n))
            else:
                facts = self._after(understanding, n, parts[ask.after])
            if ask.families:
                wanted = set(ask.families)
                facts.answers = [a for a in facts.answers if a.iri in wanted]
                facts.facts = [f for f in facts.facts if f.value in wanted]
            if ask.others:  # "what else": not the films this message names, nor those the dialogue put in `excluded`
                facts = without_named(facts, {e.iri for e in understanding.entities} | set(ask.excluded))
            elif ask.excluded:  # "apart from X, who is in the cast?"
                unwanted = set(ask.excluded)
                facts.answers = [a for a in facts.answers if a.iri not in unwanted]
                facts.facts = [f for f in facts.facts if f.value not in unwanted]
                facts.extra["excluded"] = list(dict.fromkeys(self.kg.labels.label_of(iri) or iri for iri in ask.excluded))
            parts.append(facts)
        if len(parts) == 1 and not (understanding.missing or understanding.unclear or understanding.not_found):
            return parts[0]
        combined = Facts(Kind.FACTUAL, understanding.text, [a for p in parts for a in p.answers], [f for p in parts for f in p.facts],
                         understanding.entities, understanding.chain, parts=parts)
        combined.source = next((p.source for p in parts if p.source != "kg"), "kg")
        combined.extra["sparql"] = [p.extra.get("sparql", "") for p in parts]
        if understanding.missing or understanding.unclear or understanding.not_found:
            combined.extra["also"] = cannot_answer(understanding, self.kg)
        return combined

    @staticmethod
    def _unresolved_films(understanding: Understanding) -> Understanding | Facts:
        """A plan that still points at "those films" reached the agent without a dialogue to say which (bot.dialogue
        turns them into the films the conversation listed): it is asked back, never answered about all films; "other"
        films are the films the plan names."""
        if any(c.op == "earlier" for c in understanding.constraints):
            return Facts(Kind.FACTUAL, understanding.text, topic=understanding.entities, message=(
                "Which films do you mean? Ask me for some first, for example \"Which films did Christopher Nolan direct?\", "
                "then \"which of those is the longest?\""))
        if not any(c.op == "not_earlier" for c in understanding.constraints):
            return understanding
        named = tuple(e.iri for e in understanding.entities if e.group == "film")
        constraints = [replace(c, op="not_among", values=named) if c.op == "not_earlier" else c
                       for c in understanding.constraints if c.op != "not_earlier" or named]
        return replace(understanding, constraints=constraints)

    def _single(self, understanding: Understanding) -> Facts:
        facts, query = self.retriever.answer(understanding)
        facts.extra["sparql"] = query
        for amend in self.amenders:
            facts = amend(understanding, facts)
        if not facts.answers and not facts.message:  # (an amender's message says why the graph's value is not given)
            for fallback in self.fallbacks:
                alternative = fallback(understanding, facts)
                if alternative is not None:
                    return alternative
        return facts

    def _after(self, understanding: Understanding, n: int, earlier: Facts) -> Facts:
        """An ask whose topic is the answer of an earlier one ("who directed X and what else did they direct")."""
        labels = self.kg.labels
        topics = []
        for answer in earlier.answers:
            info = labels.info(answer.iri) if answer.iri else None
            if info is not None:
                label, group, _, year = info
                topics.append(LinkedEntity(answer.label, answer.iri, label, 100.0, group, year=year))
        if not topics:
            return Facts(Kind.FACTUAL, understanding.asks[n].text, message="")
        merged = None
        for topic in topics:
            facts = self._single(understanding.ask(n, topic))
            if merged is None:
                merged = facts
            else:
                known = {a.iri or a.label for a in merged.answers}
                merged.answers += [a for a in facts.answers if (a.iri or a.label) not in known]
                merged.facts += facts.facts
                merged.topic += facts.topic
        return merged

    def _not_understood(self, understanding: Understanding) -> str:
        if understanding.not_found:
            names = ", ".join(f"\"{n}\"" for n in understanding.not_found[:3])
            return (
                f"I could not find {names} in my knowledge graph. "
                "Please check the spelling of the title or name, or ask about another film."
            )
        return "I did not understand which film or person you mean. Try for example \"Who directed The Matrix?\""


def cannot_answer(understanding: Understanding, kg: KG | None = None) -> str:
    """What was understood and what the bot will not guess: the graph lacks it, or a word did not fit. With `kg`, an
    entity it found comes with questions it can answer about that kind of entity (see `entity_examples`)."""
    topic = understanding.entities[0] if understanding.entities else None
    name = topic.label if topic is not None else ""
    if understanding.not_found and not (understanding.missing or understanding.unclear):
        names = join_or([f'"{n}"' for n in understanding.not_found[:3]])
        return f"I could not find {names} in my knowledge graph."
    if understanding.missing:
        if topic is None:
            return f"My knowledge graph does not hold {understanding.missing}, so I cannot answer that."
        holds = (f"{name}'s films" if topic.group == "person" else f"facts about {name}" if topic.group == "film"
                 else f"the {name} series" if topic.group == "series" else name)
        return f"My knowledge graph has {holds}, but not {understanding.missing}, so I cannot answer that."
    if topic is not None:
        examples = entity_examples(topic, kg) if kg is not None else []
        offer = f"You can ask, for example, {join_or(examples)}" if examples else "Could you rephrase the question?"
        return f"I found {name} in my knowledge graph, but I'm not sure {understanding.unclear}. {offer}"
    return f"I'm not sure {understanding.unclear or 'what you are asking'}. Could you rephrase the question?"


def entity_examples(entity: LinkedEntity, kg: KG) -> list[str]:
    """Questions (quoted) the bot answers about `entity`, chosen by what kind of entity it is, from the bundle's own
    phrasings of the relations the entity takes part in: a film's director, date and cast (the person relation it has
    the most values of); a person's films in the roles they hold, the commonest first; a genre's, country's or
    series' films ("List the music films"). A hint built without regard to the kind ("which films music made") teaches the wrong question."""
    bundle, labels = kg.bundle, kg.labels
    idx = labels.by_iri.get(entity.iri)
    if idx is None:
        return []

    def takes_part(relation, as_film: bool) -> bool:
        film_side = "s" if relation.direction == "forward" else "o"
        return labels.has_role(idx, relation.name, film_side if as_film else "so".replace(film_side, ""))

    relations = list(bundle.relations.values())
    if entity.group == "film":
        has = [r for r in relations if r.asks and takes_part(r, as_film=True)]
        people = [r for r in has if r.value_class == "person"]
        cast = max(people[1:], key=lambda r: _value_count(kg, entity.iri, r), default=None)
        chosen = [*people[:1], *(r for r in has if r is bundle.date_relation), *([cast] if cast is not None else [])]
        questions = [r.asks[0].format(film=entity.label) for r in chosen]
    elif entity.group == "person":
        roles = [r for r in relations if r.value_class == "person" and r.finds and takes_part(r, as_film=False)]
        if len(roles) > 2:
            rows = kg.graph.select(queries.films_per_role(bundle, entity.iri, [r.name for r in roles]))
            counts = {str(row["relation"].value): int(row["n"].value) for row in rows if row.get("relation") is not None}
            roles.sort(key=lambda r: -counts.get(r.name, 0))
        questions = [r.finds[0].format(value=entity.label) for r in roles[:2]]
    else:
        values = [r for r in relations if r.value_class == entity.group and r.films and takes_part(r, as_film=False)]
        return [f'"List {r.films[0].format(value=entity.label)}."' for r in values[:1]]  # "List the music films."
    return [f'"{q[:1].upper()}{q[1:]}?"' for q in questions]


def _value_count(kg: KG, film: str, relation) -> int:
    """How many values `film` has for a relation stored as (film, property, value) triples (0 for others)."""
    if relation.direction != "forward" or relation.derived:
        return 0
    return len(kg.graph.select(queries.values_of(film, relation.property)))


def without_named(facts: Facts, named: set[str]) -> Facts:
    """'What else' / 'which other': the answers without the films the question (or the conversation) named."""
    kept = [a for a in facts.answers if a.iri not in named]
    if len(kept) == len(facts.answers):
        return facts
    facts.answers = kept
    facts.facts = [f for f in facts.facts if f.value not in named]
    if not kept:
        topic = facts.topic[0].label if facts.topic else "That"
        facts.message = f"{topic} has no other films in my knowledge graph."
    return facts


def failure_reply(exc: Exception, text: str) -> Reply:
    """The friendly reply for a failure while answering `text` (logged with its traceback)."""
    if isinstance(exc, StoreError):
        log.error("knowledge graph error: %s", exc)
        return Reply(exc.user_message, Kind.ERROR, error=True)
    if isinstance(exc, PlanError):  # a plan no answerer can serve: said in words, as an answer about the question
        log.warning("cannot serve the plan of %r: %s", text[:200], exc)
        return Reply(exc.user_message, Kind.FACTUAL)
    log.error("failed to answer %r", text[:200], exc_info=exc)
    return Reply(exc.user_message if isinstance(exc, MoviebotError) else MoviebotError.user_message, Kind.ERROR, error=True)
