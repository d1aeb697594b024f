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
from dataclasses import replace

from bot.answering.compose import ComposedAnswers
from bot.answering.factual import Retriever
from bot.answering.sparql import SparqlAnswerer
from bot.core.config import Settings
from bot.core.contracts import Constraint, Conversation, Facts, LinkedEntity, Reply, TraceStep, Understanding
from bot.core.errors import MoviebotError, PlanError, StoreError
from bot.core.features import Amender, Contribution, Fallback, Handler, Phraser
from bot.core.kinds import REGISTRY, Kind
from bot.core.results import FilmsResult
from bot.core.text import clean_message, join_labels, join_or
from bot.features import Loaded, load_features, run_build_steps
from bot.generation.templates import template_sentence
from bot.kg import queries
from bot.kg.graph import KG, build_graph, open_kg
from bot.understanding.classifier import load_classifier
from bot.understanding.parser import Understander
from bot.understanding.sparql_message import sparql_message

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
        """The reply to `text`; `sender` (who wrote it, in a chat) keys the per-person limits."""
        started = time.perf_counter()
        timer = Timer()
        conversation = conversation if conversation is not None else Conversation()
        try:
            reply = self._answer(text, conversation, timer, sender)
        except StoreError as exc:
            log.error("knowledge graph error: %s", exc)
            reply = Reply(exc.user_message, Kind.ERROR, error=True)
        except PlanError as exc:  # a plan no answerer can serve: said in words, as an answer about the question
            log.warning("cannot serve the plan of %r: %s", text[:200], exc)
            reply = Reply(exc.user_message, Kind.FACTUAL)
        except MoviebotError as exc:
            log.exception("failed to answer %r: %s", text[:200], exc)
            reply = Reply(exc.user_message, Kind.ERROR, error=True)
        except Exception:  # noqa: BLE001 - the chat must never see a traceback
            log.exception("failed to answer %r", text[:200])
            reply = Reply(MoviebotError.user_message, Kind.ERROR, error=True)
        reply.trace = timer.steps
        reply.latency_ms = (time.perf_counter() - started) * 1000
        return reply

    def _answer(self, text: str, conversation: Conversation, timer: Timer, sender: str = "") -> Reply:
        raw, text = text or "", clean_message(text or "")
        if not text:
            return Reply("Your message was empty. Ask me something about films, for example \"Who directed Casablanca?\"", Kind.EMPTY)
        if len(text) > MAX_MESSAGE_CHARS:
            return Reply(
                f"That message is {len(text):,} characters long; I can read questions of up to {MAX_MESSAGE_CHARS:,}. "
                "Please ask one question at a time.",
                Kind.TOO_LONG,
            )
        query = sparql_message(raw)  # the raw text: a query's line breaks matter (# comments end with them)
        if query is not None:
            return self.sparql.answer(query, sender, timer)
        with timer.stage("understand") as detail:
            understanding = self.understander.understand(text, detail)
            detail.update(
                kind=understanding.kind,
                chain=",".join(h.code for h in understanding.chain),
                confidence=round(understanding.confidence, 3),
                entities=[e.to_json() for e in understanding.entities],
            )
        with timer.stage("retrieve") as detail:
            facts = self._facts(understanding, conversation)
            detail.update(source=facts.source, answers=len(facts.answers), **{k: v for k, v in facts.extra.items() if k == "sparql"})
        with timer.stage("phrase") as detail:
            sentence = template_sentence(facts, self.kg.bundle)
            if self.phraser is not None and facts.answers:
                sentence = self.phraser.phrase(facts, sentence, detail)
            detail["path"] = sentence.path
        conversation.remember(understanding, facts)
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
            resolved = self._with_conversation_films(understanding, conversation)
            composed = resolved if isinstance(resolved, Facts) else self.composed.answer(resolved)
            if not understanding.also:
                return composed
            parts = [composed, *(self._factual(other, conversation) for other in understanding.also)]
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
            if ask.others:
                facts = without_earlier(facts, understanding, conversation)
            if ask.families:
                wanted = set(ask.families)
                facts.answers = [a for a in facts.answers if a.iri in wanted]
                facts.facts = [f for f in facts.facts if f.value in wanted]
            if ask.excluded:  # "apart from X, who is in the cast?"
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

    def _with_conversation_films(self, understanding: Understanding, conversation: Conversation) -> Understanding | Facts:
        """The plan with "of those" / "other" conditions turned into the films the conversation is about;
        a question about "those films" with none earlier is asked back, never answered about all films."""
        if not any(c.op in ("earlier", "not_earlier") for c in understanding.constraints):
            return understanding
        constraints = []
        for c in understanding.constraints:
            if c.op == "earlier" and (whole := cut_list_conditions(conversation)):
                constraints += whole  # "which of those are from the 70s?" after 25 of 80 crime films: all 80, not the 25 shown
                continue
            if c.op == "earlier":
                films = listed_films(conversation, self.kg)
                if len(films) < 2 and conversation.turns and len(conversation.turns[-1][1].answers) >= 2:
                    return Facts(Kind.FACTUAL, understanding.text, topic=understanding.entities, message=(
                        "I can only compare films that way, and my last answer was not a list of films."))
                if len(films) < 2:
                    return Facts(Kind.FACTUAL, understanding.text, topic=understanding.entities, message=(
                        "Which films do you mean? Ask me for some first, for example \"Which films did Christopher Nolan direct?\", "
                        "then \"which of those is the longest?\""))
                constraints.append(replace(c, op="among", values=tuple(films)))
            elif c.op == "not_earlier":
                named = named_films(understanding, conversation, self.kg)
                if named:
                    constraints.append(replace(c, op="not_among", values=tuple(named)))
            else:
                constraints.append(c)
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


def _films_of(kg: KG, iris) -> list[str]:
    out = []
    for value in iris:
        info = kg.labels.info(value) if value else None
        if info is not None and info[1] == "film" and value not in out:
            out.append(value)
    return out


def cut_list_conditions(conversation: Conversation) -> list[Constraint]:
    """The conditions of the last answer when it listed only part of the films that meet them (the best known 25 of
    80): "those" are all of them. Empty when the last answer listed every film it found, or was no such list."""
    if not conversation.turns:
        return []
    understanding, facts = conversation.turns[-1]
    if not isinstance(facts.result, FilmsResult) or facts.result.total <= len(facts.answers):
        return []
    if any(c.op in ("earlier", "not_earlier") for c in understanding.constraints):
        return []  # a list that was itself drawn from earlier films: those films are what it listed
    return list(understanding.constraints)


def listed_films(conversation: Conversation, kg: KG, look_back: int = 4) -> list[str]:
    """The films "those" points at: the last answer that listed films, else the films the last few turns
    were about ("Who directed X?" "And Y?" "Which one is longer?")."""
    gathered: list[str] = []
    for understanding, facts in reversed(conversation.turns[-look_back:]):
        answered = _films_of(kg, [a.iri for a in facts.answers])
        if len(answered) >= 2 and not gathered:
            return answered
        gathered += [f for f in _films_of(kg, [e.iri for e in understanding.entities] + answered) if f not in gathered]
        if len(gathered) >= 2:
            return gathered
    return gathered


def named_films(understanding: Understanding, conversation: Conversation, kg: KG) -> list[str]:
    """The films this message and the previous turn named or answered ("any other films together?")."""
    iris = [e.iri for e in understanding.entities]
    if conversation.turns:
        earlier_understanding, earlier_facts = conversation.turns[-1]
        iris += [e.iri for e in earlier_understanding.entities] + [a.iri for a in earlier_facts.answers if a.iri]
    return _films_of(kg, iris)


def without_earlier(facts: Facts, understanding: Understanding, conversation: Conversation) -> Facts:
    """'What else' / 'which other': leave out the films this message and the previous turn named."""
    named = {e.iri for e in understanding.entities}
    if conversation.turns:
        earlier_understanding, earlier_facts = conversation.turns[-1]
        named |= {e.iri for e in earlier_understanding.entities} | {a.iri for a in earlier_facts.answers if a.iri}
    kept = [a for a in facts.answers if a.iri not in named]
    if len(kept) == len(facts.answers):
        return facts
    facts.answers = kept
    facts.facts = [f for f in facts.facts if f.value not in named]
    if not kept:
        topic = facts.topic[0].label if facts.topic else "That"
        facts.message = f"{topic} has no other films in my knowledge graph."
    return facts
