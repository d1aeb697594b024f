"""The words of a question and what explains them: relation cues, question wording, and what the graph lacks.

A parse is only trusted when it accounts for the question: every content word outside the
entity names must be explained — by a cue of a relation in the chain ("directed", "score",
"runtime"), by question wording ("who", "tell me", "film", "please"), or by the structure of
the chain ("other", "else", "same" for films that share a value). And every hop of the chain
must be evidenced by a word of the question (a cue, or a film word beside a name that plays
that role), so "How old is John Saxon?" is not read as "when were John Saxon's films released".
A word that asks for something no relation holds ("born", "budget", "plot") makes the bot say
what it understood and what its graph lacks, instead of answering another question.

Relation cues come from the bundle's own phrasings (noun, synonyms, asks/finds/films) and
the extra `cues` of its relations, so any KG's wording is read with its own vocabulary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from bot.core.contracts import Hop
from bot.core.terms import AnswerType, Group
from bot.core.text import words
from bot.kg.bundle import Bundle
from bot.understanding.vocabulary import FILM_WORDS, GENERIC, QUESTION_WORDS, ROLE_VERBS, SHARE_CUES, STOP, WORK_VERBS, word_set

_FUNCTION_WORDS = sorted(w for w in STOP | GENERIC if len(w) >= 3)
ROLE_WORDS = ROLE_VERBS - {"makes", "making"} | WORK_VERBS | {"done", "been"}  # "has X worked with": any role of a name
# what people ask that the graph may not hold: cue -> what is missing (unless the bundle's own phrasings use the word)
UNSUPPORTED = {
    "born": "where or when people were born", "birthplace": "where people were born", "birthday": "birthdays",
    "birth": "where or when people were born", "hometown": "where people come from", "age": "ages", "old": "ages",
    "alive": "whether people are alive", "dead": "whether people are alive", "died": "when people died",
    "die": "when people died", "death": "when people died", "plot": "plots", "synopsis": "plots", "summary": "plots",
    "storyline": "plots", "about": "what films are about", "budget": "budgets", "cost": "budgets",
    "studio": "studios", "studios": "studios", "distributor": "distributors", "distributed": "distributors",
    "tall": "heights", "height": "heights", "married": "spouses", "wife": "spouses", "husband": "spouses",
    "spouse": "spouses", "partner": "partners", "girlfriend": "partners", "boyfriend": "partners", "dating": "partners",
    "kids": "children", "daughter": "children", "son": "children", "nationality": "nationalities", "salary": "salaries",
    "paid": "salaries", "critics": "reviews", "reviews": "reviews", "review": "reviews", "rotten": "reviews",
    "tomatoes": "reviews", "metacritic": "reviews", "filmed": "filming locations", "location": "filming locations",
    "locations": "filming locations", "stream": "where to watch films", "streaming": "where to watch films",
    "netflix": "where to watch films", "sequel": "sequels", "prequel": "prequels", "voiced": "voice roles",
    "voices": "voice roles", "character": "characters", "characters": "characters", "role": "roles", "roles": "roles",
    "plays": "characters", "played": "characters", "ending": "endings", "trailer": "trailers", "soundtracks": "songs",
    "song": "songs", "songs": "songs", "weather": "the weather", "politics": "politics", "news": "news",
}
UNSUPPORTED_PHRASES = {
    ("imdb", "rating"): "IMDb ratings", ("imdb", "score"): "IMDb ratings", ("rotten", "tomatoes"): "reviews",
    ("how", "old"): "ages", ("still", "alive"): "whether people are alive", ("how", "tall"): "heights",
    ("net", "worth"): "net worths", ("how", "much", "cost"): "budgets",
}


@lru_cache(maxsize=4096)
def _function_word_typo(word: str) -> bool:
    """'wich', 'whos', 'teh': one slip away from a function word, so no content of its own."""
    from rapidfuzz import process
    from rapidfuzz.distance import OSA

    return len(word) >= 3 and process.extractOne(word, _FUNCTION_WORDS, scorer=OSA.distance, score_cutoff=1) is not None


def _phrasing_words(text: str) -> set[str]:
    return set(words(re.sub(r"\{\w+\}", " ", text)))


@dataclass(frozen=True)
class Explanation:
    """How well a chain accounts for the content words of a question."""

    other_cues: tuple[str, ...] = ()  # cues of relations the chain does not follow
    unsupported: tuple[str, ...] = ()  # what the question asks that the graph lacks ("budgets")
    unknown: tuple[str, ...] = ()  # words no lexicon knows
    unevidenced: tuple[str, ...] = ()  # relations of the chain nothing in the question asks for
    answer_type: str = ""  # what the question asks for ("person", "film", "date") when the chain gives something else

    @property
    def complete(self) -> bool:
        return not (self.other_cues or self.unsupported or self.unknown or self.unevidenced or self.answer_type)

    @property
    def penalty(self) -> float:
        return (3.0 * len(self.other_cues) + 4.0 * len(self.unevidenced) + 1.0 * len(self.unknown) + 6.0 * len(self.unsupported)
                + 5.0 * bool(self.answer_type))


@dataclass
class Lexicon:
    """Cue words per relation, with the other vocabularies a question's words are checked against."""

    cues: dict[str, frozenset[str]]  # relation name -> cue words
    evidence: dict[str, tuple[frozenset[str], ...]]  # relation name -> word sets that together ask for it ("who ... in")
    unsupported: dict[str, str]  # cue word -> what the graph lacks
    unsupported_phrases: dict[tuple[str, ...], str]
    known: frozenset[str] = field(default_factory=frozenset)  # words of the question wording (classifier vocabulary)
    # a derived relation is evidenced only by its own words, not by those of the relation it goes through
    # ("the source material of X" is the work; "who wrote the novel behind X" its author)
    distinct: dict[str, frozenset[str]] = field(default_factory=dict)
    # a derived relation -> the cues of the relation it starts with: with a question word that asks for the
    # derived relation's answer ("adapted from whose novel?") they evidence it
    through: dict[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def from_bundle(cls, bundle: Bundle, wording: frozenset[str] = frozenset()) -> Lexicon:
        cues: dict[str, set[str]] = {}
        evidence: dict[str, tuple[frozenset[str], ...]] = {}
        for name, rel in bundle.relations.items():
            said: set[str] = set()
            for text in (*rel.asks, *rel.finds, *rel.films, *rel.peers, *rel.synonyms, *(c for c in rel.cues if " " not in c), rel.noun, rel.plural):
                said |= _phrasing_words(text)
            # "else", "other" shape a chain, they name no relation; a film word of a phrasing ("the filmography of {value}")
            # asks for films of any role, unless the relation's own cues name it ("works" of an author)
            explicit = {w for c in rel.cues if " " not in c for w in _phrasing_words(c)}
            cues[name] = frozenset(said - STOP - GENERIC - SHARE_CUES - (FILM_WORDS - explicit))
            # a multi-word cue evidences its relation by all its words together ("behind the camera"); so does an ask
            # phrasing made only of common words ("what do people think of {film}"), which no single word could
            evidence[name] = tuple(frozenset(words(c)) for c in rel.cues if " " in c) + tuple(
                frozenset(w) for a in rel.asks if (w := _phrasing_words(a)) and not w & cues[name])
        used = set().union(*cues.values()) if cues else set()
        unsupported = {w: what for w, what in UNSUPPORTED.items() if w not in used}
        phrases = {p: what for p, what in UNSUPPORTED_PHRASES.items() if not all(w in used for w in p)}
        phrase_words = {w for sets in evidence.values() for words_ in sets for w in words_}  # "behind the camera"
        by_property = {rel.property: name for name, rel in bundle.relations.items() if not rel.derived}
        distinct = {name: frozenset(cues[name] - WEAK_CUES - set().union(*(cues[by_property[v]] for v in rel.via if v in by_property)))
                    for name, rel in bundle.relations.items() if rel.derived}
        through = {name: frozenset(cues[by_property[rel.via[0]]]) for name, rel in bundle.relations.items()
                   if rel.derived and rel.via[0] in by_property}
        return cls(cues, evidence, unsupported, phrases, frozenset(wording) | frozenset(phrase_words), distinct, through)

    @property
    def generic_or_stop(self) -> frozenset[str]:
        return STOP | GENERIC

    @property
    def words(self) -> frozenset[str]:
        """Every word the lexicon knows: cues, question wording, what the graph lacks."""
        return frozenset().union(*self.cues.values()) | STOP | GENERIC | SHARE_CUES | FILM_WORDS | frozenset(self.unsupported)

    def relations_of(self, word: str) -> frozenset[str]:
        return self._relations_by_cue.get(word, frozenset())

    @cached_property
    def _relations_by_cue(self) -> dict[str, frozenset[str]]:
        by_cue: dict[str, set[str]] = {}
        for name, said in self.cues.items():
            for word in said:
                by_cue.setdefault(word, set()).add(name)
        return {word: frozenset(names) for word, names in by_cue.items()}

    @cached_property
    def _phrases_by_first_word(self) -> dict[str, list[tuple[tuple[str, ...], str]]]:
        """The unsupported phrases by their first word, in their order (explain looks up each word of every reading)."""
        by_first: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for phrase, what in self.unsupported_phrases.items():
            by_first.setdefault(phrase[0], []).append((phrase, what))
        return by_first

    def is_cue(self, word: str) -> bool:
        return any(word in said for said in self.cues.values())

    def explain(self, content: list[str], chain: tuple[Hop, ...], film_words: bool, role_of_topic: set[str]) -> Explanation:
        """How `chain` accounts for the question's `content` words (outside the entity names).

        `film_words`: whether the question says "film(s)/movie(s)"; `role_of_topic`: the relations the
        topic entity takes part in (a name that plays a role evidences a hop from it to its films)."""
        in_chain = {h.relation for h in chain}
        shares = any(not h.to_value for h in chain[1:]) or (len(chain) > 1 and chain[0].to_value)
        other, unknown, unsupported = [], [], []
        said = set(content)
        phrased = {w for r in in_chain for words in self.evidence.get(r, ()) if words <= said for w in words}  # "behind the camera"
        for i, word in enumerate(content):
            if word in phrased:
                continue
            phrase = next((what for p, what in self._phrases_by_first_word.get(word, ()) if tuple(content[i : i + len(p)]) == p), None)
            if phrase:
                unsupported.append(phrase)
                continue
            if word in SHARE_CUES:
                if not shares and not self._soft_share(chain):
                    other.append(word)
                continue
            if word in STOP or word in GENERIC or word in FILM_WORDS:
                continue
            owners = self.relations_of(word)
            if owners & in_chain or word in WEAK_CUES:
                continue
            if word in self.unsupported:
                unsupported.append(self.unsupported[word])
            elif owners:
                other.append(word)
            elif word not in self.known and not word.isdigit() and not _function_word_typo(word):
                unknown.append(word)
        evidence = set(content)
        unevidenced = []
        for n, hop in enumerate(chain):
            if not hop.to_value and n > 0 and chain[n - 1].relation == hop.relation:
                # the way back of a shared value ("other films of the director of X"): other films are asked for
                if not evidence & (SHARE_CUES | FILM_WORDS):
                    unevidenced.append("other films")
                continue
            own = self.distinct.get(hop.relation, self.cues.get(hop.relation, frozenset()))
            if own & evidence or any(words <= evidence for words in self.evidence.get(hop.relation, ())):
                continue
            from_topic = n == 0 and not hop.to_value
            if from_topic and (film_words or evidence & ROLE_WORDS) and hop.relation in role_of_topic:
                continue  # "Tom Hanks movies", "who has X worked with": the name plays the role, the words ask for its films
            unevidenced.append(hop.relation)
        return Explanation(tuple(dict.fromkeys(other)), tuple(dict.fromkeys(unsupported)), tuple(unknown), tuple(unevidenced))

    @staticmethod
    def _soft_share(chain: tuple[Hop, ...]) -> bool:
        """'other'/'else' beside the films of a name asks for the same films ("what other films did Nolan direct")."""
        return bool(chain) and not chain[0].to_value


# cue words that evidence a relation but never speak against another one: "the producers behind X", "who made
# the music for X" (the director is "behind" a film and "made" it, when nothing more precise is said)
WEAK_CUES = ROLE_VERBS | {"behind"}

# what a question's first words say about the kind of its answer
WH_TYPES = {"who": AnswerType.PERSON, "whom": AnswerType.PERSON, "whose": AnswerType.PERSON, "when": AnswerType.DATE, "where": AnswerType.PLACE}
PLACE_GROUPS = frozenset({Group.COUNTRY, "place", "location"})  # what a "where" question may be answered with
TYPE_NOUNS = {
    "film": AnswerType.FILM, "films": AnswerType.FILM, "movie": AnswerType.FILM, "movies": AnswerType.FILM, "flick": AnswerType.FILM, "flicks": AnswerType.FILM,
    "person": AnswerType.PERSON, "people": AnswerType.PERSON, "persons": AnswerType.PERSON, "actor": AnswerType.PERSON, "actors": AnswerType.PERSON, "actress": AnswerType.PERSON,
    "actresses": AnswerType.PERSON, "director": AnswerType.PERSON, "directors": AnswerType.PERSON, "writer": AnswerType.PERSON, "writers": AnswerType.PERSON,
    "screenwriter": AnswerType.PERSON, "screenwriters": AnswerType.PERSON, "composer": AnswerType.PERSON, "composers": AnswerType.PERSON,
    "producer": AnswerType.PERSON, "producers": AnswerType.PERSON, "star": AnswerType.PERSON, "stars": AnswerType.PERSON, "filmmaker": AnswerType.PERSON,
    "filmmakers": AnswerType.PERSON, "cinematographer": AnswerType.PERSON, "cinematographers": AnswerType.PERSON,
    "year": AnswerType.DATE, "years": AnswerType.DATE, "date": AnswerType.DATE, "dates": AnswerType.DATE, "decade": AnswerType.DATE,
    # the source works films are based on (a bundle's "work" class group)
    "novel": AnswerType.WORK, "novels": AnswerType.WORK, "book": AnswerType.WORK, "books": AnswerType.WORK, "play": AnswerType.WORK, "plays": AnswerType.WORK,
    "story": AnswerType.WORK, "stories": AnswerType.WORK,
}
LIST_REQUESTS = frozenset("list name show give find tell".split())
# nouns after "film" that make it a compound ("film genre", "movie language"): the compound is asked for
COMPOUND_HEADS = frozenset("genre genres language languages type types rating ratings series franchise studio tags tag "
                           "score scores budget length runtime".split())
# words before the question proper, which say nothing about its answer
PREAMBLE = word_set("preamble")
# words after a relative "which"/"that" ("the films which starred X"): a verb, not the noun an interrogative asks for
RELATIVE_FOLLOWERS = frozenset(
    "is are was were has have had did do does starred stars directed wrote written made features featured "
    "also won".split())


def expected_answer(clause: list[str]) -> str:
    """'person', 'film' or 'date' when the clause's wording says what its answer is ("who ...", "which films ...",
    "what year ..."), else ''."""
    lead = 0
    while lead < len(clause) - 1 and clause[lead] in PREAMBLE:
        lead += 1  # "I was wondering, more movies by ...", "do you know who ..."
    clause = clause[lead:]
    if not clause:
        return ""
    first = clause[0]
    if first in WH_TYPES:
        return WH_TYPES[first]
    if first in ("which", "what") and clause[1:3] in (["are", "the"], ["were", "the"]) and TYPE_NOUNS.get(clause[3:4][0] if clause[3:4] else "") == AnswerType.FILM:
        return AnswerType.FILM  # "what are the films of the Toy Story series": films, not the series of the film Toy Story
    if first in ("which", "what") and len(clause) > 1:
        for k in range(1, min(3, len(clause))):
            word, after = clause[k], clause[k + 1] if k + 1 < len(clause) else ""
            if word in TYPE_NOUNS and TYPE_NOUNS[word] == AnswerType.FILM and after in COMPOUND_HEADS:
                return ""  # "what film genre is X": the genre, not a film
            if word in TYPE_NOUNS:
                return TYPE_NOUNS[word]
            if word not in ("other", "else", "of", "the", "kind", "some"):
                break
    if first in LIST_REQUESTS:
        for word in clause[1:5]:
            if word in TYPE_NOUNS and TYPE_NOUNS[word] == AnswerType.FILM:
                return AnswerType.FILM
    lead = 0
    while lead < len(clause) - 1 and clause[lead] in ("other", "more", "any", "some", "all", "the", "list", "name", "show", "me"):
        lead += 1
    if clause[lead] in ("film", "films", "movie", "movies"):
        later = _later_question(clause, lead + 1)
        if later is not None:
            return later  # the films are the topic: "the movies written by X were released in which years"
        return AnswerType.FILM  # "other films from the director of X", "more movies by whoever directed X"
    later = _later_question(clause, 1, asked_only=True)
    verb = clause[-2] if len(clause) > 1 else ""
    if later is None and clause[-1] in ("films", "movies") and not set(clause) & QUESTION_WORDS and (
            verb.endswith("ed") or verb in ("wrote", "made", "did", "shot", "written", "done")):
        return AnswerType.FILM  # "the scriptwriter of X also wrote movies" (but not "genres of X's movies")
    return later or ""


def _asks_person(clause: list[str], k: int) -> bool:
    """'... from whose novel', '... directed by who': a question word ending the clause, which can only ask for a
    person (inside it, "whose directors also directed X" is relative)."""
    word = clause[k]
    return word in ("who", "whom") and k == len(clause) - 1 or word == "whose" and k + 2 == len(clause) and clause[k + 1] in TYPE_NOUNS


def _later_question(clause: list[str], start: int, asked_only: bool = False) -> str | None:
    """What a question word after a fronted topic asks for ("the movie X, when was it released", "... directed by
    who", "... starred which actors"), or None when there is none. A "who" or "which" before a verb is a relative
    pronoun ("the director who made X") and asks nothing; before a noun it asks ("... also made which other films").
    `asked_only`: only the words that cannot be relative ("Rebecca is adapted from whose novel?", "which films")."""
    for k in range(start, len(clause)):
        word = clause[k]
        if _asks_person(clause, k):
            return AnswerType.PERSON
        noun = [w for w in clause[k + 1 : k + 3] if w not in ("other", "else")][:1]
        if word in ("which", "what") and noun and noun[0] in TYPE_NOUNS:
            return expected_answer(clause[k:])  # "the director of X also made which other films": a determiner asks
        if asked_only:
            continue
        if word in ("when", "where"):
            return WH_TYPES[word]
        if word in ("which", "what") and (k == len(clause) - 1 or clause[k + 1] not in RELATIVE_FOLLOWERS):
            return expected_answer(clause[k:])
    return None
