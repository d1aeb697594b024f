"""The conditions and roles of a recommendation request: what a person, a genre, a country, a length or a comparative
asks of the picks, and the words that name nothing in the graph (bot.understanding.recommendation_request)."""

from __future__ import annotations

import re

import numpy as np

from bot.core.contracts import Constraint, LinkedEntity, Seed
from bot.core.text import Token, join_labels
from bot.understanding.compose import COUNTRY_ADJECTIVES, Name
from bot.understanding.lexicon import FILM_WORDS, STOP
from bot.understanding.quantities import Quantity
from bot.understanding.recommendation_words import (
    CHAT_SPELLINGS,
    COMPARATIVES,
    LIKE_OBJECTS,
    LIKE_WORDS,
    PERSON_PRONOUN,
    PERSON_PRONOUNS,
    REQUEST_WORDS,
    SCOPE_WORDS,
    SEEN_WORDS,
    SET_REFERENCES,
    SHORT,
    SHORT_MINUTES,
    STORY_WORDS,
    TOO_LONG,
    TOO_LONG_MINUTES,
    Mention,
    Reach,
    Reading,
    flipped,
    negation_at,
)


class RequestConditions:
    """The condition readers of RecommendationReader (its kg, labels, composer and seed readers)."""


    def _person(self, text, toks, m: Mention, others: list[Mention], at: Reach, seen: bool, reading: Reading) -> None:
        """A person: a condition when asked for ("with X", "X films", "not by X"), seen ("I've seen all of X's"), or a
        seed when liked ("a fan of X")."""
        name = Name(m.span, m.entity)
        relations, used = self.composer.person_relations_for(toks, name, 0, len(toks), [Name(o.span, o.entity) for o in others])
        films_after = m.span.tok_end < len(toks) and toks[m.span.tok_end][0] in FILM_WORDS | {"stuff", "ones", "one", "s"}
        liked = at.liked_before or at.liked_after
        seed = Seed("person", (m.entity.iri,), m.entity.label, m.entity.text, relations, m.entity.score)
        if at.negated:
            reading.conditions.append(Constraint(relations, "not_in", (m.entity.iri,), f"not {m.entity.label}", named_role=bool(used)))
        elif seen:
            reading.seen.append(seed)
        elif liked and not used:  # "a big fan of X", "I love X stuff"
            reading.seeds.append(seed)
        else:  # "something with X in it", "more X films", "a Tim Burton movie"
            reading.conditions.append(Constraint(relations, "in", (m.entity.iri,), m.entity.label, named_role=bool(used) or films_after))

    def _value(self, toks, m: Mention, at: Reach, reading: Reading) -> None:
        """A genre, country, language, rating or award: a condition on the picks (outside it when negated)."""
        constraint = self.composer.value_constraint(Name(m.span, m.entity))
        if constraint is None:
            return
        if m.entity.group == "language" and (word := " ".join(toks[k][0] for k in m.tokens)) in COUNTRY_ADJECTIVES and word != "english":
            constraint = self._nationality(word) or constraint  # "Korean": made in Korea or in Korean
        if at.negated:
            constraint = Constraint(constraint.relations, "not_in", constraint.values, f"not {constraint.said}")
        reading.conditions.append(constraint)

    def _nationality(self, word: str) -> Constraint | None:
        """'Korean', 'French': films from the country or in its language."""
        relations, values = [], []
        country = [i for i in self.labels.lookup(COUNTRY_ADJECTIVES[word].casefold()) if self.labels.groups[i] == "country"]
        language = [i for i in self.labels.lookup_any(word) if self.labels.groups[i] == "language"]
        if country and self.country_relation:
            relations.append(self.country_relation)
            values.append(self.labels.iris[country[0]])
        if language and self.language_relation:
            relations.append(self.language_relation)
            values.append(self.labels.iris[language[0]])
        return Constraint(tuple(relations), "in", tuple(values), word.capitalize()) if relations else None

    def _adjectives(self, toks, names: set[int], reach: list[Reach], reading: Reading) -> None:
        """'something British', 'not American': a nationality said as an adjective."""
        for k, (word, _, _) in enumerate(toks):
            if k in names or word not in COUNTRY_ADJECTIVES:
                continue
            constraint = self._nationality(word)
            if constraint is None:
                continue
            if reach[k].negated:
                constraint = Constraint(constraint.relations, "not_in", constraint.values, f"not {constraint.said}")
            reading.conditions.append(constraint)

    def _quantities(self, toks, stated: list[Quantity], reach: list[Reach], reading: Reading) -> None:
        """Dates, decades and running times; negated ones flipped ("nothing over 100 minutes")."""
        for q in stated:
            first = next((k for k, (_, s, _) in enumerate(toks) if s >= q.start), None)
            negated = first is not None and (reach[first].negated or any(
                negation_at([t for t, _, _ in toks], toks, j) for j in range(max(0, first - 2), first)))
            if negated and q.op in ("year>=", "year<=") and sum(o.said == q.said for o in stated) > 1:
                continue  # "not from the 80s" would need either side of the decade: no single condition says it
            constraint = self.composer.quantity_constraints([flipped(q) if negated else q])
            if constraint:
                reading.conditions += constraint

    def _lengths(self, text: str, reading: Reading) -> None:
        """'nothing too long' (at most TOO_LONG_MINUTES), 'something short' (at most SHORT_MINUTES)."""
        relation = self.composer.duration
        if not relation or any(relation in c.relations for c in reading.conditions):
            return
        if TOO_LONG.search(text):
            reading.conditions.append(Constraint((relation,), "<=", (str(TOO_LONG_MINUTES),), "not too long"))
        elif SHORT.search(text):
            reading.conditions.append(Constraint((relation,), "<=", (str(SHORT_MINUTES),), "short"))

    def _comparatives(self, words: list[str], names: set[int], reach: list[Reach], reading: Reading) -> None:
        """'like X but older', 'something shorter than X': compared with the seed films."""
        said = {COMPARATIVES[w] for k, w in enumerate(words) if w in COMPARATIVES and k not in names
                and not (k + 1 < len(words) and words[k + 1] == "than")}
        films = [i for s in reading.seeds if s.kind in ("film", "films") for i in s.iris]
        years = [y for f in films if (info := self.labels.info(f)) and (y := info[3])]
        date = self.composer.date
        if "older" in said and years and date:
            reading.conditions.append(Constraint((date,), "year<=", (str(min(years) - 1),), f"before {min(years)}"))
        if "newer" in said and years and date:
            reading.conditions.append(Constraint((date,), "year>=", (str(max(years) + 1),), f"after {max(years)}"))
        duration = self.composer.duration
        runtimes = sorted(m for f in films if (m := self._minutes(f)) is not None)
        for word in sorted(said):
            if word in ("older", "newer") and films and not years or word in ("shorter", "longer") and films and not runtimes:
                seeds = join_labels([s.label for s in reading.seeds if s.kind in ("film", "films")])
                reading.unchecked.append(f"{word} than {seeds}")  # the graph has no date or running time to compare with
        if duration and runtimes and said & {"shorter", "longer"}:
            middle = int(runtimes[len(runtimes) // 2])
            shorter = "shorter" in said
            reading.conditions.append(Constraint((duration,), "<" if shorter else ">", (str(middle),),
                                                 f"{'shorter' if shorter else 'longer'} than {middle} minutes"))

    def _minutes(self, film: str) -> float | None:
        """A film's running time from the film table (None when the graph has none)."""
        table, idx = self.kg.films, self.labels.by_iri.get(film)
        column = table.literal.get(self.composer.duration)
        if column is None or idx is None:
            return None
        at = int(np.searchsorted(table.films, idx))
        if at >= len(table.films) or table.films[at] != idx or np.isnan(column.low[at]):
            return None
        return float(column.low[at])

    def _seen_after_like(self, words, segment, reach, mentions) -> None:
        """"Saw Alien last night, loved it": a like cue with "it" in the next segment makes the seen films of the
        segment before liked ones."""
        for s in sorted(set(segment)):
            inside = [j for j, g in enumerate(segment) if g == s]
            if any(m.span.tok_start in inside for m in mentions):
                continue
            if any(words[j] in LIKE_WORDS for j in inside) and any(words[j] in LIKE_OBJECTS for j in inside):
                before = [m for m in mentions if segment[m.span.tok_start] == s - 1]
                for m in before:
                    k = m.span.tok_start
                    reach[k] = Reach(reach[k].negated, reach[k].seen, reach[k].liked_before, True, reach[k].segment)

    def _set_references(self, words, segment, reach, mentions, reading: Reading) -> None:
        """"We've watched all four", "the family has seen all of those", "seen every one of his": the set named before is seen."""
        for k, word in enumerate(words):
            if word not in SET_REFERENCES | PERSON_PRONOUNS or not reach[k].seen and not (k and words[k - 1] in SEEN_WORDS):
                continue
            if word in ("all", "both") and k + 1 < len(words) and words[k + 1] in ("of", "his", "her", "their", "three", "those", "them"):
                continue  # read at the next word
            before = [m for m in mentions if m.span.tok_end <= k]
            person_word = any(words[j] in PERSON_PRONOUNS for j in range(max(0, k - 2), min(len(words), k + 2)))
            target = next((m for m in reversed(before) if (m.entity.group == "person") == person_word
                           and (m.entity.group in ("series", "person") or m.films)), None)
            if target is None:
                continue
            seed = Seed("person", (target.entity.iri,), target.entity.label, target.entity.text) if target.entity.group == "person" \
                else self._seed(target)
            if seed.kind == "person":
                person = next((s for s in reading.seeds if s.iris == seed.iris), None)
                seed = Seed("person", seed.iris, seed.label, seed.said, person.roles if person else ())
            reading.seen.append(seed)

    def _pronoun_conditions(self, words, mentions, reach, reading: Reading) -> None:
        """"Something with her in it", "more by him": the person named before, as a condition on the picks."""
        people = [m for m in mentions if m.entity.group == "person"]
        if not people:
            return
        for k, word in enumerate(words):
            if word not in ("him", "her", "them") or reach[k].seen:
                continue
            before = [m for m in people if m.span.tok_end <= k]
            if not before:
                continue
            person = before[-1].entity
            nxt, prev = words[k + 1] if k + 1 < len(words) else "", words[k - 1] if k else ""
            if prev in ("with", "without", "starring", "featuring") or nxt == "in":
                relations = self.cast_relations()
            elif prev == "by":
                relations = tuple(sorted(self.composer.main_roles(person, self.composer.roles_of(person))))
            else:
                continue
            if relations:
                op = "not_in" if reach[k].negated else "in"
                reading.conditions.append(Constraint(relations, op, (person.iri,), ("not " if op == "not_in" else "") + person.label,
                                                     named_role=True))

    def cast_relations(self) -> tuple[str, ...]:
        """The relations of a film's cast (the person relations cued by "starred" or "actors")."""
        return tuple(r for r in self.composer.person_relations if {"starred", "actors"} & self.composer.lexicon.cues.get(r, frozenset()))

    def person_pronoun(self, text: str, person: LinkedEntity) -> Constraint | None:
        """"Something without her", "anything with him in it": the condition on the picks a pronoun sets for a person named
        earlier in the conversation (the message itself names nobody)."""
        match = PERSON_PRONOUN.search(text)
        if match is None or not (relations := self.cast_relations()):
            return None
        negated = bool(re.search(r"\b(?:without|not|no|nothing)\b", text[max(0, match.start() - 30) : match.end()], re.I)) \
            or match.group(0).lower().startswith("without")
        return Constraint(relations, "not_in" if negated else "in", (person.iri,), ("not " if negated else "") + person.label, named_role=True)

    def _unknown(self, text: str, toks: list[Token], covered: set[int], reach: list[Reach], reading: Reading) -> None:
        """Runs of words where a seed stands that name nothing in the graph ("I like Xyzzy Plugh and Heat"), and
        exclusions the graph cannot check ("not Netflix")."""
        spell = self.understander.speller
        known = self.vocabulary | REQUEST_WORDS | STOP | LIKE_WORDS | SEEN_WORDS | STORY_WORDS | frozenset(CHAT_SPELLINGS) | frozenset(COUNTRY_ADJECTIVES) \
            | SCOPE_WORDS | self.composer.lexicon.words
        k, listed = 0, set()
        while k < len(toks):
            word, start, _ = toks[k]
            capital = text[start].isupper() and not _sentence_start(text, start)
            unknown = k not in covered and (word not in known and spell(word) == word and not word.isdigit() or capital and word not in STOP)
            if not unknown:
                k += 1
                continue
            end = k + 1
            while end < len(toks) and end not in covered and reach[end].segment == reach[k].segment and (
                    toks[end][0] not in known and not toks[end][0].isdigit()
                    or text[toks[end][1]].isupper() or toks[end][0] in ("of", "the", "in") and end + 1 < len(toks)
                    and end + 1 not in covered and text[toks[end + 1][1]].isupper()):
                end += 1
            if reach[k].negated and end + 1 < len(toks) and toks[end][0] in ("and", "&") and end + 1 not in covered \
                    and toks[end + 1][0] not in STOP and reach[end + 1].segment == reach[k].segment:
                end += 2  # "no black and white": one thing the graph cannot check
            said = text[start : toks[end - 1][2]]
            in_slot = self._seed_slot(toks, k) or _listed_with_names(text, toks, k, end, covered | listed)
            if reach[k].negated and (capital or word not in known):
                reading.unchecked.append(f"not {said}")
            elif in_slot or capital and end - k > 1 or _quoted(text, start, toks[end - 1][2]):
                reading.unknown.append(said)
                listed |= set(range(k, end))
            k = end

    @staticmethod
    def _counted(toks, count_at) -> set[int]:
        if count_at is None:
            return set()
        return {k for k, (_, s, e) in enumerate(toks) if count_at[0] <= s and e <= count_at[1]}

    @staticmethod
    def _stated(toks, stated: list[Quantity]) -> set[int]:
        return {k for q in stated for k, (_, s, e) in enumerate(toks) if q.start <= s and e <= q.end}



def _sentence_start(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    return not before or before[-1] in ".!?\"'“‘(-—:"


def _quoted(text: str, start: int, end: int) -> bool:
    return start > 0 and end < len(text) and text[start - 1] in "\"'“‘" and text[end] in "\"'”’"


def _listed_with_names(text: str, toks: list[Token], a: int, b: int, names: set[int]) -> bool:
    """Whether the run a..b stands in a list with a name ("Heat, Xyzzy Plugh and Milk")."""
    before = a - 1
    after = b
    joined_before = before >= 0 and (toks[before][0] in ("and", "or") and before - 1 in names or
                                     before in names and "," in text[toks[before][2] : toks[a][1]])
    joined_after = after < len(toks) and (toks[after][0] in ("and", "or") and after + 1 in names or
                                          after in names and "," in text[toks[after - 1][2] : toks[after][1]])
    return joined_before or joined_after
