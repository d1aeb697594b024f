"""Pronouns resolved before a message is read: first inside the message, then to the conversation.

"Who directed Heat and who composed its music?" asks about Heat's music whatever the conversation was
about: a pronoun refers first to a name of its type said before it in the message (a film for "it",
"that one", "the film"; a person for "he", "she", "they" when said in an earlier clause or set off before
it: "Jamie Lee Curtis, what else has she been in?"). A "he" after an earlier question ("who directed Heat
and what else did he direct?") is that question's answer, which the parser resolves. Only a pronoun the
message gives no antecedent is resolved to what the conversation offers (`Referents`, decided by the
dialogue from its state), by type: the last film, the last person (of the pronoun's gender as the user
used it), the previous answer for "they", the last two films for "both".

The referring words are replaced by the name, and the name is a span pinned to its entity (the
antecedent's own span, or the conversation's entity with no namesakes to ask about again): the parser
then reads one message with names in it, whichever construction it is (a relation, a yes/no check, a
comparison, a superlative over someone's films, a recommendation). The names found before are kept with
their offsets shifted, so the mention detectors run once.

A message that names nothing and has no pronoun ("and the music?", "runtime?") may ask about the
conversation's topic: `Resolved.unsaid`, unless it holds a condition (a quantity, a negation) — then it is
a filter or a request of its own, not a relation of that topic.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from bot.core.contracts import LinkedEntity, Referents
from bot.core.text import YEAR, contracted_not, normalize
from bot.kg.labels import LabelIndex
from bot.understanding.constructions.clause import Token, tokenise
from bot.understanding.mentions import Span
from bot.understanding.quantities import quantities
from bot.understanding.vocabulary import NEGATIONS, PRONOUNS, QUESTION_WORDS, phrases, word_class

PINNED = "referent"  # the source of a span that stands for a conversation's entity
MASCULINE, FEMININE = word_class("masculine"), word_class("feminine")


def _pronoun(word: str, kind: str) -> str:
    """What a single pronoun points at: a film ("it"), "he" or "she" (a person, as the user genders them), "they"."""
    if kind == "thing":
        return "film"
    if kind == "person":
        return "she" if word in FEMININE else "he"
    return "they"


# referring words (as folded tokens) -> what they point at; the longest that fits is taken
REFERRING: dict[tuple[str, ...], str] = {
    **{(word,): _pronoun(word, kind) for word, kind in PRONOUNS.items() if word != "itself"},
    **{(word,): _pronoun(word, "person") for word in MASCULINE | FEMININE if not word.endswith("self")},  # ("did he direct it himself")
    **{words: points_at for points_at, said in phrases("referring").items() for words in said},
}
# said only at the end of a clause: "who directed that?", "who starred in the film?"
CLAUSE_FINAL: dict[tuple[str, ...], str] = {words: points_at for points_at, said in phrases("referring", "clause_final").items()
                                            for words in said}
POSSESSIVE = frozenset({"its", "his", "their", "hers"})
# "her" is a possessive before a noun and an object before these (or at the end)
OBJECT_FOLLOWERS = frozenset("in on with and or to for from at by as about again too also ever".split())
SET_REFERENCE_BEFORE = frozenset({"of", "among", "from", "between"})  # "which of them": the last list (the composer's)
TOGETHER = frozenset({"together", "both"})  # "did they work together": two people
CLAUSE_END_WORDS = frozenset({"and", "then", "too", "also", "please", "pls", "tho", "though", "again"})
DEMONSTRATIVES = word_class("demonstratives") | {"that"}  # "that play": a referent of a kind the conversation may not offer
NEGATED = NEGATIONS | {"no", "nothing", "never", "none"}  # a message that says what it does not want sets a condition
DATED_NOUNS = frozenset({"one", "version", "film", "movie", "remake"})  # "the 1996 one"
GENDERED = {word: points_at for (word, *more), points_at in REFERRING.items() if not more and points_at in ("he", "she")}
LONGEST = max(len(words) for words in [*REFERRING, *CLAUSE_FINAL])


@dataclass(frozen=True)
class Resolved:
    """The message with its pronouns replaced: the text, tokens and spans the parser reads, and what was replaced."""

    text: str
    toks: list[Token]
    spans: list[Span]
    replaced: tuple[tuple[str, str], ...] = ()  # (the words as written, what they were read as)
    unsaid: LinkedEntity | None = None  # the topic of a message that names nothing and refers to nothing


@dataclass(frozen=True)
class _Edit:
    start: int  # first token
    end: int  # end token
    written: list[str]  # the names to write
    pinned: list[Span | LinkedEntity]  # per name: the antecedent's span to copy, or the conversation's entity
    suffix: str


def resolve_referents(text: str, toks: list[Token], spans: list[Span], referents: Referents | None, labels: LabelIndex,
                      name_like: Callable[[list[Token], Span], bool], clauses: Callable[[], list[tuple[int, int]]]) -> Resolved:
    """`text` with every pronoun replaced by its antecedent in the message, else by the conversation's referent.

    `spans`: the names found in `text`; `name_like(toks, span)`: whether a span is a name rather than wording;
    `clauses()`: the token ranges of the message's clauses that ask something."""
    if not toks:
        return Resolved(text, toks, spans)
    referents = referents or Referents()
    names = [s for s in spans if s.ids and s.fuzzy_score >= 90 and name_like(toks, s)]
    edits: list[_Edit] = []
    referring = False
    ranges: list[tuple[int, int]] | None = None
    k = 0
    while k < len(toks):
        found = _referring_words(text, toks, k, names)
        if found is None:
            referring = referring or _demonstrative(toks, k)
            k += 1
            continue
        referring = True
        end, points_at = found
        if ranges is None:
            ranges = clauses()
        antecedent = _antecedent(points_at, text, toks, k, names, labels, ranges)
        if antecedent:
            edit = _copied(antecedent, text, toks, k, end) if _suffix(toks, k, end) and points_at != "film" else None
        else:
            edit = _from_conversation(points_at, referents, toks, k, end, labels, names, ranges)
        if edit is not None:
            edits.append(edit)
        k = end
    unsaid = None
    if not referring and not names and not quantities(text) and not _negated(toks):
        unsaid = referents.topic
    if not edits:
        return Resolved(text, toks, spans, unsaid=unsaid)
    return _rewritten(text, toks, spans, edits, labels)


def _referring_words(text: str, toks: list[Token], k: int, names: list[Span]) -> tuple[int, str] | None:
    """(end token, what they point at) when referring words start at token k; None inside a name, or for a
    capitalised word inside a sentence ("Who directed His Girl Friday?", "Did you see Her?")."""
    if any(s.tok_start <= k < s.tok_end for s in names):
        return None
    word, start, _ = toks[k]
    before = text[:start].rstrip()
    if text[start].isupper() and before and before[-1] not in ".!?:;,(\"'":
        return None
    if word == "the" and k + 2 < len(toks) and YEAR.fullmatch(toks[k + 1][0]) and toks[k + 2][0] in DATED_NOUNS:
        return k + 3, "dated"  # "the 2018 one": the conversation's film of that name, from that year
    for size in range(min(LONGEST, len(toks) - k), 0, -1):
        words = tuple(t for t, _, _ in toks[k : k + size])
        end = k + size
        if any(s.tok_start < end and k < s.tok_end for s in names):
            continue
        if words in REFERRING:
            if words[0] in ("them", "they", "their") and k > 0 and toks[k - 1][0] in SET_REFERENCE_BEFORE:
                return None  # "which of them": the films just listed, read by the composer
            return end, REFERRING[words]
        if words in CLAUSE_FINAL and _clause_ends(text, toks, end):
            return end, CLAUSE_FINAL[words]
    return None


def _demonstrative(toks: list[Token], k: int) -> bool:
    """"that play", "those awards": a demonstrative before a word points back at something (of a kind the
    conversation may not hold), so the message is no question about the conversation's topic."""
    return toks[k][0] in DEMONSTRATIVES and k + 1 < len(toks) and toks[k + 1][0] not in ("is", "was", "are", "were", "s")


def _clause_ends(text: str, toks: list[Token], end: int) -> bool:
    """Whether the clause ends after token `end - 1` (the message ends, or a mark or "and" follows)."""
    if end >= len(toks):
        return True
    between = text[toks[end - 1][2] : toks[end][1]]
    return any(mark in between for mark in ".?!,;") or toks[end][0] in CLAUSE_END_WORDS


def _negated(toks: list[Token]) -> bool:
    return any(t in NEGATED or contracted_not(toks, k) for k, (t, _, _) in enumerate(toks))


def _is(labels: LabelIndex, span: Span, group: str) -> bool:
    return any(labels.groups[i] == group for i in span.ids)


def _clause_start(ranges: list[tuple[int, int]], k: int) -> int:
    return max((a for a, _ in ranges if a <= k), default=0)


def _set_off(text: str, toks: list[Token], span: Span, k: int, ranges: list[tuple[int, int]]) -> bool:
    """Whether the name before token k is in an earlier clause, or set off before it by a mark ("X, what else ...")."""
    return span.tok_end <= _clause_start(ranges, k) or any(mark in text[span.end : toks[k][1]] for mark in ",;:—–-")


def _antecedent(points_at: str, text: str, toks: list[Token], k: int, names: list[Span], labels: LabelIndex,
                ranges: list[tuple[int, int]]) -> list[Span]:
    """The names before the referring words at token k in the message that they point at ([] for none)."""
    before = sorted((s for s in names if s.tok_end <= k), key=lambda s: s.tok_end)
    if points_at == "film":
        chosen = [s for s in before if _is(labels, s, "film")][-1:]
    elif points_at in ("he", "she", "person"):
        chosen = [s for s in before if _is(labels, s, "person") and _set_off(text, toks, s, k, ranges)][-1:]
    elif points_at == "they":
        people = [s for s in before if _is(labels, s, "person") and _set_off(text, toks, s, k, ranges)]
        last = people[-1] if people else None
        chosen = [s for s in people if last is not None and s.tok_end >= last.tok_start - 3] if people else []  # "A and B, did they"
    else:
        return []
    return chosen


def _copied(antecedent: list[Span], text: str, toks: list[Token], k: int, end: int) -> _Edit:
    """A possessive whose antecedent is a person named before it ("back to Bong Joon-ho, which of his films ..."),
    written as that name: a construction that reads names, not pronouns (a superlative, a count), reads it too.
    (Other pronouns with an antecedent in the message are the parser's: it reads them with the words that chose the
    antecedent among its namesakes, "the original Henry V - who directed it?".)"""
    return _Edit(k, end, [text[s.start : s.end] for s in antecedent], list(antecedent), _suffix(toks, k, end))


def _from_conversation(points_at: str, referents: Referents, toks: list[Token], k: int, end: int, labels: LabelIndex,
                       names: list[Span], ranges: list[tuple[int, int]]) -> _Edit | None:
    """The conversation's entity for referring words with no antecedent in the message, or None (also when an earlier
    question of the message may be what they point at: its answer, which the parser resolves)."""
    clause = _clause_start(ranges, k)
    earlier_question = any(b <= clause and any(toks[j][0] in QUESTION_WORDS for j in range(a, b)) for a, b in ranges)
    if points_at == "film":
        entities = [referents.film] if referents.film is not None and not earlier_question else []
    elif points_at in ("he", "she", "person"):
        person = {"he": referents.he, "she": referents.she}.get(points_at, referents.person)
        named = {i for s in names for i in s.ids}
        if person is not None and labels.by_iri.get(person.iri) in named:
            # "How many Spielberg films did John Williams score?" "Which Spielberg film didn't he score?": a pronoun is not
            # the person its own message names; the other person of the last turns is
            person = next((p for p in referents.people if p.iri != person.iri and labels.by_iri.get(p.iri) not in named), None)
        entities = [person] if person is not None and not earlier_question else []
    elif points_at == "they":
        together = TOGETHER & {t for t, _, _ in toks}
        if together and len(referents.answers) < 2:  # "did they work together?": two people, or nobody the conversation names
            entities = list(referents.people) if len(referents.people) == 2 and not earlier_question else []
        else:
            entities = [] if earlier_question else list(referents.answers)
    elif points_at == "dated":  # "was Jamie Lee Curtis in the 2018 one too?": a namesake of the conversation's film
        film, year = referents.film, int(toks[k + 1][0])
        ids = [i for i in labels.lookup(normalize(film.label)) if labels.groups[i] == "film" and labels.years[i] == year] if film else []
        named = any(_is(labels, s, "film") for s in names)  # "Halloween, the 2018 one": the reader's description of that title
        entities = [LinkedEntity(film.label, labels.iris[ids[0]], film.label, 100.0, "film", year=year)] if len(ids) == 1 and not named else []
    elif points_at == "nth":
        entities = []
    elif points_at in ("newer", "older", "first", "last"):  # "how long is the newer one?" after two films, "the first one"
        dated = [f for f in referents.listed if f.year]
        pick = max if points_at in ("newer", "last") else min
        chosen = pick(dated, key=lambda f: f.year) if dated else None
        alone = chosen is not None and [f.year for f in dated].count(chosen.year) == 1  # no other film of that year
        # ("the first film by Nolan" names whose films it means: a superlative of its own, not one of the list)
        wanted = len(dated) == 2 if points_at in ("newer", "older") else len(dated) >= 2 and len(dated) == len(referents.listed) and not names
        entities = [chosen] if alone and wanted else []
    else:  # "both", unless the message names films, or names before it whom it means ("did Pacino and De Niro both ...")
        named = any(_is(labels, s, "film") or s.tok_end <= k for s in names)
        entities = list(referents.films) if len(referents.films) == 2 and not named else []
    if not entities:
        return None
    return _Edit(k, end, [e.label for e in entities], entities, _suffix(toks, k, end))


def _suffix(toks: list[Token], k: int, end: int) -> str:
    """"'s" when the referring word is a possessive ("its music" -> "Heat's music")."""
    word = toks[k][0]
    if end - k != 1:
        return ""
    if word in POSSESSIVE:
        return "'s"
    if word == "her" and end < len(toks) and toks[end][0] not in OBJECT_FOLLOWERS:
        return "'s"
    return ""


def _rewritten(text: str, toks: list[Token], spans: list[Span], edits: list[_Edit], labels: LabelIndex) -> Resolved:
    """The text with the edits made, its tokens, the old spans shifted and a pinned span per name written."""
    pieces: list[str] = []
    placed: list[tuple[int, int, Span | LinkedEntity]] = []  # character ranges of the written names in the new text
    shifts: list[tuple[int, int]] = []  # (old offset from which, how far later text moved)
    replaced = []
    last, length = 0, 0  # old offset copied up to; length of the new text so far

    def put(piece: str) -> int:
        nonlocal length
        pieces.append(piece)
        length += len(piece)
        return length - len(piece)

    for edit in edits:
        start, end = toks[edit.start][1], toks[edit.end - 1][2]
        put(text[last:start])
        if any(t == "both" for t, _, _ in toks[edit.start : edit.end]):
            put("both ")
        for n, (name, source) in enumerate(zip(edit.written, edit.pinned)):
            if n:
                put(" and " if n == len(edit.written) - 1 else ", ")
            at = put(name)
            placed.append((at, at + len(name), source))
        put(edit.suffix)
        replaced.append((text[start:end], ", ".join(edit.written)))
        last = end
        shifts.append((end, length - end))
    put(text[last:])
    new_text = "".join(pieces)
    new_toks = tokenise(new_text)
    removed = [(toks[e.start][1], toks[e.end - 1][2]) for e in edits]

    def moved(offset: int) -> int:
        return offset + next((d for at, d in reversed(shifts) if offset >= at), 0)

    def token_range(start: int, end: int) -> tuple[int, int] | None:
        inside = [n for n, (_, s, e) in enumerate(new_toks) if start <= s and e <= end]
        return (inside[0], inside[-1] + 1) if inside else None

    kept = []
    for span in spans:
        if any(span.start < e and s < span.end for s, e in removed):
            continue
        start, end = moved(span.start), moved(span.end)
        if (where := token_range(start, end)) is not None and where[1] - where[0] == span.length:
            kept.append(replace(span, tok_start=where[0], tok_end=where[1], start=start, end=end))
    for start, end, source in placed:
        where = token_range(start, end)
        if where is None:
            continue
        if isinstance(source, Span):  # the antecedent's own span, copied: the same names, however they were linked
            kept.append(replace(source, tok_start=where[0], tok_end=where[1], start=start, end=end))
        elif (idx := labels.by_iri.get(source.iri)) is not None:
            kept.append(Span(where[0], where[1], start, end, normalize(source.label), [idx], 100.0, PINNED, source.group))
    kept.sort(key=lambda s: (-s.length, -s.fuzzy_score, s.tok_start))
    return Resolved(new_text, new_toks, kept, tuple(replaced))
