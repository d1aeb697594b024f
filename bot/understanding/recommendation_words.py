"""The words of a recommendation request and how far they reach (bot.understanding.recommendation_request reads with them).

The cue patterns that make a message a recommendation request (REQUEST_CUES, joined into
bot.understanding.cues.RECOMMEND), the vocabulary of liking, seeing and excluding, the segments a message is cut into
and the scope of a negation or a seen cue within one, a requested count, a catalogue series' own words; and the parts
of a request as it is assembled (Mention, Reading).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.core.contracts import Constraint, LinkedEntity, Seed
from bot.core.text import Token, contracted_not, normalize
from bot.understanding.lexicon import FILM_WORDS, STOP
from bot.understanding.mentions import Span
from bot.understanding.quantities import NUMBER_WORDS, Quantity

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



def unique_seeds(seeds: list[Seed]) -> list[Seed]:
    out, seen = [], set()
    for s in seeds:
        if s.iris not in seen:
            seen.add(s.iris)
            out.append(s)
    return out


def merged_conditions(conditions: list[Constraint], words: list[str]) -> list[Constraint]:
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
