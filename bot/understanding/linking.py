"""The validation layer: turn candidate spans into linked entities of the right class group.

A span validates when its normalised text matches a KG label exactly or with a rapidfuzz
ratio of at least the configured threshold (90 by default), and an entity behind that
label belongs to the class group the question expects. Several entities with one label
(remakes, namesakes) are disambiguated by a year written in the question, then by degree;
the others are kept as alternatives so the chat can ask which one was meant.
"""

from __future__ import annotations

from bot.core.contracts import LinkedEntity
from bot.kg.labels import LabelIndex
from bot.understanding.mentions import Span


def link_span(
    span: Span, text: str, labels: LabelIndex, group: str | None, years: list[int], role: tuple[str, str] | None = None
) -> LinkedEntity | None:
    """The best entity behind `span` whose group is `group` (any group when None) and that takes
    part in `role` (a relation name and the entity's side, "s" or "o"; any when None), or None."""
    ids = [i for i in span.ids if (group is None or labels.groups[i] == group) and (role is None or labels.has_role(i, *role))]
    if not ids:
        return None

    surface = text[span.start : span.end]
    end = span.end
    while end < len(text) and not text[end].isspace() and not text[end].isalnum():
        end += 1
    punctuated = text[span.start : end]  # "Up!" and "What?" are titles of their own beside "Up" and "What"

    def rank(i: int):
        year_match = labels.years[i] is not None and labels.years[i] in years
        exact = labels.labels[i] == surface  # "Brüno" over "Bruno" when the user wrote "Brüno"
        return (not year_match, labels.labels[i] != punctuated, not exact, -labels.degree[i], labels.labels[i], labels.iris[i])

    ids.sort(key=rank)
    best = ids[0]
    # every other entity the words may name, whatever its roles: a namesake without a triple for this
    # question is still one the user may have meant (the dialogue asks which)
    others = sorted((i for i in span.ids if i != best and (group is None or labels.groups[i] == group)), key=rank)
    alternatives = [
        {"iri": labels.iris[i], "label": labels.labels[i], "year": labels.years[i], "degree": labels.degree[i], "group": labels.groups[i]}
        for i in others
    ]
    return LinkedEntity(
        text=text[span.start : span.end],
        iri=labels.iris[best],
        label=labels.labels[best],
        score=span.fuzzy_score,
        group=labels.groups[best],
        start=span.start,
        end=span.end,
        year=labels.years[best],
        alternatives=alternatives,
    )
