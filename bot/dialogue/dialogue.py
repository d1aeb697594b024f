"""Conversation around the agent, one state per room: follow-ups as edits of typed plans, and clarification.

The agent answers one question plan at a time; this layer makes a chat a conversation. Each room
keeps a `Tracker` (bot/dialogue/tracker.py): the events of its conversation. A message is handled as

1. a reply to a pending clarification ("the 1996 one", "the one with Maggie Smith"), if it is one;
2. read once by the agent (`Agent.read`), with the conversation's referents: a pronoun the message
   does not resolve itself is the last film / person / answer of the right type ("who directed it",
   "what else did she do"), and a message that names nothing asks about the last topic ("and the
   music?"); a name in the message always wins;
3. a dialogue act the plan alone does not say: starting over, a liked film, "are you sure? wasn't it X";
4. a follow-up that edits an earlier plan (bot/dialogue/follow_ups.py): "and Heat?", "sorry, I meant X",
   "which is longest" after a list, "name them", "what else" leaving out the films talked about;
5. answered (`Agent.respond`), and asked back instead when films of the same title match about equally
   ("Do you mean Hamlet (1948), (1990) or (1996)?").

The plan and its facts become events of the tracker; every edit is a "dialogue" step of the reply trace.
"""

from __future__ import annotations

import re
import time
from dataclasses import replace

from bot.agent import Agent, Answered, Reading, failure_reply
from bot.core.contracts import Facts, LinkedEntity, Message, Reply, TraceStep, Understanding
from bot.core.kinds import Kind, spec
from bot.core.text import YEAR, join_labels, join_or, tokens
from bot.dialogue.follow_ups import NEWEST, ORIGINAL, FollowUps, with_entity
from bot.dialogue.memory_store import MemoryStore, memory_store
from bot.dialogue.recommendations import ACCUMULATE, Recommendations
from bot.dialogue.tracker import Event, Option, Tracker
from bot.understanding.referents import GENDERED

MAX_OPTIONS = 4

LIKE_STATEMENT = re.compile(r"\b(?:i|we)\s+(?:also\s+|really\s+|just\s+|do\s+|did\s+|totally\s+)*(?:like|liked|love|loved|enjoy|enjoyed|adore|adored)\b", re.I)
# "are you sure? wasn't it Ennio Morricone?": the previous question checked against the name
CHALLENGE = re.compile(r"^\W*(?:(?:are you sure|really|hm+|hmm+|no|wait|huh)\W+)*(?:wasn'?t it|isn'?t it|was it not|is it not|"
                       r"i thought it was|i thought it'?s)\b", re.I)  # not a bare "not ...": "not bad" is no challenge
RESET = re.compile(r"^\W*(forget (it|everything|that|what i (said|like[sd]?))|start over|reset|new topic)\W*$", re.I)
YES = re.compile(r"^\W*(yes|yeah|yep|yup|y|sure|correct|right|exactly|that one|indeed|of course|ja)\b", re.I)
NO = re.compile(r"^\W*(no|nope|nah|n|neither|none|wrong|not that)\b", re.I)
ORDINALS = {"first": 0, "1st": 0, "one": 0, "second": 1, "2nd": 1, "two": 1, "third": 2, "3rd": 2, "three": 2, "fourth": 3, "4th": 3, "four": 3}


class Dialogue:
    """Answers chat messages with conversation memory; `reply(message)` never raises for bad input.

    Rooms are independent: different rooms may be answered from different threads at once,
    one message per room at a time (the Runner guarantees that).
    """

    def __init__(self, agent: Agent, store: MemoryStore | None = None):
        self.agent = agent
        self.labels = agent.kg.labels
        self.follow = FollowUps(agent)
        self.recommendations = Recommendations(agent)  # recommendation requests and their follow-ups (issue 31)
        self.store = store or memory_store(agent.settings, Tracker)  # shared by replicas when `memory_db` is set

    def memory(self, room: str) -> Tracker:
        return self.store.load(room) or Tracker(room)

    def forget(self, room: str) -> None:
        """Drop a room's memory (a replayed question is a conversation of its own)."""
        self.store.forget(room)

    def reply(self, message: Message) -> Reply:
        tracker = self.memory(message.room)
        try:
            reply = self._reply(message, tracker)
        except Exception as exc:  # noqa: BLE001 - a follow-up's lookup that fails (a remote graph gone) is said, not shown
            reply = failure_reply(exc, message.text or "")
        self.store.save(message.room, tracker)
        return reply

    def _reply(self, message: Message, tracker: Tracker) -> Reply:
        text = (message.text or "").strip()
        pending = tracker.pending()
        tracker.said(text)
        notes: dict = {}
        reading = self.agent.read(text, tracker.referents(self.follow))
        plan = reading.plan
        if plan is None:  # a SPARQL query, an empty or too long message: answered as it is, no turn, no choice of a namesake
            return self.agent.respond(reading, tracker.conversation(), message.sender).reply
        if pending is not None and (chosen := _choose(pending.options, text)) is not None:
            return _with_note(self._chosen(pending, chosen, tracker, notes), notes)
        referred = [said for step in reading.steps for said in step.detail.get("referents", ())]
        if referred:
            notes["referents"] = referred
        called = _called(referred, plan)
        if pending is not None:
            resolved = self._resolve(pending, reading, tracker, notes)
            if resolved is not None:
                return _with_note(resolved, notes)
        if RESET.match(text):
            tracker.reset()
            return Reply("Okay, let's start over. What would you like to know about films?", Kind.SMALLTALK)
        for act in (self._like_statement, self._challenge, self._recommendations):
            said = act(reading, tracker, notes)
            if said is not None:
                return _with_note(said, notes)
        version = self._version(reading, tracker, notes)
        if version is not None:
            return _with_note(version, notes)
        edited = self._follow_up(plan, text, tracker, notes)
        if isinstance(edited, str):  # the previous question again, said another way: read as a question of its own
            notes["edit"] = f"asked again: {edited}"
            reading = self.agent.read(edited, tracker.referents(self.follow))
            edited = reading.plan if reading.plan is not None else plan
        plan = self.follow.without_earlier(edited, tracker)
        sets = self.follow.resolve_sets(plan, tracker)
        if isinstance(sets, str):
            return _with_note(self._not_those(sets, plan, reading, tracker), notes)
        plan = sets
        answered = self.agent.respond(replace(reading, plan=plan), tracker.conversation(), message.sender)
        return _with_note(self._answered(answered, tracker, notes, called), notes)

    def _not_those(self, said: str, plan: Understanding, reading: Reading, tracker: Tracker) -> Reply:
        """What to say when a plan points at films the conversation never listed, and the answers of the message's
        other questions ("is Stand by Me based on a book? which one?")."""
        replies, texts, answers = [], [said], []
        for other in plan.also:
            answered = self.agent.respond(replace(reading, plan=other), tracker.conversation())
            replies.append(answered.reply)
            texts.append(answered.reply.text)
            answers += answered.reply.answers
        tracker.answered(plan, Facts(Kind.FACTUAL, plan.text, topic=plan.entities, message=" ".join(texts)))
        trace = replies[-1].trace if replies else list(reading.steps)
        return Reply(" ".join(texts), Kind.FACTUAL, answers=answers, entities=plan.entities, trace=trace)

    def _answered(self, answered: Answered, tracker: Tracker, notes: dict, called: dict[str, str] | None = None) -> Reply:
        """The reply, or a clarifying question instead when it was about one of several films of the same title."""
        reply, plan = answered.reply, answered.plan
        clarification = self._clarification(plan, reply) if plan is not None else None
        if clarification is not None:
            at, options = clarification
            tracker.asked_back(plan, at, options)
            notes["clarify"] = [o.display() for o in options]
            return Reply(_clarifying_question(options), Kind.CLARIFY, entities=reply.entities, trace=reply.trace, latency_ms=reply.latency_ms)
        if plan is not None and answered.facts is not None:
            tracker.answered(plan, answered.facts, called)
        return reply

    # --- follow-ups ----------------------------------------------------------------------------

    def _follow_up(self, plan: Understanding, text: str, tracker: Tracker, notes: dict) -> Understanding | str:
        """The plan a follow-up stands for (an earlier plan, edited), or the plan as read."""
        if not tracker.turns():
            return plan
        edits = (("list", lambda: self.follow.list_them(text, tracker)),
                 ("shared with", lambda: self.follow.also_in(plan, text, tracker)),
                 ("correction", lambda: self.follow.correction(plan, text, tracker)),
                 ("another topic", lambda: self.follow.another_topic(plan, tracker)),
                 ("narrowed", lambda: self.follow.narrowed(plan, text, tracker)),
                 ("what else", lambda: self.follow.what_else(plan, text, tracker)),
                 ("who else", lambda: self.follow.who_else(plan, text, tracker)),
                 ("in the series", lambda: self.follow.series_film(plan, text, tracker)))
        for name, edit in edits:
            edited = edit()
            if edited is not None:
                if not isinstance(edited, str):
                    notes["edit"] = f"{name}: {edited.text}"
                return edited
        scoped = self.follow.over_the_list(plan, text, tracker)
        if scoped is not plan:
            notes["edit"] = "over the last list"
        return scoped

    def _version(self, reading: Reading, tracker: Tracker, notes: dict) -> Reply | None:
        """"De Palma's version then. Who wrote it?", "no, the one with Kenneth Branagh": the message's own question about
        the version of the last title the person is credited on, else the last question again about it."""
        meant = self.follow.version_meant(reading.plan, reading.text, tracker)
        if meant is None:
            return None
        version, at = meant
        film = version.entity()
        again = self.agent.read(reading.text, replace(tracker.referents(self.follow), film=film, topic=film))
        own = again.plan
        if own is None or own.kind != Kind.FACTUAL:
            return None
        asks = [a for a in own.asks if a.after is None and 0 <= a.topic < len(own.entities) and own.entities[a.topic].iri == version.iri]
        if asks and not own.compositional:
            edited = replace(own, asks=asks, also=[], unclear="", missing="", not_found=[], confidence=max(own.confidence, 0.5))
        elif at is not None and not own.compositional and not own.asks:
            edited = with_entity(tracker.last_plan(), at, film)
            people = [e for e in own.entities if e.group == "person" and e.iri not in {n.iri for n in edited.entities}]
            edited = replace(edited, entities=[*edited.entities, *people])  # named by this turn: "who else is in it?" leaves them out
        else:
            return None
        notes["edit"] = f"version: {version.display()}"
        return self._answered(self.agent.respond(replace(again, plan=edited), tracker.conversation()), tracker, notes)

    def _challenge(self, reading: Reading, tracker: Tracker, notes: dict) -> Reply | None:
        """"Are you sure? Wasn't it X?": the previous question answered again, and whether X is among its answers.

        The reply states the graph's answer either way; nothing is changed because the user insists."""
        plan = reading.plan
        turns = tracker.turns()
        if not CHALLENGE.match(reading.text) or not turns or not plan.entities:
            return None
        earlier, facts = turns[-1]
        if earlier.kind != Kind.FACTUAL or not facts.answers:
            return None
        named = {e.iri for e in plan.entities}
        again = self.agent.respond(Reading(earlier.text, plan=earlier, started=time.perf_counter()), tracker.conversation())
        if again.reply.kind != Kind.FACTUAL or not again.reply.answers or again.facts is None:
            return None
        tracker.answered(earlier, again.facts)
        notes["challenge"] = plan.entities[0].label
        agrees = any(a.iri in named for a in again.facts.answers)
        lead = f"Yes — {plan.entities[0].label} is right. " if agrees else "No, not according to my knowledge graph. "
        reply = again.reply
        return Reply(lead + reply.text, reply.kind, answers=reply.answers, entities=reply.entities, trace=reply.trace,
                     latency_ms=reply.latency_ms, facts=reply.facts)

    # --- liked films (recommendations) --------------------------------------------------------

    def _like_statement(self, reading: Reading, tracker: Tracker, notes: dict) -> Reply | None:
        """'I loved Heat.' is remembered for later recommendations, not answered as a question."""
        plan = reading.plan
        match = LIKE_STATEMENT.search(plan.text)
        if not match or "?" in plan.text or plan.kind == Kind.RECOMMENDATION:
            return None
        if any(e.start <= match.start() < e.end for e in plan.entities):
            return None  # "which films share the screenwriter of I Love You, Man": the words are a title
        films = self._films_named(plan.text)
        if not films:
            return None
        tracker.likes(films)
        notes["liked"] = [o.display() for o in tracker.liked()]
        names = join_labels([o.display() for o in films])
        return Reply(
            f"Noted: you like {names}. Ask me for recommendations whenever you want, e.g. \"What should I watch?\"",
            Kind.MEMORY,
            entities=[o.entity() for o in films],
        )

    def _films_named(self, text: str) -> list[Option]:
        """Every film a statement names ("I loved Heat and Collateral"): a statement is no question, so its plan holds
        only the name it would be about; the names are looked up once more for it."""
        understander = self.agent.understander
        toks = tokens(text)
        entities = understander.all_entities(text, toks, understander.candidate_spans(text, toks))
        return [Option(e.iri, e.label, e.year) for e in entities if e.group == "film"]

    def _recommendations(self, reading: Reading, tracker: Tracker, notes: dict) -> Reply | None:
        """A recommendation request or a follow-up of one (bot.dialogue.recommendations keeps that state: the last
        request, its picks, what was seen or excluded), answered with the conversation's part in it; None otherwise."""
        edited = self.recommendations.plan(reading.text, tracker.turns(), [o.iri for o in tracker.liked()], reading.plan)
        if edited is None or isinstance(edited, Reply):
            return edited
        if isinstance(edited, str):  # "who directed the second one?": the question about that pick
            notes["edit"] = f"about a pick: {edited}"
            again = self.agent.read(edited, tracker.referents(self.follow))
            return self._answered(self.agent.respond(again, tracker.conversation()), tracker, notes)
        request = edited.recommendation
        named = [Option(e.iri, e.label, e.year) for e in edited.entities if e.group == "film" and any(e.iri in s.iris for s in request.seeds)]
        if named and not ACCUMULATE.search(reading.text):
            tracker.starts_liking(named)  # a fresh request that names its own films starts a new list
        elif named:
            tracker.likes(named)
        notes["liked"] = [o.display() for o in tracker.liked()]
        notes["recommendation"] = {"seeds": [s.label for s in request.seeds], "seen": [s.label for s in request.seen],
                                   "excluded": [s.label for s in request.excluded], "conditions": [c.said for c in request.conditions]}
        answered = self.agent.respond(replace(reading, plan=edited), tracker.conversation())
        if answered.facts is not None:  # the turn names the seeds' films too: "what else has Harrison Ford been in?" leaves them out
            named_iris = {e.iri for e in edited.entities}
            answered = replace(answered, plan=replace(edited, entities=edited.entities + [e for e in answered.facts.topic if e.iri not in named_iris]))
        return self._answered(answered, tracker, notes)

    # --- clarification -----------------------------------------------------------------------

    def _clarification(self, plan: Understanding, reply: Reply) -> tuple[int, list[Option]] | None:
        """Ask back when several films share the title and nothing in the question chose one (a year, a person,
        'the original'): the same policy in every chat and in replay."""
        kind = spec(reply.kind)
        if kind is None or not kind.clarifies or not plan.entities:
            return None
        topic = plan.entities[0]
        if topic.year and topic.alternatives and not topic.selected_by and not YEAR.search(plan.text):
            rivals = [Option(a["iri"], a["label"], a["year"]) for a in topic.alternatives if a.get("year") and a["year"] != topic.year]
            if rivals:
                return 0, [Option(topic.iri, topic.label, topic.year)] + rivals[: MAX_OPTIONS - 1]
        return None

    def _resolve(self, pending: Event, reading: Reading, tracker: Tracker, notes: dict) -> Reply | None:
        """A reply to the clarification that names a person of one of the films ("the one with Maggie Smith"), or
        declines; None when the message is something else (a new question)."""
        plan = reading.plan
        title = pending.plan.entities[pending.at].label if 0 <= pending.at < len(pending.plan.entities) else ""
        for person in (e for e in plan.entities if e.group == "person"):
            linked = self.follow.linked(pending.options, person.iri)
            if not linked and title:  # "no, the one with Leonardo DiCaprio": an adaptation of that title, not a namesake
                version = self.follow.version_with(title, person, pending.options)
                linked = [version] if version is not None else []
            if len(linked) != 1:
                continue
            chosen = self._pinned(pending, linked[0])
            # "sorry, I meant the Kenneth Branagh one. how long is it?": the choice, and a question of its own about it
            again = self.agent.read(reading.text, replace(tracker.referents(self.follow), film=chosen, topic=chosen))
            own = again.plan is not None and again.plan.kind == Kind.FACTUAL and (again.plan.asks or again.plan.compositional) and any(
                e.iri == chosen.iri for e in again.plan.entities)
            if not own:
                return self._chosen(pending, linked[0], tracker, notes, by=person)
            self._record_choice(pending, linked[0], tracker, notes)
            return self._answered(self.agent.respond(again, tracker.conversation()), tracker, notes)
        if NO.match(reading.text) and len(reading.text) < 40:
            notes["clarify"] = "declined"
            if len(pending.options) == 1:
                return Reply("Okay. Please check the spelling of the title or name, or ask about another film.", Kind.CLARIFY)
            named = pending.plan.entities[pending.at]
            example = pending.plan.text[: named.start] + self._mention(pending.options[-1]) + pending.plan.text[named.end :]
            return Reply(f"Okay. Which one did you mean? You can add the year, e.g. \"{example}\"", Kind.CLARIFY)
        return None

    def _pinned(self, pending: Event, chosen: Option) -> LinkedEntity:
        """The chosen film, with the other options kept as its namesakes ("no, I meant the other one")."""
        others = [{"iri": o.iri, "label": o.label, "year": o.year, "group": "film"} for o in pending.options if o.iri != chosen.iri]
        return replace(chosen.entity(), alternatives=others, selected_by="choice")

    def _record_choice(self, pending: Event, chosen: Option, tracker: Tracker, notes: dict) -> None:
        tracker.chose(chosen)
        notes["clarify"] = f"chose {chosen.display()}"

    def _chosen(self, pending: Event, chosen: Option, tracker: Tracker, notes: dict, by: LinkedEntity | None = None) -> Reply:
        """The pending question answered about the option the user chose (`by`: the person the user chose it by, whom
        the turn then names too: "who else is in it?" leaves them out, "what else was he in?" is about them)."""
        self._record_choice(pending, chosen, tracker, notes)
        plan = with_entity(pending.plan, pending.at, self._pinned(pending, chosen))
        answered = self.agent.respond(Reading(plan.text, plan=plan, started=time.perf_counter()), tracker.conversation())
        if answered.facts is not None:
            tracker.answered(replace(plan, entities=[*plan.entities, by]) if by is not None else plan, answered.facts)
        return answered.reply

    def _mention(self, option: Option) -> str:
        """How to write the film so it is told from its namesakes: the label, plus the year for shared labels."""
        return f"{option.label} {option.year}" if option.year else option.label


def _called(referred: list[str], plan: Understanding) -> dict[str, str]:
    """The people the message called "he" or "she" (IRI -> the word), from what its pronouns were read as."""
    called = {}
    for said in referred:
        words, _, meant = said.partition(" = ")
        gender = GENDERED.get(words.strip().lower().split()[0]) if words.strip() else None
        if gender is not None:
            called.update({e.iri: gender for e in plan.entities if e.label == meant and e.group == "person"})
    return called


def _choose(options: list[Option], text: str) -> Option | None:
    """The option a reply to a clarification picks by its words: a year, "the newer one", "the second", "yes"."""
    if len(options) == 1:
        return options[0] if YES.match(text) else None
    years = {int(y) for y in YEAR.findall(text)}
    by_year = [o for o in options if o.year in years]
    if len(by_year) == 1:
        return by_year[0]
    words = [t for t, _, _ in tokens(text)]
    if len(words) <= 5:
        dated = [o for o in options if o.year]
        if dated and NEWEST & set(words):  # "no, the newer one"
            return max(dated, key=lambda o: o.year)
        if dated and (ORIGINAL & set(words) or "old" in words):
            return min(dated, key=lambda o: o.year)
        for word in words:
            if word == "one" and len(words) > 1:
                continue  # "the other one", "that one": not a number
            if word in ORDINALS and ORDINALS[word] < len(options):
                return sorted(options, key=lambda o: o.year or 0)[ORDINALS[word]]
            if word.isdigit() and 1 <= int(word) <= len(options):
                return sorted(options, key=lambda o: o.year or 0)[int(word) - 1]
        if YES.match(text):
            return options[0]
    return None


def _clarifying_question(options: list[Option]) -> str:
    if len(options) == 1:
        return f"Do you mean {options[0].display()}?"
    ordered = sorted(options, key=lambda o: o.year or 0)
    if len({o.label for o in ordered}) == 1:
        return f"Do you mean {ordered[0].label} {join_or([f'({o.year})' for o in ordered])}?"
    return f"Do you mean {join_or([o.display() for o in ordered])}?"


def _with_note(reply: Reply, notes: dict) -> Reply:
    if notes:
        reply.trace.insert(0, TraceStep("dialogue", 0.0, dict(notes)))
    return reply
