"""The sentences a person would write for the answers along one relation, from templates/sentences.toml.

Each relation has a sentence for the values of a film ("Jaws was directed by Steven Spielberg."),
one for the films of a value ("Claude Laydu starred in Diary of a Country Priest."), lead-ins for
long lists, a noun phrase for its films ("films starring Claude Laydu") and how its values are
shown ("126 minutes", "$267 million", "on 16 July 2010"). They are keyed by property IRI, so any
bundle using a well-known property gets them; other relations get generic sentences built from
their noun, which still avoid the database style ("the films whose cast member is …").
"""

from __future__ import annotations

import re
import string
import tomllib
from dataclasses import dataclass, field
from functools import cache

from bot.core.text import join_labels
from bot.kg.bundle import Relation
from bot.resources import templates_dir

LIST_INLINE = 4  # longer lists are said as a lead-in and the list after a colon
LIST_LIMIT = 12  # the items a list shows before "and N more"
PLACEHOLDERS = frozenset({"film", "value", "values", "films", "count", "when", "value_when", "noun", "a_noun", "is", "was", "has", "s"})
KEYS = frozenset({"forward", "forward_lead", "inverse", "inverse_lead", "films", "value", "format", "article", "definite"})
FORMATS = ("", "usd", "date")
_YEAR = re.compile(r"^\d{4}$")
_DAY = re.compile(r"^\d{1,2} [A-Z][a-z]+ \d{4}$")


@dataclass(frozen=True)
class RelationSentences:
    """How one relation's answers are said (see templates/sentences.toml for the keys)."""

    forward: str = "The {noun} of {film} {is} {values}."
    forward_lead: str = "{film} has {count} {noun} in my knowledge graph:"
    inverse: str = "{value} is {a_noun} of {films}."
    inverse_lead: str = "{value} is {a_noun} of {count} films in my knowledge graph:"
    films: str = "films with {value} as {a_noun}"
    value: str = "{value}"
    format: str = ""
    article: str = ""
    definite: frozenset[str] = field(default_factory=frozenset)


class SentencesError(ValueError):
    """templates/sentences.toml has a key or placeholder this module does not know."""


def _check(prop: str, table: dict) -> RelationSentences:
    unknown = set(table) - KEYS
    if unknown:
        raise SentencesError(f"sentences.toml [property.{prop!r}]: unknown key(s) {', '.join(sorted(unknown))}")
    if table.get("format", "") not in FORMATS:
        raise SentencesError(f"sentences.toml [property.{prop!r}]: format must be one of {FORMATS}")
    for key, text in table.items():
        if key in ("definite", "format", "article"):
            continue
        names = {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
        if names - PLACEHOLDERS:
            raise SentencesError(f"sentences.toml [property.{prop!r}] {key}: unknown placeholder(s) {', '.join(sorted(names - PLACEHOLDERS))}")
    return RelationSentences(**{**table, "definite": frozenset(table.get("definite", ()))})


@cache
def sentence_table() -> dict[str, RelationSentences]:
    """The sentences of every property in templates/sentences.toml, checked."""
    data = tomllib.loads((templates_dir() / "sentences.toml").read_text(encoding="utf-8"))
    return {prop: _check(prop, table) for prop, table in data.get("property", {}).items()}


def sentences_for(relation: Relation) -> RelationSentences:
    return sentence_table().get("/".join(relation.path), RelationSentences())  # a derived relation: by its path


def capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def indefinite(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def usd(label: str) -> str:
    """'267,000,000' -> '$267 million', '1,234,567,890' -> '$1.2 billion', '850,000' -> '$850,000'."""
    try:
        amount = float(label.replace(",", ""))
    except ValueError:
        return label
    for size, word in ((1e9, "billion"), (1e6, "million")):
        if amount >= size:
            figure = f"{amount / size:.1f}".removesuffix(".0")
            return f"${figure} {word}"
    return f"${amount:,.0f}" if amount.is_integer() else f"${amount:,.2f}"


def when(label: str) -> str:
    """A date with its preposition: 'on 16 July 2010', 'in 1997'."""
    return f"on {label}" if _DAY.match(label) else f"in {label}"


def shown(relation: Relation | None, label: str) -> str:
    """One value as a sentence shows it: with its unit, as money, with 'the' where it takes one."""
    if relation is None:
        return label
    spec = sentences_for(relation)
    if spec.format == "usd":
        return usd(label)
    if label in spec.definite:
        return f"the {label}"
    if spec.article:  # ("the Godfather series", not "the The Godfather series")
        return label if label.lower().startswith(spec.article.lower() + " ") else f"{spec.article} {label}"
    return spec.value.replace("{value}", label)


def _render(template: str, relation: Relation, count: int, capital: bool = True, **slots: str) -> str:
    many = count != 1
    words = {
        "noun": relation.plural if many else relation.noun,
        "a_noun": indefinite(relation.noun),
        "is": "are" if many else "is",
        "was": "were" if many else "was",
        "has": "have" if many else "has",
        "s": "" if many else "s",
        "count": str(count),
    }
    text = template.format_map({**{p: "" for p in PLACEHOLDERS}, **words, **slots})
    return capitalise(text) if capital else text


def _values(relation: Relation, labels: list[str]) -> dict[str, str]:
    spec = sentences_for(relation)
    return {
        "values": join_labels([shown(relation, v) for v in labels], limit=LIST_LIMIT),
        "when": join_labels([when(v) for v in labels], limit=LIST_LIMIT) if spec.format == "date" else "",
    }


def forward(relation: Relation, film: str, labels: list[str]) -> str:
    """The values of `film`: one sentence, or a lead-in and the list when it is long."""
    if len(labels) > LIST_INLINE:
        return f"{forward_lead(relation, film, len(labels))} {_values(relation, labels)['values']}."
    return _render(sentences_for(relation).forward, relation, len(labels), film=film, **_values(relation, labels))


def forward_lead(relation: Relation, film: str, count: int) -> str:
    return _render(sentences_for(relation).forward_lead, relation, count, film=film)


def _value_slots(relation: Relation, value: str) -> dict[str, str]:
    return {"value": shown(relation, value), "value_when": when(value) if sentences_for(relation).format == "date" else shown(relation, value)}


def inverse(relation: Relation, value: str, films: list[str]) -> str:
    """The films with `value`: one sentence, or a lead-in and the list when it is long."""
    if len(films) > LIST_INLINE:
        return f"{inverse_lead(relation, value, len(films))} {join_labels(films, limit=LIST_LIMIT)}."
    return _render(sentences_for(relation).inverse, relation, len(films), films=join_labels(films), **_value_slots(relation, value))


def inverse_lead(relation: Relation, value: str, count: int) -> str:
    return _render(sentences_for(relation).inverse_lead, relation, count, **_value_slots(relation, value))


def films_phrase(relation: Relation, value: str, count: int = 2) -> str:
    """'films directed by Steven Spielberg' ('film …' for one), without an article."""
    phrase = _render(sentences_for(relation).films, relation, count, capital=False, **_value_slots(relation, value))
    return re.sub(r"^films\b", "film", phrase) if count == 1 else phrase
