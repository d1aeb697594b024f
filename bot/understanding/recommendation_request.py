"""Recommendation requests as people write them, read into a typed request (bot.core.contracts.RecommendationRequest).

    "saw Jaws with my dad on sunday and we loved it, what now?"         seeds: Jaws (no "sunday", no "dad")
    "films in the same vein as the star wars movies, we've seen them all" seeds and seen: the Star Wars films
    "a cartoon for tonight, no Ghibli though, we've watched those"       condition: animated; excluded: Studio Ghibli's list
    "suggest a western, nothing longer than 110 minutes"                 conditions: western, at most 110 minutes
    "2 films like Collateral and Heat, not too long"                      seeds: Collateral, Heat; count 2; <= 120 minutes

How a message is read:

1. **Names.** The understander's spans (label index, fuzzy >= 90, NER) become mentions when they are written as names
   (several words, capitalised, an exact label) or stand where a seed stands ("like X", "loved X"); a lowercase word
   matched only fuzzily or as a surname elsewhere is the person's story ("last night"), never a seed. A partial title
   that several films share ("lord of the rings") names them all; "Dune 1 and 2" names both films. A catalogue series
   of the graph (Wikidata's "list of Pixar films", "Studio Ghibli feature films") is also found by its own word.
2. **Segments and scopes.** The message is cut at sentence marks, commas, dashes and contrast words ("but",
   "though"). Within a segment a negation ("not", "no", "nothing", "isn't", "without", "other than", "sick of") reaches
   the names after it across list words ("not by X or Y") and stops at other content words ("not too long and stars
   X"); a seen cue ("I've seen", "we've done", "already watched") works the same way, unless a like cue follows
   ("watched X and loved it"; "saw X last night, loved it" across a comma).
3. **Roles.** A film, series or partial title is a seed, seen or excluded. A person is a seed when liked ("a fan of
   X"), a condition on the picks when asked for ("something with X in it", "X films", "not by X"), seen with "I've seen
   all his films". Genres, countries, languages, ratings, decades, years and running times are conditions, compiled
   like a composition's (bot.core.contracts.Constraint); negated, the films outside them ("nothing scary", "nothing
   over 100 minutes", "nothing R-rated"). "Nothing too long" is at most TOO_LONG_MINUTES.
4. **Unknown seeds.** A run of words in a seed's place that names nothing in the graph is reported as such, never
   replaced by another entity; an exclusion the graph cannot check ("not Netflix") is said, not ignored.

Its words (the request cues, joined into bot.understanding.cues.RECOMMEND, and the vocabulary of liking, seeing and
excluding) and their scopes are in bot.understanding.recommendation_words; the readers of its conditions in
bot.understanding.recommendation_conditions.
"""

from __future__ import annotations

import os
import re

from bot.core.contracts import LinkedEntity, RecommendationRequest, Seed, Understanding
from bot.core.kinds import Kind
from bot.core.text import Token, contracted_not, normalize
from bot.kg import queries
from bot.understanding.lexicon import STOP
from bot.understanding.linking import link_span
from bot.understanding.mentions import Span
from bot.understanding.quantities import Quantity, quantities
from bot.understanding.recommendation_conditions import RequestConditions
from bot.understanding.recommendation_words import (
    CATALOGUE_FILLER,
    CHAT_SPELLINGS,
    FRANCHISE_WORDS,
    LIKE_PHRASES,
    LIKE_WORDS,
    MORE,
    NEGATIONS,
    NOT_NAMES,
    SEEN_WORDS,
    SEQUEL_LIST,
    SEQUEL_NUMBERS,
    STORY_WORDS,
    TIME_PHRASES,
    VALUE_GROUPS,
    Mention,
    Reading,
    already_seen_after,
    catalogue_keys,
    merged_conditions,
    reaches,
    requested_count,
    unique_seeds,
)

# ---------------------------------------------------------------------------------------------------------- the reader


class RecommendationReader(RequestConditions):
    """Reads recommendation requests against one KG with the understander's names and condition vocabulary."""

    def __init__(self, kg, understander):
        self.kg = kg
        self.labels = kg.labels
        self.understander = understander
        self.composer = understander.composer
        self.vocabulary = understander.vocabulary
        self.series_relation = next((name for name, r in kg.bundle.relations.items() if r.value_class == "series"), "")
        self.country_relation = self.composer.by_group.get("country", "")
        self.language_relation = self.composer.by_group.get("language", "")
        self._catalogues: dict[str, int] | None = None

    @property
    def catalogues(self) -> dict[str, int]:
        """Series named by their own word ("pixar"), found once (the graph is read-only)."""
        if self._catalogues is None:
            labels = self.labels
            series = [(i, labels.labels[i]) for i, g in enumerate(labels.groups) if g == "series"]
            self._catalogues = catalogue_keys(series, lambda key: bool(labels.lookup_any(key)) or key in self.vocabulary or key in STOP)
        return self._catalogues

    # ------------------------------------------------------------------ the message

    def understand(self, text: str, toks: list[Token], spans: list[Span]) -> Understanding:
        request, entities = self.read(text, toks, spans)
        return Understanding(text, Kind.RECOMMENDATION, entities=entities, confidence=1.0, constraints=list(request.conditions),
                             recommendation=request)

    def read(self, text: str, toks: list[Token], spans: list[Span]) -> tuple[RecommendationRequest, list[LinkedEntity]]:
        liking = [(m.start(), m.end()) for m in LIKE_PHRASES.finditer(text)]  # "can't get enough of": no negation
        toks = [("love" if any(a <= s and e <= b for a, b in liking) else CHAT_SPELLINGS.get(w, w), s, e) for w, s, e in toks]
        words = [t for t, _, _ in toks]
        count, count_at = requested_count(text, [(s.start, s.end) for s in spans if s.fuzzy_score >= 100 and s.length > 1])
        stated = quantities(text, [(s.start, s.end) for s in spans if s.length > 1 or text[s.start].isupper()])
        mentions = self._mentions(text, toks, spans, count_at, stated)
        names = {k for m in mentions for k in m.tokens}
        reach = reaches(text, toks, names)
        segment = [r.segment for r in reach]
        reading = Reading()
        self._seen_after_like(words, segment, reach, mentions)
        people = [m for m in mentions if m.entity.group == "person"]
        for m in mentions:
            at = reach[m.span.tok_start]
            seen = (at.seen or already_seen_after(words, segment, m.span.tok_end)) and not at.liked_after and not at.negated
            reading.entities.append(m.entity)
            if m.entity.group == "person":
                self._person(text, toks, m, [p for p in people if p is not m], at, seen, reading)
            elif m.entity.group in ("film", "series") or m.films:
                seed = self._seed(m)
                if at.negated:
                    reading.excluded.append(seed)
                elif seen:
                    reading.seen.append(seed)
                else:
                    reading.seeds.append(seed)
            else:
                self._value(toks, m, at, reading)
        self._set_references(words, segment, reach, mentions, reading)
        self._pronoun_conditions(words, mentions, reach, reading)
        self._adjectives(toks, names, reach, reading)
        self._quantities(toks, stated, reach, reading)
        self._lengths(text, reading)
        self._comparatives(words, names, reach, reading)
        self._unknown(text, toks, names | self._counted(toks, count_at) | self._stated(toks, stated), reach, reading)
        request = RecommendationRequest(
            seeds=tuple(unique_seeds(reading.seeds)), seen=tuple(unique_seeds(reading.seen)), excluded=tuple(unique_seeds(reading.excluded)),
            conditions=tuple(merged_conditions(reading.conditions, words)), count=count, unknown=tuple(dict.fromkeys(reading.unknown)),
            unchecked=tuple(dict.fromkeys(reading.unchecked)),
            more=bool(MORE.search(text)) and not reading.seeds,
            again=bool(re.search(r"\b(?:again|repeat|same ones|once more)\b", text, re.I)))
        return request, reading.entities

    # ------------------------------------------------------------------ names

    def _mentions(self, text: str, toks: list[Token], spans: list[Span], count_at, stated: list[Quantity]) -> list[Mention]:
        """The names of the message, longest first and not overlapping, without the story's words."""
        labels = self.labels
        years = [int(y) for y in re.findall(r"\b(1[89]\d\d|20\d\d)\b", text)]
        blocked: set[int] = set()
        if count_at is not None:
            blocked |= {k for k, (_, s, e) in enumerate(toks) if count_at[0] <= s and e <= count_at[1]}
        for q in stated:
            blocked |= {k for k, (_, s, e) in enumerate(toks) if q.start <= s and e <= q.end}
        time_words = {k for m in TIME_PHRASES.finditer(text) for k, (_, s, e) in enumerate(toks) if m.start() <= s and e <= m.end()}
        found: list[Mention] = []
        taken: set[int] = set()
        ordered = sorted(spans, key=lambda s: (-s.length, -s.fuzzy_score, s.tok_start))
        for span in ordered:
            toks_of = set(range(span.tok_start, span.tok_end))
            if toks_of & taken or not span.ids:
                continue
            if toks_of & blocked and not (span.length > 1 and span.fuzzy_score >= 100):
                continue
            entity = link_span(span, text, labels, None, years)
            if entity is None:
                continue
            if entity.group == "work":  # "Shrek!" the book beside the film Shrek: the film
                film = next((a for a in entity.alternatives if a.get("group") == "film"), None)
                if film is None:
                    continue
                entity = LinkedEntity(entity.text, film["iri"], film["label"], entity.score, "film", entity.start, entity.end, film["year"])
            if not self._name_like(text, toks, span, entity, time_words):
                continue
            films = self._titled_films(span, entity) or self._franchise(toks, span, entity)
            found.append(Mention(span, entity, films))
            taken |= toks_of
        found = self._series_words(found)
        found += self._slot_names(text, toks, taken, years)
        found += self._catalogue_mentions(text, toks, taken)
        found += self._sequels(text, toks, found, taken)
        return sorted(found, key=lambda m: m.span.tok_start)

    def _name_like(self, text: str, toks: list[Token], span: Span, entity: LinkedEntity, time_words: set[int]) -> bool:
        """Whether a span is written as a name, not as the story's words: several words or capitals as typed, or an exact
        label; a lowercase word matched only fuzzily or as a surname counts only where a seed stands ("like X")."""
        typed = text[span.start : span.end]
        words = [toks[k][0] for k in range(span.tok_start, span.tok_end)]
        if set(range(span.tok_start, span.tok_end)) & time_words and not any(c.isupper() for c in typed):
            return False
        if entity.group not in ("film", "person", "series"):
            if entity.group == "rating":  # "R", "PG": typed in capitals, or said to be a rating
                return typed.isupper() or any(toks[k][0] in ("rated", "rating", "rate") for k in range(max(0, span.tok_start - 2), min(len(toks), span.tok_end + 2)))
            return not (span.length == 1 and words[0] in STOP)
        slot = self._seed_slot(toks, span.tok_start)
        if all(w in self.vocabulary or w in STOP for w in words) and not (typed[:1].isupper() and span.tok_start > 0) \
                and not (slot and span.length > 1 and span.fuzzy_score >= 100):
            return False  # question wording ("up", "her"), unless written as a title inside the sentence or liked ("loved get out")
        if span.length == 1 and (words[0] in STORY_WORDS or words[0] in NOT_NAMES) and not typed[:1].isupper():
            return False  # "I hate horror" names no film called Hate
        if span.length == 1 and span.source in ("variant", "fuzzy") and typed.islower() and entity.group == "person" \
                and self._common_word(words[0]):
            return False  # "no black and white" is no Jack Black
        capitalised = any(c.isupper() for c in typed) and not (span.tok_start == 0 and span.length == 1 and typed[1:].islower())
        if span.length > 1 or capitalised or text.islower() and span.fuzzy_score >= 100 and span.source == "index":
            return True
        return slot or span.fuzzy_score >= 100 and span.source == "index"

    @staticmethod
    def _seed_slot(toks: list[Token], k: int) -> bool:
        """Whether token k stands where a liked or seen title stands: right after "like", "loved", "seen", "fan of", ..."""
        j = k - 1
        while j >= 0 and toks[j][0] in ("the", "a", "an", "of", "to", "another", "any", "more", "by", "with", "starring"):
            j -= 1
        return j >= 0 and (toks[j][0] in LIKE_WORDS or toks[j][0] in SEEN_WORDS or toks[j][0] in NEGATIONS or contracted_not(toks, j))

    def _titled_films(self, span: Span, entity: LinkedEntity) -> tuple[str, ...]:
        """The films a partial title names when several films share it ("lord of the rings": three films)."""
        if entity.group != "film" or span.source not in ("variant", "fuzzy"):
            return ()
        labels = self.labels
        films = [i for i in span.ids if labels.groups[i] == "film"]
        if len({normalize(labels.labels[i]) for i in films}) < 2:
            return ()  # namesakes (remakes) share a whole title, not a part of one
        return tuple(labels.iris[i] for i in sorted(films, key=lambda i: (labels.years[i] or 9999, labels.labels[i])))

    def _series_words(self, found: list[Mention]) -> list[Mention]:
        """"Like Casino Royale but no more Bond films": a lone surname that is also a word of the series of a film the
        message names is that series, not someone called Bond."""
        films = [m.entity.iri for m in found if m.entity.group == "film"]
        if not films or not self.series_relation:
            return found
        prop = self.kg.bundle.relations[self.series_relation].property
        series = {row["value"].value for f in films for row in self.kg.graph.select(queries.values_of(f, prop)) if "value" in row}
        words = {iri: set(normalize(self.labels.label_of(iri) or "").split()) - CATALOGUE_FILLER for iri in series}
        out = []
        for m in found:
            named = next((iri for iri, said in words.items() if m.span.length == 1 and m.span.source in ("variant", "fuzzy")
                          and m.entity.group == "person" and m.span.norm in said), None)
            if named is not None:
                m = Mention(m.span, LinkedEntity(m.entity.text, named, self.labels.label_of(named) or named, m.entity.score, "series",
                                                 m.entity.start, m.entity.end))
            out.append(m)
        return out

    def _slot_names(self, text: str, toks: list[Token], taken: set[int], years: list[int]) -> list[Mention]:
        """Lone words the span finder passed over beside a word it did not know ("french comedies", "no miyazaki tho"):
        a genre, country or language anywhere; a film, person or series where a seed or an exclusion stands, unless the
        word begins other titles too (a common word: "no black and white" is no Jack Black)."""
        out = []
        labels = self.labels
        for k, (word, start, end) in enumerate(toks):
            if k in taken or len(word) < 4 or word in self.vocabulary or word in STOP or word in STORY_WORDS or word in NOT_NAMES:
                continue
            ids = labels.lookup_any(word)
            values = [i for i in ids if labels.groups[i] in VALUE_GROUPS]
            named = [i for i in ids if labels.groups[i] in ("film", "person", "series")]
            if not values and not (named and self._seed_slot(toks, k) and not self._common_word(word)):
                continue
            span = Span(k, k + 1, start, end, word, values or named, 97.0, "variant")
            entity = link_span(span, text, labels, None, years)
            if entity is not None:
                out.append(Mention(span, entity))
                taken.add(k)
        return out

    def _common_word(self, word: str) -> bool:
        """Whether a word also begins the titles of films or names of things that are no people ("black": Black Swan)."""
        return any(self.labels.groups[i] != "person" for i in self.labels.starting_with(word + " "))

    def _franchise(self, toks: list[Token], span: Span, entity: LinkedEntity) -> tuple[str, ...]:
        """"The star wars films", "the x-men movies": a title said with a plural film word names the films titled so
        and the films of its series."""
        after = toks[span.tok_end][0] if span.tok_end < len(toks) else ""
        if entity.group not in ("film", "series") or after not in FRANCHISE_WORDS:
            return ()
        labels = self.labels
        titled = [i for i in labels.starting_with(span.norm + " ") if labels.groups[i] == "film"]
        series = [labels.iris[i] for i in span.ids if labels.groups[i] == "series"]
        members = []
        if self.series_relation:
            prop = self.kg.bundle.relations[self.series_relation].property
            members = [row["film"].value for s in series for row in self.kg.graph.select(
                f"SELECT ?film WHERE {{ ?film {queries.iri(prop)} {queries.iri(s)} }}") if "film" in row]
        films = list(dict.fromkeys(([entity.iri] if entity.group == "film" else []) + [labels.iris[i] for i in titled] + members))
        return tuple(films) if len(films) > 1 else ()

    def _catalogue_mentions(self, text: str, toks: list[Token], taken: set[int]) -> list[Mention]:
        """"Pixar", "not Ghibli": a series named by its own word."""
        out = []
        for k in range(len(toks)):
            for n in (2, 1):
                if k + n > len(toks) or set(range(k, k + n)) & taken:
                    continue
                key = " ".join(t for t, _, _ in toks[k : k + n])
                idx = self.catalogues.get(key)
                if idx is None:
                    continue
                span = Span(k, k + n, toks[k][1], toks[k + n - 1][2], key, [idx], 100.0, "catalogue")
                entity = LinkedEntity(text[span.start : span.end], self.labels.iris[idx], self.labels.labels[idx], 100.0, "series",
                                      span.start, span.end)
                out.append(Mention(span, entity, catalogue=True))
                taken |= set(range(k, k + n))
                break
        return out

    def _sequels(self, text: str, toks: list[Token], found: list[Mention], taken: set[int]) -> list[Mention]:
        """"dune 1 and 2", "Toy Story 2 and 3": the numbered films of a title named once."""
        out = []
        for m in found:
            if m.entity.group != "film":
                continue
            match = SEQUEL_LIST.match(text[m.span.end :])
            if not match:
                continue
            number = SEQUEL_NUMBERS.get(match.group("n").lower(), match.group("n"))
            base = re.sub(r"\s+(?:\d|i{1,3}|iv)$", "", normalize(m.entity.text))
            ids = [i for i in self.labels.lookup_any(f"{base} {number}") if self.labels.groups[i] == "film"]
            end = m.span.end + match.end()
            tok = [k for k, (_, s, e) in enumerate(toks) if m.span.end <= s and e <= end]
            if not ids or not tok or set(tok) & taken:
                continue
            i = ids[0]
            span = Span(tok[0], tok[-1] + 1, toks[tok[0]][1], end, f"{base} {number}", [i], 100.0, "sequel")
            entity = LinkedEntity(text[span.start : span.end], self.labels.iris[i], self.labels.labels[i], 100.0, "film", span.start, span.end,
                                  self.labels.years[i])
            out.append(Mention(span, entity))
            taken |= set(tok)
        return out

    def _seed(self, m: Mention) -> Seed:
        e = m.entity
        if m.films:
            labels = [self.labels.label_of(f) or "" for f in m.films]
            shared = os.path.commonprefix(labels).split(":")[0].strip(" -–")
            if len(normalize(shared)) < len(normalize(e.text)):  # ("X-Men" and "X2" share only "X")
                shared = e.label.split(":")[0] if normalize(e.label).startswith(normalize(e.text)) else e.text.strip()
            return Seed("films", m.films, f"the {shared} films" if not shared.lower().startswith("the ") else f"{shared} films", e.text, score=e.score)
        return Seed(e.group, (e.iri,), e.label, e.text, score=e.score)

