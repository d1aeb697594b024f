"""The validation layer: turn candidate spans into linked entities of the right class group.

A span validates when its normalised text matches a KG label exactly or with a rapidfuzz
ratio of at least the configured threshold (90 by default), and an entity behind that
label belongs to the class group the question expects. Several entities with one label
(remakes, namesakes) are disambiguated by a year written in the question, then by degree;
the others are kept as alternatives so the chat can ask which one was meant.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.contracts import LinkedEntity
from bot.kg.labels import LabelIndex
from bot.understanding.mentions import Span


@dataclass(frozen=True)
class Namesakes:
    """The entities a span may name within one class group, best first, each as the dialogue describes it."""

    ids: list[int]
    described: list[dict]


def namesakes(span: Span, text: str, labels: LabelIndex, group: str | None, years: list[int]) -> Namesakes:
    """The entities behind `span` in `group` (any group when None), ranked: a year the question names, the
    spelling as written (punctuation included: "Up!" and "What?" are titles of their own), the most connected.

    Ranked once per span and group and shared by every reading's role (a title of a 20M-triple graph can
    name a hundred films, and a clause has ~20 readings)."""
    surface = text[span.start : span.end]
    end = span.end
    while end < len(text) and not text[end].isspace() and not text[end].isalnum():
        end += 1
    punctuated = text[span.start : end]

    def rank(i: int):
        label, year = labels.labels[i], labels.years[i]
        exact = label == surface  # "Brüno" over "Bruno" when the user wrote "Brüno"
        return (not (year is not None and year in years), label != punctuated, not exact, -labels.degree[i], label, labels.iris[i])

    ids = sorted((i for i in span.ids if group is None or labels.groups[i] == group), key=rank)
    described = [{"iri": labels.iris[i], "label": labels.labels[i], "year": labels.years[i], "degree": labels.degree[i],
                  "group": labels.groups[i]} for i in ids]
    return Namesakes(ids, described)


def link_span(
    span: Span, text: str, labels: LabelIndex, group: str | None, years: list[int], role: tuple[str, str] | None = None,
    among: Namesakes | None = None,
) -> LinkedEntity | None:
    """The best entity behind `span` whose group is `group` (any group when None) and that takes
    part in `role` (a relation name and the entity's side, "s" or "o"; any when None), or None.
    `among`: the span's namesakes in `group`, when already ranked."""
    among = among if among is not None else namesakes(span, text, labels, group, years)
    best = next((n for n, i in enumerate(among.ids) if role is None or labels.has_role(i, *role)), None)
    if best is None:
        return None
    i = among.ids[best]
    family = getattr(labels, "families", {}).get(span.norm, ())
    if family and set(family) <= set(among.ids):  # "the Coen brothers": the family as one, no namesakes to choose among
        ranked = [j for j in among.ids if j in family]
        return LinkedEntity(text=text[span.start : span.end], iri=labels.iris[ranked[0]], label=" and ".join(labels.labels[j] for j in ranked),
                            score=span.fuzzy_score, group=labels.groups[ranked[0]], start=span.start, end=span.end,
                            members=tuple(labels.iris[j] for j in ranked))
    # every other entity the words may name, whatever its roles: a namesake without a triple for this
    # question is still one the user may have meant (the dialogue asks which)
    return LinkedEntity(
        text=text[span.start : span.end],
        iri=labels.iris[i],
        label=labels.labels[i],
        score=span.fuzzy_score,
        group=labels.groups[i],
        start=span.start,
        end=span.end,
        year=labels.years[i],
        alternatives=among.described[:best] + among.described[best + 1 :],
    )
