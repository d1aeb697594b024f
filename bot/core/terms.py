"""The typed terms of a question plan: condition operators, aggregate operators, yes/no checks, result forms,
entity groups, answer types and measures.

A term one part of the pipeline writes and another cannot handle must fail a test, not a person's question
(a bare "not_earlier" written by the reader once reached a query builder that had never heard of it). So every
term is a member of one of these `str` enums: members compare equal to (and serialise as) their names, a
misspelt or unknown name raises where it is made (`Op("earler")` is a ValueError), and the tests walk every
member through every part that must handle it (tests/test_terms.py).
"""

from __future__ import annotations

from enum import StrEnum


class Op(StrEnum):
    """How a condition (bot.core.contracts.Constraint) restricts the films a question is about."""

    IN = "in"  # the film has one of the values (entity IRIs)
    NOT_IN = "not_in"  # the film has none of them
    AMONG = "among"  # the film is one of the given films (no relation)
    NOT_AMONG = "not_among"  # the film is none of them
    YEAR_FROM = "year>="  # the film's date is in this year or later
    YEAR_UNTIL = "year<="  # ... in this year or earlier
    GT = ">"  # numbers (minutes, dollars)
    GE = ">="
    LT = "<"
    LE = "<="
    # the films the conversation listed or named ("which of those ...", "any other films ..."): the agent turns
    # these into AMONG / NOT_AMONG before the plan is answered; no query builder ever sees them
    EARLIER = "earlier"
    NOT_EARLIER = "not_earlier"

    @property
    def on_set(self) -> bool:
        """Whether the values are IRIs (entities or films) rather than one number or year."""
        return self in (Op.IN, Op.NOT_IN, Op.AMONG, Op.NOT_AMONG)

    @property
    def on_year(self) -> bool:
        return self in (Op.YEAR_FROM, Op.YEAR_UNTIL)

    @property
    def on_number(self) -> bool:
        return self in (Op.GT, Op.GE, Op.LT, Op.LE)

    @property
    def conversational(self) -> bool:
        """Whether the condition speaks of the conversation's films, to be resolved before answering."""
        return self in (Op.EARLIER, Op.NOT_EARLIER)

    @property
    def excludes(self) -> bool:
        """Whether the condition leaves films out rather than naming the set they come from."""
        return self in (Op.NOT_IN, Op.NOT_AMONG, Op.NOT_EARLIER)

    @property
    def greater(self) -> bool:
        """For a year or number comparison: whether larger values pass."""
        return self in (Op.YEAR_FROM, Op.GT, Op.GE)

    @property
    def symbol(self) -> str:
        """The SPARQL comparison of a year or number operator."""
        return {Op.YEAR_FROM: ">=", Op.YEAR_UNTIL: "<=", Op.GT: ">", Op.GE: ">=", Op.LT: "<", Op.LE: "<="}[self]


class AggregateOp(StrEnum):
    """What to do with the films or values a plan finds (bot.core.contracts.Aggregate)."""

    COUNT = "count"
    MAX = "max"  # the film(s) with the greatest value of a relation
    MIN = "min"
    MOST = "most"  # the value most of the films share ("who directed the most films")
    ANY = "any"  # a yes/no question: whether any film meets the conditions


class Check(StrEnum):
    """How a yes/no question compares a film's value (bot.core.contracts.Verification)."""

    EQUALS = "="  # the value is the entity asked about (or, for a year, that year)
    YEAR_FROM = "year>="
    YEAR_UNTIL = "year<="
    GT = ">"
    GE = ">="
    LT = "<"
    LE = "<="
    ANY = "any"  # the film has any value (of `families`): "did it win an Oscar?"


class Form(StrEnum):
    """The forms of a compositional answer: each has one typed result (bot.core.results) and one sentence."""

    VERIFICATION = "verification"
    COMPARISON = "comparison"
    SHARED = "shared"
    VALUE_COUNT = "value_count"  # how many values one film has ("how many Oscars did X win")
    FILM_COUNT = "film_count"  # how many films meet conditions
    ORDERED = "ordered"  # a superlative: the film(s) with the greatest or smallest value
    MOST = "most"  # the value most films share
    ANY = "any"  # whether any film meets conditions, with the films
    FILMS = "films"  # the films that meet conditions
    OVERVIEW = "overview"  # "tell me about X": a short summary of a film or person
    COLLABORATORS = "collaborators"  # the people who share the most films with one person ("Nolan's go-to composer")
    COLLABORATION_COUNTS = "collaboration_counts"  # how many of one person's films each of several others shares


class Group(StrEnum):
    """The class groups the code treats specially. A bundle may declare more (`[classes]`); those stay strings."""

    FILM = "film"
    PERSON = "person"
    GENRE = "genre"
    COUNTRY = "country"
    LANGUAGE = "language"
    AWARD = "award"
    RATING = "rating"
    SERIES = "series"
    WORK = "work"  # the works films are based on


class AnswerType(StrEnum):
    """What a question's wording says its answer is ("who" -> a person, "which films" -> films)."""

    FILM = "film"
    PERSON = "person"
    DATE = "date"
    PLACE = "place"
    WORK = "work"
    VALUE = "value"  # any value: a chain's answer whose type the wording cannot contradict


class Measure(StrEnum):
    """How the values of a date or number relation compare."""

    DATE = "date"
    DURATION = "duration"
    MONEY = "money"
    NUMBER = "number"
