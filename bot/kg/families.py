"""Family groups: "the Coens", "the Coen brothers", "the Wachowskis" -- people of one family name who are credited
together on several films, found in the graph when the label index is built.

People say a family's name for its members together ("Who scores the Coen brothers' films?"). Nothing in a graph says
who is a family; two people who share the last word of their labels and are both credited on at least FAMILY_FILMS
films are taken as one (namesakes who never worked together are not). Each group's names ("coens", "the coen
brothers", "wachowski sisters", ...) become variants of its members in the label index, and `LabelIndex.families` tells
a span that says them from one that names a single person ("Coen" stays Ethan or Joel Coen, as before).
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

from bot.core.text import normalize
from bot.kg import queries
from bot.kg.bundle import Bundle

FAMILY_FILMS = 2  # films two people of one family name are both credited on, at least
FAMILY_WORDS = ("brothers", "sisters", "siblings", "family")
BATCH = 400  # people whose films one query fetches


def family_names(surname: str) -> list[str]:
    """How people say a family: 'the coens', 'coen brothers', 'the coen brothers', ... (not a bare 'nolans', which is
    as often a possessive typed without its apostrophe: "nolans films" are Christopher Nolan's)."""
    plural = surname + ("es" if surname.endswith(("s", "x", "z", "ch", "sh")) else "s")
    said = [f"{surname} {word}" for word in FAMILY_WORDS]
    return said + [f"the {name}" for name in (plural, *said)]


def family_groups(graph, bundle: Bundle, iris: list[str], labels: list[str], groups: list[str]) -> dict[str, tuple[int, ...]]:
    """Each family's names -> its members' entity ids (by degree of connection, as namesakes are ranked elsewhere)."""
    by_surname: dict[str, list[int]] = defaultdict(list)
    for i, (label, group) in enumerate(zip(labels, groups)):
        written = label.split()
        last = normalize(written[-1]) if len(written) >= 2 else ""  # the last word as written: "Kar-wai" is no "wai"
        if group == "person" and len(last) >= 3 and last.isalpha():
            by_surname[last].append(i)
    candidates = {surname: ids for surname, ids in by_surname.items() if len(ids) >= 2}
    people = sorted({i for ids in candidates.values() for i in ids})
    roles = tuple(name for name, rel in bundle.relations.items() if rel.value_class == "person")
    if not people or not roles:
        return {}
    films: dict[int, set[str]] = defaultdict(set)
    index = {iris[i]: i for i in people}
    for start in range(0, len(people), BATCH):
        batch = [iris[i] for i in people[start : start + BATCH]]
        for row in graph.select(queries.films_of_people(bundle, batch, roles)):
            film, person = row.get("film"), row.get("person")
            if film is not None and person is not None and person.value in index:
                films[index[person.value]].add(film.value)
    out: dict[str, tuple[int, ...]] = {}
    for surname, ids in sorted(candidates.items()):
        members = sorted({i for a, b in combinations(ids, 2) if len(films[a] & films[b]) >= FAMILY_FILMS for i in (a, b)})
        if len(members) >= 2:
            for name in family_names(surname):
                out[name] = tuple(members)
    return out
