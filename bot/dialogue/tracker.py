"""The conversation state of one room: typed events, the way Rasa's tracker keeps a dialogue.

Everything the dialogue remembers is an `Event` appended to the room's `Tracker`: what the user
said, the plan it was read into (after the conversation's edits), the facts that answered it, a
clarification the bot asked and the choice that answered it, the films the user likes, and a reset
(a recommendation request's seen and excluded films are part of its plan, bot/dialogue/recommendations.py).
What a follow-up may point back at — the last film, person, list, plan — is read from the events
(`referents`, `last_films`, `turns`); nothing else is kept on the side. The tracker is plain
data: it goes to JSON and back with bot.core.contracts.to_data / from_data, so replicas that share
a room's memory (bot/dialogue/memory_store.py) go on with its follow-ups.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Protocol

from bot.core.contracts import Conversation, Facts, LinkedEntity, Referents, Understanding
from bot.core.terms import Op

MAX_LIKED = 12  # films remembered as liked, newest kept
MAX_PLURAL_REFERENTS = 5  # "they" stands for at most this many answers
KEEP_TURNS = 20  # answered turns kept; older events are dropped (the liked films are kept as the latest list)
LOOK_BACK = 4  # turns searched for the films "those" points at
THINGS = {"film", "series"}  # what "it" may stand for


class Kinds(Protocol):
    """What the state needs to know of the graph's entities."""

    def group(self, iri: str | None) -> str:
        """The class group of an entity ("film", "person", ...; "" when unknown)."""

    def namesake(self, entity: LinkedEntity, group: str) -> LinkedEntity | None:
        """The entity of `group` with the same label as `entity`, if there is one."""

    def year(self, iri: str) -> int | None:
        """A film's year."""


class Act(StrEnum):
    """What an event records."""

    MESSAGE = "message"  # the user's words
    PLAN = "plan"  # the plan the message was read into, after the conversation's edits
    RESULT = "result"  # the facts that answered the plan before it
    CLARIFY = "clarify"  # the bot asked which entity was meant (`options`; `plan` waits for the choice)
    CHOSEN = "chosen"  # the user chose one of the options
    LIKED = "liked"  # the films the user likes, all of them (the latest such event holds the list)
    RESET = "reset"  # the user started over: nothing before it is referred to


@dataclass
class Option:
    """One entity the user may have meant."""

    iri: str
    label: str
    year: int | None

    def display(self) -> str:
        return f"{self.label} ({self.year})" if self.year else self.label

    def entity(self, group: str = "film") -> LinkedEntity:
        return LinkedEntity(self.label, self.iri, self.label, 100.0, group, year=self.year)


@dataclass
class Event:
    """One thing that happened in the conversation (`act` says which; the other fields as it needs them)."""

    act: str  # an Act
    text: str = ""
    plan: Understanding | None = None
    facts: Facts | None = None
    options: list[Option] = field(default_factory=list)
    at: int = -1  # CLARIFY: the index of the ambiguous entity in `plan.entities`
    called: dict[str, str] = field(default_factory=dict)  # PLAN: people the message called "he" or "she" (IRI -> the word)


@dataclass
class Tracker:
    """One room's conversation as events, oldest first."""

    room: str = ""
    events: list[Event] = field(default_factory=list)

    # --- recording -----------------------------------------------------------------------

    def said(self, text: str) -> None:
        self.events.append(Event(Act.MESSAGE, text=text))

    def answered(self, plan: Understanding, facts: Facts, called: dict[str, str] | None = None) -> None:
        """A plan and the facts that answered it: a turn later messages may refer to (`called`: the people the message
        referred to as "he" or "she", by IRI)."""
        self.events += [Event(Act.PLAN, plan=plan, called=dict(called or {})), Event(Act.RESULT, facts=facts)]
        self._trim()

    def asked_back(self, plan: Understanding, at: int, options: list[Option]) -> None:
        self.events.append(Event(Act.CLARIFY, plan=plan, options=options, at=at))

    def chose(self, option: Option) -> None:
        self.events.append(Event(Act.CHOSEN, options=[option]))

    def likes(self, films: list[Option]) -> None:
        """Films the user said they like, added to those liked before (the newest MAX_LIKED are kept)."""
        self.events.append(Event(Act.LIKED, options=_merged(self.liked(), films)))

    def starts_liking(self, films: list[Option]) -> None:
        """A request that names its own films starts a new list of liked films."""
        self.events.append(Event(Act.LIKED, options=films[-MAX_LIKED:]))

    def reset(self) -> None:
        self.events = [Event(Act.RESET)]

    def _trim(self) -> None:
        plans = [n for n, e in enumerate(self.events) if e.act == Act.PLAN]
        if len(plans) <= KEEP_TURNS:
            return
        cut = plans[-KEEP_TURNS]
        liked = self._latest(Act.LIKED, cut)
        self.events = ([liked] if liked is not None else []) + self.events[cut:]

    def _latest(self, act: Act, before: int | None = None) -> Event | None:
        return next((e for e in reversed(self.events[:before]) if e.act == act), None)

    # --- reading ---------------------------------------------------------------------------

    def _since_reset(self) -> list[Event]:
        last = max((n for n, e in enumerate(self.events) if e.act == Act.RESET), default=-1)
        return self.events[last + 1 :]

    def turns(self) -> list[tuple[Understanding, Facts]]:
        """The answered turns since the last reset, oldest first: (plan, facts)."""
        events = self._since_reset()
        return [(e.plan, n.facts) for e, n in zip(events, events[1:]) if e.act == Act.PLAN and n.act == Act.RESULT
                and e.plan is not None and n.facts is not None]

    def conversation(self) -> Conversation:
        """The turns as the agent's handlers read them (bot.core.contracts.Conversation)."""
        return Conversation(self.room, self.turns())

    def pending(self) -> Event | None:
        """The clarification the bot asked last, when the user has not said anything since."""
        last = self.events[-1] if self.events else None
        return last if last is not None and last.act == Act.CLARIFY else None

    def liked(self) -> list[Option]:
        latest = next((e for e in reversed(self._since_reset()) if e.act == Act.LIKED), None)
        return list(latest.options) if latest is not None else []

    def last_plan(self) -> Understanding | None:
        turns = self.turns()
        return turns[-1][0] if turns else None

    def referents(self, kinds: Kinds) -> Referents:
        """What pronouns of the next message may point at (`kinds`: the graph's class groups and namesakes)."""
        turns = self.turns()
        if not turns:
            return Referents()
        called: dict[str, str] = {}
        for event in self._since_reset():
            called.update(event.called)
        people = list(self._recent("person", kinds))
        return Referents(film=self.last_entity("film", kinds), person=people[0] if people else None,
                         he=next((p for p in people if called.get(p.iri) != "she"), None),
                         she=next((p for p in people if called.get(p.iri) != "he"), None),
                         answers=tuple(self._last_answers(kinds)), people=tuple(people[:2]), films=tuple(self._two_films(kinds)),
                         listed=tuple(replace(_entity(iri, "", "film"), label=label, text=label, year=kinds.year(iri))
                                      for iri, label in self._listed(kinds)),
                         topic=self._topic(kinds))

    def last_entity(self, group: str, kinds: Kinds) -> LinkedEntity | None:
        """The entity of `group` the conversation was last about: a single answer, else an entity of the plan."""
        return next(self._recent(group, kinds), None)

    def _recent(self, group: str, kinds: Kinds):
        """The distinct entities of `group` the conversation was about, the latest first: per turn its one answer of
        the group, then the entities of its plan. A film is any thing talked about as one: a series too ("tell me about
        Pirates of the Caribbean" "who's in it?")."""
        groups = THINGS if group == "film" else {group}
        seen = set()
        for plan, facts in reversed(self.turns()):
            answers = [(a, g) for a in facts.answers if a.iri and (g := kinds.group(a.iri)) in groups]
            found = [_entity(a.iri, a.label, g) for a, g in answers] if len(answers) == 1 else []
            found += [_pinned(e) for e in plan.entities if e.group in groups]
            # "tell me about Coraline" read as the novel: "is it a horror?" is about the film of that name
            found += [n for e in plan.entities if e.group != group and (n := kinds.namesake(e, group)) is not None]
            for entity in found:
                if entity.iri not in seen:
                    seen.add(entity.iri)
                    yield entity

    def _last_answers(self, kinds: Kinds) -> list[LinkedEntity]:
        """The previous turn's answers when "they" can mean them: one person, or two to a few entities of one kind
        ("Who wrote Central Station?" "Did they also act in it?")."""
        _plan, facts = self.turns()[-1]
        found = [(a, kinds.group(a.iri)) for a in facts.answers if a.iri and kinds.group(a.iri)]
        groups = {g for _, g in found}
        if len(found) == 1 and groups == {"person"} or 2 <= len(found) <= MAX_PLURAL_REFERENTS and len(groups) == 1:
            return [_entity(a.iri, a.label, g) for a, g in found]
        return []

    def _listed(self, kinds: Kinds) -> list[tuple[str, str]]:
        """(IRI, label) of the films the last answer listed, when it listed two or more."""
        _plan, facts = self.turns()[-1]
        films = list({a.iri: a.label for a in facts.answers if a.iri and kinds.group(a.iri) == "film"}.items())
        return films if len(films) >= 2 else []

    def _two_films(self, kinds: Kinds) -> list[LinkedEntity]:
        """The two films the last turns were about, when the last turns were about exactly two ("... and Fargo?" "who shot
        both?"), or the two a turn named or answered ("I liked Raiders and The Last Crusade, anything similar?" "who's in
        both of those films?"); none when the last turn was about more."""
        gathered: list[LinkedEntity] = []
        for plan, facts in reversed(self.turns()[-LOOK_BACK:]):
            answered = list({a.iri: _entity(a.iri, a.label, "film") for a in facts.answers if a.iri and kinds.group(a.iri) == "film"}.values())
            named = list({e.iri: _pinned(e) for e in plan.entities if e.group == "film"}.values())
            if not gathered and (len(named) == 2 or len(answered) == 2):
                return named if len(named) == 2 else answered
            if len(answered) >= 2 or len(named) >= 2:
                return []
            for entity in [*named, *answered]:
                if entity.iri not in {g.iri for g in gathered}:
                    gathered.append(entity)
            if len(gathered) >= 2:
                return gathered[:2][::-1]  # in the order they were talked about
        return []

    def _topic(self, kinds: Kinds) -> LinkedEntity | None:
        """What a follow-up that names nothing asks about: the topic of the last relation question, or the film a
        composition answered ("which of those is based on a play?" "which play?")."""
        plan, facts = self.turns()[-1]
        if not plan.compositional and plan.asks and plan.entities:
            ask = plan.asks[0]
            if ask.after is None and 0 <= ask.topic < len(plan.entities):
                return _pinned(plan.entities[ask.topic])
        if not plan.asks and len(plan.entities) == 1 and not plan.compositional:
            return _pinned(plan.entities[0])  # "tell me about X" read as a topic only
        return self.last_entity("film", kinds)

    def last_films(self, kinds: Kinds, look_back: int = LOOK_BACK) -> list[str]:
        """The films "those" points at: the last answer that listed films, else the films the last few turns
        were about ("Who directed X?" "And Y?" "Which one is longer?")."""
        gathered: list[str] = []
        for plan, facts in reversed(self.turns()[-look_back:]):
            answered = [a.iri for a in facts.answers if a.iri and kinds.group(a.iri) == "film"]
            answered = list(dict.fromkeys(answered))
            if len(answered) >= 2 and not gathered:
                return answered
            # "which of those is the oldest?" "anything after 2000?": the list the superlative (or a filter that kept one
            # film) was over, not the one film it answered
            over = [v for c in plan.constraints if c.op == Op.AMONG for v in c.values]
            if len(answered) < 2 and len(over) >= 2 and set(gathered + answered) <= set(over):
                return list(dict.fromkeys(over))
            for iri in [e.iri for e in plan.entities if e.group == "film"] + answered:
                if iri not in gathered:
                    gathered.append(iri)
            if len(gathered) >= 2:
                return gathered
        return gathered


def _merged(earlier: list[Option], films: list[Option]) -> list[Option]:
    new = {o.iri for o in films}
    return ([o for o in earlier if o.iri not in new] + films)[-MAX_LIKED:]


def _entity(iri: str, label: str, group: str) -> LinkedEntity:
    return LinkedEntity(label, iri, label, 100.0, group)


def _pinned(entity: LinkedEntity) -> LinkedEntity:
    """The entity as a later message refers to it: itself, with no namesakes left to ask about."""
    return LinkedEntity(entity.label, entity.iri, entity.label, 100.0, entity.group, year=entity.year)
