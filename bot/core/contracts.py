"""The typed contracts between the pipeline stages.

Data flows one way: chat -> Message -> Understanding -> Facts -> Sentence -> Reply -> chat.
Every stage takes one of these dataclasses and returns the next one.
"""

from __future__ import annotations

import time
import types
import typing
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from enum import Enum
from functools import cache
from typing import Any

from bot.core.results import Result
from bot.core.terms import AggregateOp, Check, Op


@dataclass(frozen=True)
class Message:
    """One chat message as a connector saw it."""

    room: str
    sender: str
    text: str
    time: float = field(default_factory=time.time)


@dataclass(frozen=True)
class Hop:
    """One step along a relation: from a film to its value (forward) or from a value to its films."""

    relation: str
    to_value: bool

    @property
    def code(self) -> str:
        return f"{self.relation}{'+' if self.to_value else '-'}"

    @classmethod
    def parse(cls, code: str) -> Hop:
        return cls(code[:-1], code.endswith("+"))


def chain_code(chain: tuple[Hop, ...]) -> str:
    return ",".join(h.code for h in chain)


def parse_chain(code: str) -> tuple[Hop, ...]:
    return tuple(Hop.parse(c) for c in code.split(",") if c)


@dataclass
class LinkedEntity:
    """A mention validated against the KG: an IRI with its label and how well it matched."""

    text: str
    iri: str
    label: str
    score: float  # 0-100 (rapidfuzz scale)
    group: str  # class group of the entity ("film", "person", "genre", ...)
    start: int = 0
    end: int = 0
    year: int | None = None
    alternatives: list[dict] = field(default_factory=list)  # other entities with the same label
    selected_by: str = ""  # what in the question chose it among them: "year", "person", "original", "newest", "spelling"
    # a family said as one ("the Coen brothers", bot.kg.families): every member's IRI; `iri` is the first of them
    members: tuple[str, ...] = ()

    @property
    def iris(self) -> tuple[str, ...]:
        """The entity's IRI, or its members' for a family."""
        return self.members or (self.iri,)

    def to_json(self) -> dict:
        return {"text": self.text, "iri": self.iri, "label": self.label, "score": round(self.score, 1), "group": self.group}


@dataclass(frozen=True)
class Ask:
    """One question of a message: a relation chain followed from a topic entity."""

    chain: tuple[Hop, ...]
    topic: int = 0  # index of the topic in Understanding.entities
    after: int | None = None  # the topic is instead the answer of this earlier ask ("... and what else did they direct?")
    text: str = ""  # the part of the message it was read from
    confidence: float = 0.0
    others: bool = False  # "what else", "which other": the films the message or conversation named are left out
    families: tuple[str, ...] = ()  # only these values answer it ("which Oscars": the Academy Awards among the awards)
    excluded: tuple[str, ...] = ()  # values left out of the answers ("apart from X", "besides X", "alongside X")
    # the topic is the answer of the message's composition ("which of Nolan's films is the longest and who scored it?")
    of_composition: bool = False


@dataclass(frozen=True)
class Constraint:
    """A condition on the films a question is about: 'from the 90s', 'comedies', 'directed by X', 'over 2 hours'."""

    relations: tuple[str, ...]  # bundle relations the condition is on (several: "films X made" = any role of X)
    op: Op  # see bot.core.terms.Op; a name that is no operator fails here, where it is written
    values: tuple[str, ...]  # entity IRIs for in/not_in/among/not_among; one number (as text) for the comparisons
    said: str = ""  # the words the user used, for the reply ("from the 1990s", "comedies")
    named_role: bool = False  # a person's role was said ("with X", "directed by X", "X films"), not just the name ("a fan of X")

    def __post_init__(self):
        object.__setattr__(self, "op", Op(self.op))


@dataclass(frozen=True)
class Aggregate:
    """What to do with the answers: count them, keep the one with the greatest or smallest value, or find the
    value most of them share ("who directed the most films")."""

    op: AggregateOp  # any: a yes/no question, whether any film meets the conditions (the answers are those films)
    relation: str = ""  # max/min: the relation ordered by; most: the relation whose values are counted over the films
    families: tuple[str, ...] = ()  # count/most of values: only these values count (the Academy Awards among awards)
    rank: int = 1  # max/min: the films at this place of the order ("her second film": 2, by release)

    def __post_init__(self):
        object.__setattr__(self, "op", AggregateOp(self.op))


@dataclass(frozen=True)
class Comparison:
    """Two or more entities compared on a date, a number or a count: 'Which is longer, A or B?'."""

    relation: str  # the relation whose values are compared
    greater: bool  # the greater value wins ("longer", "later", "more"); else the smaller
    entities: tuple[int, ...]  # indices into Understanding.entities
    count: bool = False  # compare how many values each has ("more Oscars", "more films")
    families: tuple[str, ...] = ()  # with count: the values that count (IRIs)
    asked: str = ""  # yes/no form ("Is Heat older than Casino?"): the adjective asked about; "" for "which"


@dataclass(frozen=True)
class Verification:
    """A yes/no question: does the topic reach the value along the relation ('Did Ridley Scott direct Alien?')."""

    relation: str
    topic: int  # index of the film (or the entity the relation starts from) in Understanding.entities
    value: int | None = None  # index of the value entity; None for a literal
    op: Check = Check.EQUALS  # for literals: "=" (a year), ">" / "<" (a number, e.g. minutes)
    literal: str = ""
    families: tuple[str, ...] = ()  # the value is any of these IRIs ("an Oscar")
    listed: bool = False  # "did it win any awards": the values found answer it, not a bare yes

    def __post_init__(self):
        object.__setattr__(self, "op", Check(self.op))


@dataclass(frozen=True)
class Shared:
    """What two or more entities have in common along a chain: 'Who acted in both The Godfather and Heat?',
    'Were Alien and Blade Runner directed by the same person?' (asked), 'Which actors worked in films by both
    Scorsese and Coppola?'."""

    chain: tuple[Hop, ...]  # from each entity to the values compared
    entities: tuple[int, ...]  # indices into Understanding.entities
    asked: bool = False  # yes/no form: whether they have a value in common


@dataclass(frozen=True)
class Overview:
    """'Tell me about Heat': a short summary of one film or person along the relations chosen for it."""

    topic: int  # index of the film or person in Understanding.entities
    relations: tuple[str, ...]  # a film: the relations to report, in order; a person: their possible roles
    most: tuple[int, ...] = ()  # a film: how many values of each relation to name (the best known first)
    known_for: int = 0  # a person: how many of their best-known films to name


@dataclass(frozen=True)
class Collaboration:
    """The people on one person's films: 'Who has Scorsese worked with the most?', 'Nolan's go-to composer' (no partners:
    the most frequent), 'Has Scorsese worked with De Niro more often than with DiCaprio?' (partners: how many of the
    person's films each of them shares)."""

    person: int  # index in Understanding.entities of the person whose films are looked at
    roles: tuple[str, ...]  # the person's roles on those films
    partner_roles: tuple[str, ...]  # the roles the others hold on them (every person relation when the words name none)
    partners: tuple[int, ...] = ()  # indices of the people compared; () asks for the most frequent
    asked: bool = False  # yes/no form: whether the first partner shares more of the films than the others


@dataclass(frozen=True)
class Seed:
    """Something a recommendation request names (issue 31): a film, a series, a person, or the films a partial title
    names ("lord of the rings": its three films). `iris` holds the entity, or those films for a partial title."""

    kind: str  # "film" | "series" | "person" | "films" (a partial title naming several films)
    iris: tuple[str, ...]
    label: str
    said: str = ""  # the words of the message
    roles: tuple[str, ...] = ()  # a person: the relations their films are taken from (the role named, else their commonest)
    score: float = 100.0  # how well the words matched (fuzzy below 100)


@dataclass(frozen=True)
class RecommendationRequest:
    """A recommendation request read from a message (bot.understanding.recommendation_request): what the films should be
    like, what the person has seen or does not want, the conditions on the picks and how many are asked for."""

    seeds: tuple[Seed, ...] = ()  # what the picks should be like
    seen: tuple[Seed, ...] = ()  # what the person has seen: never recommended (their films, for a series or a person)
    excluded: tuple[Seed, ...] = ()  # films and series the person does not want ("isn't another Terminator", "not Pixar")
    conditions: tuple[Constraint, ...] = ()  # on the picks, compiled like a composition's ("nothing over 100 minutes")
    count: int = 0  # picks asked for ("3 similar movies"); 0: the configured default
    unknown: tuple[str, ...] = ()  # names in a seed's place the graph does not have ("I don't have X in my graph")
    unchecked: tuple[str, ...] = ()  # what the graph cannot check ("not Netflix", "shorter than X" without X's running time)
    more: bool = False  # "more like that", "give me more": the same request, new picks
    again: bool = False  # "again", "repeat": films recommended earlier may come back
    recommended: tuple[str, ...] = ()  # films recommended earlier in the conversation (the dialogue fills it): not again


@dataclass
class Understanding:
    """The question plan: what a message asks (its kind, one or more asks) and the linked entities.

    `chain` and `entities` describe the first ask (the whole question when there is one ask), which
    is what a handler of a single question reads; `asks` lists every ask of the message."""

    text: str
    kind: str  # a bot.core.kinds.Kind
    chain: tuple[Hop, ...] = ()
    entities: list[LinkedEntity] = field(default_factory=list)
    confidence: float = 0.0
    not_found: list[str] = field(default_factory=list)  # spans the user probably meant but no label matched
    smalltalk: str = ""  # the small-talk intent (greeting, thanks, help, ...)
    asks: list[Ask] = field(default_factory=list)
    constraints: list[Constraint] = field(default_factory=list)  # conditions on the films asked for
    aggregate: Aggregate | None = None
    comparison: Comparison | None = None
    verification: Verification | None = None
    shared: Shared | None = None
    overview: Overview | None = None
    collaboration: Collaboration | None = None
    also: list[Understanding] = field(default_factory=list)  # a compositional message's other questions, each on its own
    missing: str = ""  # what the question asks that the graph does not hold ("where people were born")
    unclear: str = ""  # why the bot would not guess (a word it could not account for, a weak match)
    recommendation: RecommendationRequest | None = None  # a recommendation request as read (issue 31)

    @property
    def compositional(self) -> bool:
        """Whether the plan filters, counts, orders, compares, verifies or summarises (bot.answering.compose answers it)."""
        return bool(self.constraints or self.aggregate or self.comparison or self.verification or self.shared or self.overview
                    or self.collaboration)

    def ask(self, n: int, topic: LinkedEntity | None = None) -> Understanding:
        """The single question of ask `n` (its topic given, or the ask's own entity)."""
        ask = self.asks[n]
        entity = topic if topic is not None else self.entities[ask.topic]
        single = Ask(ask.chain, 0, None, ask.text, ask.confidence, ask.others)
        return Understanding(ask.text or self.text, self.kind, ask.chain, [entity], ask.confidence, asks=[single])


@dataclass(frozen=True)
class Referents:
    """What a message may point back at in the conversation before it, by type (the dialogue's state decides them;
    the understander reads a message with them). A name or an earlier clause of the message itself always comes
    first: these only stand in for a pronoun the message gives no antecedent of its own, or for the topic of a
    follow-up that names nothing ("and the music?")."""

    film: LinkedEntity | None = None  # "it", "that one", "the film": the film last answered or talked about
    person: LinkedEntity | None = None  # "that director", "the same guy": the person last answered or talked about
    he: LinkedEntity | None = None  # "he", "him", "his": the last person, unless the user called them "she" before
    she: LinkedEntity | None = None  # "she", "her": the last person, unless the user called them "he" before
    answers: tuple[LinkedEntity, ...] = ()  # "they", "them": the previous answer (one person, or a few entities of one kind)
    people: tuple[LinkedEntity, ...] = ()  # "did they work together": the last two people talked about
    films: tuple[LinkedEntity, ...] = ()  # "both", "both of them": the two films the last turns were about
    listed: tuple[LinkedEntity, ...] = ()  # "the newer one": the films of the last answer that listed films (with their years)
    topic: LinkedEntity | None = None  # what the last question was about: the topic of a follow-up that names nothing


@dataclass
class Answer:
    """One ranked answer value."""

    label: str
    iri: str | None = None  # None for literal values
    support: int = 1  # how many paths in the graph lead to it
    score: float | None = None  # embedding distance or vote share, where relevant


@dataclass
class Fact:
    """A single supported statement: where it came from is part of the fact."""

    subject: str
    subject_label: str
    relation: str
    value: str
    value_label: str
    source: str = "kg"  # kg | crowd | embedding
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class Facts:
    """The verified result a sentence is phrased from."""

    kind: str  # a bot.core.kinds.Kind
    question: str
    answers: list[Answer] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    topic: list[LinkedEntity] = field(default_factory=list)
    chain: tuple[Hop, ...] = ()
    source: str = "kg"
    message: str = ""  # a ready sentence for non-answers (not found, small talk, clarification)
    result: Result | None = None  # a compositional answer's typed result (bot.core.results), which its sentence is written from
    extra: dict[str, Any] = field(default_factory=dict)  # image path, crowd statistics, options, ...
    parts: list[Facts] = field(default_factory=list)  # one Facts per ask when a message asks several things


@dataclass
class Sentence:
    """The final wording and how it was produced."""

    text: str
    path: str = "template"  # template | llm | llm-rejected


@dataclass
class TraceStep:
    stage: str
    ms: float
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"stage": self.stage, "ms": round(self.ms, 2), **self.detail}


@dataclass
class Reply:
    """What the bot says back, with the structured facts and a per-stage trace."""

    text: str
    kind: str
    answers: list[str] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    entities: list[LinkedEntity] = field(default_factory=list)
    trace: list[TraceStep] = field(default_factory=list)
    latency_ms: float = 0.0
    image: str | None = None  # image path relative to the images folder
    error: bool = False

    def to_json(self) -> dict:
        return {
            "text": self.text,
            "kind": self.kind,
            "answers": self.answers,
            "facts": [asdict(f) for f in self.facts],
            "entities": [e.to_json() for e in self.entities],
            "trace": [t.to_json() for t in self.trace],
            "latency_ms": round(self.latency_ms, 2),
            "image": self.image,
        }


@dataclass
class Conversation:
    """What the agent remembers about one room: its recent turns, newest last."""

    room: str = ""
    turns: list[tuple[Understanding, Facts]] = field(default_factory=list)
    keep: int = 20

    def remember(self, understanding: Understanding, facts: Facts) -> None:
        self.turns.append((understanding, facts))
        del self.turns[: -self.keep]


# ------------------------------------------------------------------------------ JSON (de)serialisation
# Conversation memory outlives a process when several bot replicas share it (bot/dialogue/memory_store.py):
# every contract dataclass goes to plain JSON data and back, field by field from its type hints, so a new
# field is carried without a change here (tests/test_contracts_json.py builds every dataclass with every field set).


def to_data(value: Any) -> Any:
    """`value` as JSON-ready data: dataclasses as objects of their fields, tuples as lists."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_data(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, (list, tuple)):
        return [to_data(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_data(v) for k, v in value.items()}
    return value


def from_data(kind: Any, data: Any) -> Any:
    """The value of type `kind` (a dataclass, a generic alias, a union with None, ...) that `to_data` wrote as `data`."""
    if kind is Any or data is None:
        return data
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        options = [k for k in typing.get_args(kind) if k is not type(None)]
        return from_data(options[0], data) if len(options) == 1 else data
    if origin is list:
        (item,) = typing.get_args(kind) or (Any,)
        return [from_data(item, v) for v in data]
    if origin is tuple:
        args = typing.get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_data(args[0], v) for v in data)
        return tuple(from_data(k, v) for k, v in zip(args, data))
    if origin is dict:
        _, item = typing.get_args(kind) or (str, Any)
        return {k: from_data(item, v) for k, v in data.items()}
    if isinstance(kind, type) and issubclass(kind, Enum):
        return kind(data)
    if isinstance(kind, type) and is_dataclass(kind):
        if hasattr(kind, "variant"):  # a base class whose data names the subclass that wrote it (bot.core.results.Result)
            kind = kind.variant(data)
        hints = _hints(kind)
        known = {f.name for f in fields(kind) if f.init}
        return kind(**{name: from_data(hints[name], value) for name, value in data.items() if name in known})
    if kind is float and isinstance(data, int):
        return float(data)
    return data


@cache
def _hints(kind: type) -> dict[str, Any]:
    return typing.get_type_hints(kind)
