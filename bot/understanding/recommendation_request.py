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

The cue patterns that make a message a recommendation request live here too (REQUEST_CUES, joined into
bot.understanding.cues.RECOMMEND), so the construction is one module with its vocabulary as data.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import numpy as np

from bot.core.contracts import Constraint, LinkedEntity, RecommendationRequest, Seed, Understanding
from bot.core.kinds import Kind
from bot.core.text import Token, contracted_not, join_labels, normalize
from bot.kg import queries
from bot.understanding.compose import COUNTRY_ADJECTIVES, Name
from bot.understanding.lexicon import FILM_WORDS, STOP
from bot.understanding.linking import link_span
from bot.understanding.mentions import Span
from bot.understanding.quantities import NUMBER_WORDS, Quantity, quantities

# ---------------------------------------------------------------------------------------------------------- vocabulary

# more ways of asking for films than the general cues (bot.understanding.cues.RECOMMEND) know; common chat spellings
# of the request words are written into the patterns ("shud", "smth", "recs")
_MODAL = r"(?:should|shud|shld|could|would|wud|can|might|do you think|shall)"
_SUBJECT = r"(?:i|we|he|she|they|u|you|my \w+|our \w+|the \w+)"
REQUEST_CUES = (
    rf"\bwhat(?:'?s)? (?:else )?{_MODAL} {_SUBJECT}(?: \w+)? (?:watch|see|like|enjoy|try|check out|stream|put on)\b",
    rf"\b(?:which|what) (?:other )?(?:\w+ )?(?:films?|movies?|ones?) {_MODAL} {_SUBJECT} (?:watch|see|try|check out|start with)\b",
    rf"\b{_MODAL} (?:i|we) (?:watch|see|check out|try|put on) next\b|\b(?:watch|see) next\b|\bwhat next\b",
    r"\bmore (?:in|of|along|from) (?:that|the same|this|a similar|those) (?:vein|style|spirit|kind|sort|line|mould|mold|genre|direction)\b",
    r"\bin (?:that|the same|this|a similar) (?:vein|spirit|style|mood)\b",
    r"\b(?:give|show|get|find|send) (?:me|us) (?:some |a few |a couple )?more\b|\bmore (?:like|please|of (?:those|them|these))\b",
    r"\b(?:got|have you got|do you have|you have|any) (?:anything|something|stuff|more) (?:else|similar|like)\b",
    r"\b(?:anything|something|stuff|films?|movies?) similar\b",
    r"\b(?:recs|rec me|recco?s|recomm?ends?)\b|[.!?]\s*(?:any )?more\s*\?+\s*$",
    r"\b(?:i|we)(?: (?:want|need|fancy|feel like)|\s?(?:'m|’m|'re|’re| am| are) (?:after|looking for|in the mood for))(?: to (?:watch|see))? "
    r"(?:a|an|some|something|\d+|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of)\b(?! (?:list|picture|photo|poster|fact|info))",
    r"\b(?:smth|sth|something|anything) (?:good |fun |nice )?(?:for|to watch with) (?:the |my |our )?(?:kids|children|family|\w+ night)\b",
    r"\b(?:smth|sth|smthg|somethin|anythin) (?:like|similar|good|to watch|with|by|from|for)\b",
    r"\b(?:a|an|some|something|anything)\s+(?:\w+\s+){0,2}for (?:tonight|the weekend|the kids|(?:a |our )?(?:date|movie|film|family) night)\b",
    r"\b(?:something|anything|smth|sth)\b(?: \w+){1,3},? (?:like|similar to)\b",
    r"\bwhat(?: else)? (?:is|are|would be|'s) (?:like|similar to)\b|\b(?:anything|something|films?|movies?) else (?:like|similar)\b",
    r"\bin the (?:same )?(?:spirit|vein|style|mould|mold|tradition) of\b|\b(?:something|anything|films?|movies?) (?:close|comparable|akin) to\b",
    r"^\W*(?:(?:ok|okay|so|hmm+|maybe|and|but|yeah)\W+)?(?:more |something |anything )?like\s+\w|\bwhat (?:next|now)\b|\b(?:a|an|some|any)\s+(?:good |great |fun |nice )?(?!lot\b|bit\b)\w+(?:\s+\w+)?\s+like\s+(?!that\b|this\b|to\b)\w",
    r"(?:^|[.!?,]\s*)(?:any )?(?:other )?(?:ideas|suggestions|recommendations|tips|picks)\s*\?*\s*$",
)

# texting spellings of the words a request is read with
CHAT_SPELLINGS = {"smth": "something", "sth": "something", "smthg": "something", "somethin": "something", "anythin": "anything",
                  "shud": "should", "wud": "would", "cud": "could", "u": "you", "ur": "your", "n": "and", "w": "with",
                  "recs": "recommendations", "rec": "recommend", "reccs": "recommendations", "luv": "love", "fav": "favourite",
                  "fave": "favourite", "b4": "before", "gd": "good", "tho": "though", "pls": "please", "plz": "please"}

# the words of a request that are not names (besides the question wording of the chain classifier)
REQUEST_WORDS = frozenset(
    """given since as because i i'm im me my we us you your like liked likes love loved loves enjoy enjoyed enjoys adore
    adored fan really also too recommend recommended recommendation recommendations suggest suggestion suggestions similar
    something anything some few more other others else another watch watched see seen based taste tastes kind sort type
    movie movies film films flick flicks show shows what which should could would can will please thanks thank maybe
    and or but with the a an of to for in on it that this these those them then so good great best favourite favorite
    favourites favorites fav favs looking look vein style spirit mood next already both tonight today weekend kids
    children date night scary funny sad romantic fun light feel all are were is was am be ideas idea tips picks pick
    check try stream put suggest options option worth""".split()
)
LIKE_WORDS = frozenset("""like liked likes love loved loves loving luv enjoy enjoyed enjoys enjoying adore adored adores fan fans
    favourite favorite favourites favorites fav fave obsessed crazy mad into dig dug similar resembling vein spirit same style""".split())
SEEN_WORDS = frozenset("seen watched saw done finished viewed rewatched".split())
# "done" only counts as seen with a subject or auxiliary before it ("we've done X"), not in "what have you done"
SEEN_AUXILIARIES = frozenset("i we ve have has had already all both they kids he she you".split())
NEGATIONS = frozenset("not no nothing none never without except excluding besides minus avoid skip hate hated hates dislike disliked nor".split())
NEGATION_PHRASES = (("other", "than"), ("apart", "from"), ("aside", "from"), ("rather", "than"), ("instead", "of"), ("anything", "but"),
                    ("sick", "of"), ("tired", "of"), ("enough", "of"), ("done", "with"), ("no", "more"))
# negated words that say liking: "can't get enough of X", "never get tired of X"
LIKE_PHRASES = re.compile(r"\b(?:can(?:no|')?t|couldn'?t) (?:get enough|stop (?:re)?watching)(?: of)?\b"
                          r"|\bnever (?:get|gets|got|grow) (?:tired|bored|sick) of\b|\bnever gets old\b", re.I)
NOT_NEGATING = (("why", "not"), ("if", "not"), ("not", "sure"), ("not", "only"), ("no", "idea"), ("not", "bad"), ("no", "matter"),
                ("not", "just"), ("no", "problem"), ("no", "worries"))
QUESTION_SUBJECTS = frozenset("you u there it we i they he she that this".split())  # "don't you have", "isn't there": a question
CONTRAST = frozenset("but though tho although however except".split())  # a new segment ("except" also negates what follows)
SEGMENT_MARKS = re.compile(r"[.!?;—–:]|,|\s-\s|\(|\)")
# words a negation or seen scope passes over on its way to the names it reaches ("isn't by X or Y", "nothing that's R-rated")
SCOPE_WORDS = STOP | FILM_WORDS | LIKE_WORDS | SEEN_WORDS | frozenset(
    """another more any anything something stuff kind sort type one ones too so very really yet again either
    by directed starring featuring with from in made rated written scored shot produced set
    please though thanks obviously literally actually already ever all three two four five both of those
    fan big huge especially particularly much lot bit every each single want wants wanted need needs wanna fancy watch see show give""".split())
# the person's story and context, never seeds: "yesterday", "my cousin", "the kids"
STORY_WORDS = frozenset("""finally just recently yesterday tonight today tomorrow last night week weekend evening morning afternoon
    ago earlier later lately again obviously literally honestly actually basically seriously totally definitely probably maybe
    niece nephew kids kid children child son daughter wife husband girlfriend boyfriend partner friend friends mum mom dad
    parents family sister brother bro sis mate buddy gf bf wifey hubby grandma grandpa grandparents cousin roommate colleague
    only though also still even ever much lot bit pretty quite rather fairly super mega totally""".split())
# words of a request that are never names when typed in lower case (a film called "Hate", a person called "Love")
NOT_NAMES = NEGATIONS | LIKE_WORDS | SEEN_WORDS | frozenset("recommend suggest watch want need more something anything".split())
TIME_PHRASES = re.compile(r"\b(?:last|this|next|the other) (?:night|week|weekend|month|year|time|evening|morning)\b|\b\d+ (?:days?|weeks?|years?) ago\b", re.I)
# pronouns that point at a person named before ("something with her in it", "all of his")
PERSON_PRONOUNS = frozenset("him her his hers their".split())
SET_REFERENCES = frozenset("those these them all three two four five both everything every each".split())
PERSON_PRONOUN = re.compile(r"\b(?:with|without|starring|featuring)\s+(?:him|her)\b|\b(?:him|her)\s+in\s+it\b", re.I)
LIKE_OBJECTS = frozenset("it that this them those both one".split())  # "... loved it": what was just named

TOO_LONG_MINUTES = 120  # "nothing too long": at most two hours, the length most films stay under
SHORT_MINUTES = 100  # "something short", "a quick one"
TOO_LONG = re.compile(r"(?:\b(?:nothing|not|none|no)\b|n['’]t\b)(?:[\w' ]{0,12}?\btoo (?:long|lengthy)| (?:that|very|super|overly) long)\b", re.I)
SHORT = re.compile(r"\b(?:something|anything|a|an|one|pretty|fairly|rather|nice and)\s+(?:short|quick|brief)(?:ish)?\b(?!\s+than)", re.I)
MAX_COUNT = 10
COUNT = re.compile(r"\b(?P<n>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|a couple(?: of)?|a few|a single|just one|only one)"
                   r"\s+(?:(?:more|other|good|great|similar|new|different|fun|solid|decent|\w+-?\w*)\s+){0,2}?"
                   r"(?P<noun>films?|movies?|flicks?|picks?|recommendations?|suggestions?|titles?|options?|ideas?|ones?|things?"
                   r"|(?!(?:hours|hrs|minutes|mins|seconds|days|weeks|months|years|decades|times|kids|children|people|friends|oscars"
                   r"|awards|stars|episodes|seasons|parts|sequels)\b)[a-z]{4,}s)\b", re.I)  # "7 westerns", not "2 hours"
COUNT_WORDS = {"a couple": 2, "a couple of": 2, "a few": 3, "a single": 1, "just one": 1, "only one": 1}
# a catalogue series (a studio's list of films), not a story's: its label names a set of films
CATALOGUE = re.compile(r"^list of\b|\bfilms?$|\bfeature films?\b|\bgreatest\b|\bclassics\b|\bcollection\b|\bcatalog(?:ue)?\b", re.I)
CATALOGUE_FILLER = frozenset("list of the films film feature features series franchise trilogy saga collection classics s".split())
VALUE_GROUPS = frozenset({"genre", "country", "language"})
FRANCHISE_WORDS = frozenset("films movies flicks ones series franchise saga trilogy sequels installments instalments".split())
SEQUEL_LIST = re.compile(r"^\s*(?:1|i|one|part (?:1|i|one))?\s*(?:,|and|&|\+|/)\s*(?P<n>\d|ii|iii|iv|two|three|four)\b", re.I)
SEQUEL_NUMBERS = {"two": "2", "three": "3", "four": "4", "ii": "2", "iii": "3", "iv": "4"}
# "more like that", "give me more", "another one", "something else": the same request again, new picks
MORE = re.compile(r"\bmore (?:like|please|of (?:that|those|these|them|the same)|suggestions|picks|ideas|recommendations|recs|films|movies|options)\b"
                  r"|\b(?:some|any|give me|show me|got|a few|few) more\b|\banother (?:one|few|batch|set|round|couple)\b"
                  r"|^\W*(?:(?:ok|okay|and|so|hm+)\W+)?(?:something|anything) (?:else|different)\W*$|\bother (?:ones|picks|suggestions)\b"
                  r"|\bdifferent ones\b|(?:^|[.!?]\s*)more\W*$", re.I)
COMPARATIVES = {"older": "older", "earlier": "older", "newer": "newer", "recent": "newer", "later": "newer", "shorter": "shorter",
                "longer": "longer"}


def is_catalogue(label: str) -> bool:
    """Whether a series label names a studio's list of films ("list of Pixar films"), not a story told in several films."""
    return bool(CATALOGUE.search(label))


def cue_pattern() -> str:
    """The request cues as one regular expression alternative (bot.understanding.cues joins it into RECOMMEND)."""
    return "|".join(f"(?:{p})" for p in REQUEST_CUES)


# ---------------------------------------------------------------------------------------------------------- scopes


@dataclass(frozen=True)
class Reach:
    """What reaches one token of the message: a negation, a seen cue, a like cue (before it, or after it in its
    segment), and its segment."""

    negated: bool = False
    seen: bool = False
    liked_before: bool = False
    liked_after: bool = False
    segment: int = 0


def segments(text: str, toks: list[Token], protected: set[int] = frozenset()) -> list[int]:
    """The segment of each token: a new one after a sentence mark, a comma, a dash or bracket, and at a contrast word
    ("but", "though") or "and" before a new subject ("... and I've seen X"); never inside a name (`protected` tokens)."""
    out, current = [], 0
    for k, (word, start, _) in enumerate(toks):
        if k and k not in protected:
            between = text[toks[k - 1][2] : start]
            if SEGMENT_MARKS.search(between) or word in CONTRAST or (
                    word == "and" and k + 1 < len(toks) and toks[k + 1][0] in ("i", "we", "they", "he", "she", "the", "my", "our")):
                current += 1
        out.append(current)
    return out


def negation_at(words: list[str], toks: list[Token], k: int) -> int:
    """How many tokens from k say "not" (0 when none): a negation word or phrase, or the "t" of "isn't"; a question
    form ("don't you have ...") or a set phrase ("why not", "not sure") does not."""
    word, nxt, before = words[k], words[k + 1] if k + 1 < len(words) else "", words[k - 1] if k else ""
    if (before, word) in NOT_NEGATING or (word, nxt) in NOT_NEGATING:
        return 0
    if contracted_not(toks, k):
        return 0 if nxt in QUESTION_SUBJECTS else 1
    if (word, nxt) in NEGATION_PHRASES:
        return 2
    return 1 if word in NEGATIONS else 0


def seen_at(words: list[str], k: int) -> bool:
    """Whether token k says the person has seen what follows ("I've seen", "we've done", "already watched")."""
    word = words[k]
    if word not in SEEN_WORDS:
        return False
    before = set(words[max(0, k - 3) : k])
    if word in ("done", "finished"):
        return bool(before & SEEN_AUXILIARIES - {"all", "both"}) and not before & {"what", "how", "why"}
    return not before & {"should", "could", "would", "shud", "can", "might", "to", "want", "wanna", "what"}  # "what should I see"


def reaches(text: str, toks: list[Token], names: set[int]) -> list[Reach]:
    """For each token, the negation, seen and like cues that reach it (`names`: the tokens of the message's names,
    which scopes pass over)."""
    words = [t for t, _, _ in toks]
    segment = segments(text, toks, names)
    out = []
    for k in range(len(toks)):
        negated = seen = liked = False
        j = k - 1
        while j >= 0 and segment[j] == segment[k]:  # back to the cue whose scope reaches k (or the segment start)
            size = negation_at(words, toks, j) if j not in names else 0
            if size or (j not in names and seen_at(words, j)):
                negated, seen = negated or bool(size), seen or not size
                break
            if j not in names and words[j] in LIKE_WORDS:
                liked = True
            if j not in names and not _passes(words, j, names):
                break
            j -= 1
        liked_before = liked or any(words[j] in LIKE_WORDS for j in range(k) if segment[j] == segment[k] and j not in names)
        liked_after = any(words[j] in LIKE_WORDS for j in range(k + 1, len(toks)) if segment[j] == segment[k] and j not in names)
        out.append(Reach(negated, seen and not negated, liked_before, liked_after, segment[k]))
    return out


def _passes(words: list[str], j: int, names: set[int]) -> bool:
    """Whether a scope passes over token j: a list word, a function word or a name; "and" only before a name or another
    negation ("nothing scary and nothing over 90 minutes"), not before new content ("not too long and stars X")."""
    word = words[j]
    if word == "and":
        return any(m in names or words[m] in NEGATIONS for m in range(j + 1, min(len(words), j + 3)))
    return word in SCOPE_WORDS or word.isdigit()


def already_seen_after(words: list[str], segment: list[int], end: int) -> bool:
    """"I've seen Aliens already", "Heat - seen it": a seen cue after a name in its segment."""
    after = [j for j in range(end, len(words)) if segment[j] == segment[end - 1]]
    return any(words[j] == "already" or words[j] in ("seen", "watched") and not {"t", "not", "never"} & set(words[max(0, j - 2) : j])
               for j in after)  # ("something with X that I haven't seen": not seen)


def requested_count(text: str, protected: list[tuple[int, int]] = ()) -> tuple[int, tuple[int, int] | None]:
    """How many picks the message asks for ("3 similar movies", "one film", "a couple of ideas"), and where the number is;
    0 when it does not (a number inside a title, `protected`, is no count)."""
    for match in COUNT.finditer(text):
        if any(a < match.end("n") and match.start("n") < b for a, b in protected):
            continue
        said = match.group("n").lower()
        n = COUNT_WORDS.get(said) or (int(said) if said.isdigit() else int(NUMBER_WORDS.get(said, 0)))
        if match.group("noun").lower() in ("one", "ones", "thing", "things") and not (said.isdigit() or said in ("one", "just one", "only one")):
            continue  # "a few ones" is no way to ask; "the other one" is no count
        if 1 <= n:
            return min(n, MAX_COUNT), (match.start("n"), match.end("n"))
    return 0, None


def flipped(q: Quantity) -> Quantity:
    """The quantity a negation leaves: "nothing over 100 minutes" is at most 100 minutes; "nothing before 1980" is from 1980 on."""
    ops = {">": "<=", ">=": "<", "<": ">=", "<=": ">"}
    if q.op in ops:
        return Quantity(q.kind, ops[q.op], q.value, q.start, q.end, f"not {q.said}")
    if q.op == "year>=":
        return Quantity(q.kind, "year<=", q.value - 1, q.start, q.end, f"not {q.said}")
    return Quantity(q.kind, "year>=", q.value + 1, q.start, q.end, f"not {q.said}")


def catalogue_keys(series: list[tuple[int, str]], taken) -> dict[str, int]:
    """The words a series is named by besides its label: "pixar" for "list of Pixar films", "ghibli" and "studio ghibli"
    for "Studio Ghibli Feature Films". `series`: (label-index id, label); `taken(key)`: whether the key already names
    something else in the graph or is a common word (it then stays with that)."""
    keys: dict[str, int] = {}
    for idx, label in series:
        words = [w for w in normalize(label).split() if w not in CATALOGUE_FILLER]
        if not words:
            continue
        options = {" ".join(words)} | ({w for w in words if len(w) >= 4} if len(words) > 1 else set())
        for key in options:
            if not taken(key):
                keys.setdefault(key, idx)
    return keys


# ---------------------------------------------------------------------------------------------------------- the reader


@dataclass
class Mention:
    """A name of the message as the request reads it."""

    span: Span
    entity: LinkedEntity
    films: tuple[str, ...] = ()  # a partial title: the films it names
    catalogue: bool = False  # a catalogue series named by its own word ("Pixar")

    @property
    def tokens(self) -> range:
        return range(self.span.tok_start, self.span.tok_end)


@dataclass
class Reading:
    """The request being assembled."""

    seeds: list[Seed] = field(default_factory=list)
    seen: list[Seed] = field(default_factory=list)
    excluded: list[Seed] = field(default_factory=list)
    conditions: list[Constraint] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)
    entities: list[LinkedEntity] = field(default_factory=list)


class RecommendationReader:
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
            seeds=tuple(_unique(reading.seeds)), seen=tuple(_unique(reading.seen)), excluded=tuple(_unique(reading.excluded)),
            conditions=tuple(_merged(reading.conditions, words)), count=count, unknown=tuple(dict.fromkeys(reading.unknown)),
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

    # ------------------------------------------------------------------ roles

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


def _unique(seeds: list[Seed]) -> list[Seed]:
    out, seen = [], set()
    for s in seeds:
        if s.iris not in seen:
            seen.add(s.iris)
            out.append(s)
    return out


def _merged(conditions: list[Constraint], words: list[str]) -> list[Constraint]:
    """Conditions on one relation given as alternatives ("G or PG", "horror or thriller") as one condition; repeats once."""
    out: list[Constraint] = []
    alternatives = "or" in words or "either" in words
    for c in conditions:
        same = next((o for o in out if o.relations == c.relations and o.op == c.op == "in" and alternatives and o.values != c.values), None)
        if same is not None and not c.named_role:
            out[out.index(same)] = Constraint(c.relations, "in", tuple(dict.fromkeys(same.values + c.values)), f"{same.said} or {c.said}")
        elif c not in out:
            out.append(c)
    return out
