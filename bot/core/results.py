"""The typed results of compositional answers: one dataclass per result form (bot.core.terms.Form).

An answerer (bot.answering.compose) returns its result in `Facts.result`; the sentence for it is written from the
result's fields alone (bot.generation.templates.RENDERERS, one function per form), and the phrasing model reads the
same fields. Results are plain data: they survive JSON (bot.core.contracts.to_data / from_data, which picks the class
by `form`), so a conversation remembered by another replica keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from bot.core.terms import AggregateOp, Check, Form, Op


@dataclass(frozen=True)
class Condition:
    """A condition of a film set as the reply states it: its operator, its relations and their noun, its values' labels."""

    op: Op
    relations: tuple[str, ...] = ()
    said: str = ""  # the user's words ("from the 90s")
    noun: str = ""  # the first relation's noun ("director")
    group: str = ""  # the class group of its values ("genre", "person"), "" for literals
    values: tuple[str, ...] = ()  # labels of entity values, or the number / year as written

    def __post_init__(self):
        object.__setattr__(self, "op", Op(self.op))


@dataclass
class Result:
    """What a compositional answer found. Each subclass is one form; `form` tells them apart in JSON."""

    form: Form = field(init=False)
    FORM: ClassVar[Form]

    def __post_init__(self):
        self.form = self.FORM

    @staticmethod
    def variant(data: dict) -> type[Result]:
        """The result class that wrote `data` (for bot.core.contracts.from_data)."""
        return RESULTS[Form(data["form"])]


@dataclass
class VerificationResult(Result):
    """'Did Ridley Scott direct Alien?': the film's values along the relations and whether the one asked about is among them."""

    FORM: ClassVar[Form] = Form.VERIFICATION
    topic: str = ""  # the film's label
    relations: tuple[str, ...] = ()
    missing: bool = False  # the graph has no value to decide by
    value: str = ""  # the entity asked about (its label), or the literal ("2019", "120")
    values: tuple[str, ...] = ()  # what the graph has (labels; for a literal, the film's own value as shown)
    holds: bool = False
    any_value: bool = False  # "did it win an Oscar?": whether it has any value (of the families)
    literal: Check | None = None  # how a literal was compared; None for an entity


@dataclass(frozen=True)
class ShownValue:
    """One compared item and its value as the reply shows it ("Heat: 170 minutes")."""

    label: str
    value: str


@dataclass
class ComparisonResult(Result):
    """'Which is longer, Titanic or Avatar?': each item's value and the winners."""

    FORM: ClassVar[Form] = Form.COMPARISON
    relation: str = ""
    greater: bool = True
    count: bool = False  # the number of values was compared ("more Oscars")
    asked: str = ""  # the yes/no form's adjective ("Is Heat older than Ronin?"); "" for "which"
    oscars: bool = False  # only the Academy Awards were counted
    missing: tuple[str, ...] = ()  # items the graph has no value for
    items: tuple[str, ...] = ()
    values: tuple[ShownValue, ...] = ()
    winners: tuple[str, ...] = ()
    holds: bool = False  # yes/no form: the first item wins alone
    tie: bool = False
    undecided: tuple[str, ...] = ()  # items whose dates the graph has too coarsely to tell which is first
    precision: str = ""  # how finely the graph dates the undecided items: "year", "month"


@dataclass(frozen=True)
class SharedItem:
    label: str
    group: str
    values: tuple[str, ...]


@dataclass
class SharedResult(Result):
    """'Who acted in both The Godfather and Heat?': each item's values and those all of them have."""

    FORM: ClassVar[Form] = Form.SHARED
    chain: str = ""  # the chain code from each item to its values
    asked: bool = False  # yes/no form ("were A and B directed by the same person?")
    items: tuple[SharedItem, ...] = ()
    missing: tuple[str, ...] = ()  # items without values
    values: tuple[str, ...] = ()  # the values in common
    holds: bool = False


@dataclass
class ValueCountResult(Result):
    """'How many Oscars did Aliens win?': one film's values of one relation, counted."""

    FORM: ClassVar[Form] = Form.VALUE_COUNT
    relation: str = ""
    topic: str = ""
    oscars: bool = False
    items: tuple[str, ...] = ()


@dataclass
class FilmSetResult(Result):
    """A result about the films that meet conditions."""

    FORM: ClassVar[Form]
    conditions: tuple[Condition, ...] = ()


@dataclass
class FilmCountResult(FilmSetResult):
    """'How many comedies are from the 90s?': the number of films, with a few examples."""

    FORM: ClassVar[Form] = Form.FILM_COUNT
    total: int = 0
    strict: int | None = None  # the count with a broad genre read narrowly ("counting only the genre itself")
    items: tuple[str, ...] = ()


@dataclass
class OrderedResult(FilmSetResult):
    """'What is Spielberg's longest film?': the film(s) with the greatest or smallest value (or number of values)."""

    FORM: ClassVar[Form] = Form.ORDERED
    relation: str = ""
    op: AggregateOp = AggregateOp.MAX
    counting: bool = False  # ordered by the number of values ("the most Oscars")
    oscars: bool = False
    value: str = ""  # the winning value as shown
    empty: bool = False  # no film has a value
    unknown: tuple[str, ...] = ()  # listed films without a value ("which of those is the longest?")
    rank: int = 1  # the place in the order ("her second film": 2)


@dataclass
class MostResult(FilmSetResult):
    """'Who directed the most films?': the value most of the films share, and how many."""

    FORM: ClassVar[Form] = Form.MOST
    relation: str = ""
    count: int = 0
    winners: tuple[str, ...] = ()
    empty: bool = False
    left_out: tuple[str, ...] = ()  # the values the question named, not counted ("which author besides Shakespeare")


@dataclass
class AnyResult(FilmSetResult):
    """'Did Brad Pitt and Edward Norton ever star together?': yes with the films, or no."""

    FORM: ClassVar[Form] = Form.ANY
    total: int = 0
    items: tuple[str, ...] = ()


@dataclass
class FilmsResult(FilmSetResult):
    """'comedies from the 90s': the films (the best known first; the answers) and how many there are."""

    FORM: ClassVar[Form] = Form.FILMS
    total: int = 0


@dataclass(frozen=True)
class RoleCount:
    relation: str
    films: int


@dataclass
class OverviewResult(Result):
    """'Tell me about Heat': a short summary of a film (its year, directors, genres, top-billed cast, running time) or of a
    person (their roles with counts, best-known films)."""

    FORM: ClassVar[Form] = Form.OVERVIEW
    topic: str = ""
    group: str = ""  # "film" or "person"
    year: str = ""
    facts: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (relation, value labels) in the order said, for a film
    roles: tuple[RoleCount, ...] = ()  # for a person, the commonest first
    known_for: tuple[str, ...] = ()  # a person's best-known films


@dataclass
class CollaboratorsResult(Result):
    """'Who is Nolan's go-to composer?': the people who hold `partner_roles` on the most of one person's films, and on how
    many of them."""

    FORM: ClassVar[Form] = Form.COLLABORATORS
    person: str = ""  # the person's label
    roles: tuple[str, ...] = ()  # the person's roles on the films counted
    partner_roles: tuple[str, ...] = ()  # the roles counted; every person relation when none was named
    any_role: bool = False  # no role was named ("who has X worked with the most")
    films: int = 0  # how many films the person has in `roles`
    winners: tuple[str, ...] = ()
    count: int = 0  # how many of those films each winner shares


@dataclass
class CollaborationCountsResult(Result):
    """'Has Scorsese worked with De Niro more often than with DiCaprio?': how many of one person's films each partner shares,
    and who shares the most."""

    FORM: ClassVar[Form] = Form.COLLABORATION_COUNTS
    person: str = ""
    roles: tuple[str, ...] = ()
    partner_roles: tuple[str, ...] = ()
    any_role: bool = False
    films: int = 0  # how many films the person has in `roles`
    counts: tuple[ShownValue, ...] = ()  # each partner and the number of the person's films they share, in the order asked
    winners: tuple[str, ...] = ()
    asked: bool = False  # yes/no form: whether the first partner shares more than the others
    holds: bool = False
    tie: bool = False


RESULTS: dict[Form, type[Result]] = {
    cls.FORM: cls for cls in (VerificationResult, ComparisonResult, SharedResult, ValueCountResult, FilmCountResult, OrderedResult,
                              MostResult, AnyResult, FilmsResult, OverviewResult, CollaboratorsResult, CollaborationCountsResult)
}
