"""Augmentation styles: how people wrap, shorten and vary a generated question (bot.understanding.reader.corpus).

Each style takes a labelled example and returns it changed, keeping every word's role: a story before the
question (its content words are context), politeness, hedges and sign-offs, descriptions that say which film is
meant, typos in any word, confusions of similar words, chat shorthand, non-native word order and prepositions,
several questions in one message (joined or as a list), fragments, and unforeseen words in the question itself
(which stay question words: a word nobody foresaw where a relation is asked is not filler).

Styles are named, so a model can be trained on some and tested on others (bench/reader.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.understanding.ner.sentences import typo
from bot.understanding.reader.corpus import Example, Film, Generator, Piece, Role, augment_data

Style = Callable[[Example, Generator], Example]


def _films(example: Example) -> list[int]:
    return [n for n, p in enumerate(example.pieces) if p.role is Role.NAME and p.slot == "film"]


def _fill(gen: Generator, text: str, role: Role, film: Film | None = None) -> list[Piece]:
    """A phrase of augment.toml with its slots filled; {film} names `film` when given."""
    data = augment_data()["context"]
    pieces = []
    for n, part in enumerate(re.split(r"\{(\w+)\}", text)):
        if n % 2 == 0:
            if part.strip():
                pieces.append(Piece(part.strip(), role))
        elif part in data:
            pieces.append(Piece(gen.rng.choice(data[part]), role))
        else:
            value, slot_role, label = gen.fill(part, film)
            pieces.append(Piece(value, Role.NAME if slot_role is Role.NAME else role, part, label))
    return pieces


def story(example: Example, gen: Generator) -> Example:
    """A sentence of context before the question; sometimes it names the film the question then calls "it"."""
    films = _films(example)
    phrase = gen.rng.choice(augment_data()["context"]["before"])
    if films and "{film}" in phrase and gen.rng.random() < 0.5:
        at = films[0]
        title = example.pieces[at].label
        film = gen.facts.by_title.get(title)
        pronoun = gen.rng.choice(("it", "that film", "that one", "the movie"))
        example.pieces[at] = Piece(pronoun, Role.ASK)
        lead = _fill(gen, phrase, Role.CTX, film)
    else:
        lead = _fill(gen, phrase.replace("{film}", "{word}"), Role.CTX)
    end = gen.rng.choice((".", ",", " and", "!", ". anyway,", "..."))
    lead.append(Piece(end, Role.CTX))
    example.pieces = lead + example.pieces
    return example


def aside(example: Example, gen: Generator) -> Example:
    """A remark after the question ("... ? I always forget.")."""
    example.pieces += [Piece(gen.rng.choice(("?", ".", "!", "? —")), Role.CTX)] + _fill(gen, gen.rng.choice(augment_data()["context"]["after"]), Role.CTX)
    return example


def polite(example: Example, gen: Generator) -> Example:
    wrap = augment_data()["wrap"]
    rng = gen.rng
    if rng.random() < 0.5:
        example.pieces.insert(0, Piece(rng.choice(wrap["greeting"]) + rng.choice((",", "!", "")), Role.CTX))
    if rng.random() < 0.6:
        lead = rng.choice(wrap["lead"])
        at = 1 if example.pieces and example.pieces[0].role is Role.CTX else 0
        example.pieces.insert(at, Piece(lead, Role.CTX))
    if rng.random() < 0.6:
        example.pieces.append(Piece(rng.choice((",", "", "?")) + " " + rng.choice(wrap["tail"]), Role.CTX))
    return example


def hedge(example: Example, gen: Generator) -> Example:
    wrap = augment_data()["wrap"]
    example.pieces.append(Piece(gen.rng.choice((",", "")) + " " + gen.rng.choice(wrap["tail"][8:]), Role.CTX))
    return example


def describe(example: Example, gen: Generator) -> Example:
    """A description of a film named in the question, true of that film."""
    films = _films(example)
    if not films:
        return example
    at = gen.rng.choice(films)
    film = gen.facts.by_title.get(example.pieces[at].label)
    if film is None:
        return example
    data = augment_data()["describe"]
    options = []
    for where in ("after", "before"):
        for phrase in data[where]:
            slots = set(re.findall(r"\{(\w+)\}", phrase))
            if {"year", "yy"} & slots and not film.year or "director" in slots | {"surname"} & slots and not film.directors:
                continue
            if "cast" in slots and not film.cast or "genre" in slots and not film.genres:
                continue
            options.append((where, phrase))
    if not options:
        return example
    where, phrase = gen.rng.choice(options)
    director = gen.rng.choice(film.directors) if film.directors else ""
    values = {"year": str(film.year or ""), "yy": str(film.year or "")[-2:], "director": director,
              "surname": director.split()[-1] if director else "", "cast": gen.rng.choice(film.cast) if film.cast else "",
              "genre": re.sub(r"\s+film$", "", gen.rng.choice(film.genres)) if film.genres else ""}
    text = re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], phrase)
    piece = Piece(text.strip() if where == "before" else text, Role.DESC)
    if where == "before":
        if at > 0 and example.pieces[at - 1].text.lower().endswith(("the", "the movie", "the film")) and text.lower().startswith("the "):
            piece.text = text[4:].strip()
        example.pieces.insert(at, piece)
    else:
        example.pieces.insert(at + 1, piece)
    return example


def typos(example: Example, gen: Generator) -> Example:
    """One or two slips in the question's own words (names get theirs in the NER data)."""
    spots = [n for n, p in enumerate(example.pieces) if p.role in (Role.ASK, Role.CTX) and re.search(r"[a-z]{4,}", p.text)]
    for n in gen.rng.sample(spots, min(len(spots), gen.rng.randint(1, 2))):
        example.pieces[n].text = typo(gen.rng, example.pieces[n].text, 1)
    return example


def confusions(example: Example, gen: Generator) -> Example:
    for n, piece in enumerate(example.pieces):
        if piece.role is Role.NAME:
            continue
        for right, wrong in augment_data()["confusions"]["pairs"]:
            if gen.rng.random() < 0.5:
                piece.text = re.sub(rf"\b{re.escape(right)}\b", wrong, piece.text)
        example.pieces[n] = piece
    return example


def chat(example: Example, gen: Generator) -> Example:
    """Chat shorthand, lower case, no apostrophes, no question mark."""
    for piece in example.pieces:
        if piece.role is Role.NAME:
            piece.text = piece.text.lower() if gen.rng.random() < 0.7 else piece.text
            continue
        for word, short in augment_data()["chat"]["words"]:
            if gen.rng.random() < 0.6:
                piece.text = re.sub(rf"\b{re.escape(word)}\b", short, piece.text, flags=re.I)
        piece.text = piece.text.lower().replace("'", "").replace("?", "" if gen.rng.random() < 0.6 else "??")
    return example


def non_native(example: Example, gen: Generator) -> Example:
    """Other prepositions and word order: "who is director of X", "X, who has directed it?"."""
    data = augment_data()["non_native"]
    for piece in example.pieces:
        if piece.role is Role.ASK:
            for right, other in data["swaps"]:
                if right in piece.text and gen.rng.random() < 0.4:
                    piece.text = piece.text.replace(right, other, 1)
    names = [n for n, p in enumerate(example.pieces) if p.role is Role.NAME]
    if len(names) == 1 and names[0] > 0 and gen.rng.random() < 0.4:
        name = example.pieces.pop(names[0])
        pronoun = Piece("it" if name.slot == "film" else "they", Role.ASK)
        example.pieces.insert(names[0], pronoun)
        frame = gen.rng.choice(data["fronting"])
        lead, rest = frame.split("{name}")[0], frame.split("{name}")[1].split("{rest}")[0]
        front = ([Piece(lead.strip(), Role.CTX)] if lead.strip() else []) + [name] + ([Piece(rest.strip(), Role.CTX)] if rest.strip() else [])
        example.pieces = front + example.pieces
    return example


def several(example: Example, gen: Generator) -> Example:
    """A second question in the same message, joined by a word or a mark, or both as a list."""
    other = gen.question()
    rng = gen.rng
    if rng.random() < 0.4:
        data = augment_data()["lists"]
        k = rng.randrange(len(data["markers"]))
        example.pieces = ([Piece(data["markers"][k].strip(), Role.CTX)] + example.pieces + [Piece("\n" + data["next"][k].strip(), Role.CTX)]
                          + other.pieces)
    else:
        join = rng.choice((" and", "? and", ", and also", " + ", ". also,", "? plus", " n", ", then", ". and"))
        example.pieces = example.pieces + [Piece(join, Role.ASK)] + other.pieces
    example.styles += other.styles
    return example


def unforeseen(example: Example, gen: Generator) -> Example:
    """A question word nobody foresaw: a cue replaced by a random word, which is still asking (not filler)."""
    asks = [n for n, p in enumerate(example.pieces) if p.role is Role.ASK and len(p.text.split()) >= 2]
    if not asks:
        return example
    piece = example.pieces[gen.rng.choice(asks)]
    words = piece.text.split()
    k = gen.rng.randrange(len(words))
    words[k] = gen.rng.choice(gen.facts.words)
    piece.text = " ".join(words)
    return example


def filler(example: Example, gen: Generator) -> Example:
    """A word that colours the question without changing it, inside it ("what genres does X usually do")."""
    asks = [n for n, p in enumerate(example.pieces) if p.role is Role.ASK and len(p.text.split()) >= 2]
    if not asks:
        return example
    at = gen.rng.choice(asks)
    words = example.pieces[at].text.split()
    k = gen.rng.randrange(1, len(words) + 1)
    word = gen.rng.choice(augment_data()["fillers"]["words"])
    before, after = " ".join(words[:k]), " ".join(words[k:])
    example.pieces[at : at + 1] = [p for p in (Piece(before, Role.ASK), Piece(word, Role.CTX), Piece(after, Role.ASK)) if p.text]
    return example


def lower(example: Example, gen: Generator) -> Example:
    for piece in example.pieces:
        piece.text = piece.text.lower()
    return example


def upper(example: Example, gen: Generator) -> Example:
    for piece in example.pieces:
        piece.text = piece.text.upper()
    return example


STYLES: dict[str, Style] = {
    "story": story, "aside": aside, "polite": polite, "hedge": hedge, "describe": describe, "typos": typos,
    "confusions": confusions, "chat": chat, "non_native": non_native, "several": several, "unforeseen": unforeseen,
    "lower": lower, "upper": upper, "filler": filler,
}
# how often each style is applied to a generated question (independently)
STYLE_RATES = {"story": 0.15, "aside": 0.12, "polite": 0.25, "hedge": 0.1, "describe": 0.25, "typos": 0.15, "confusions": 0.05,
               "chat": 0.12, "non_native": 0.12, "several": 0.12, "unforeseen": 0.08, "lower": 0.3, "upper": 0.03,
               "filler": 0.1}
ORDER = ("describe", "unforeseen", "filler", "non_native", "several", "story", "aside", "polite", "hedge", "typos", "confusions", "chat", "lower", "upper")


def augmented(gen: Generator, n: int, styles: tuple[str, ...] | None = None, rates: dict[str, float] | None = None) -> list[Example]:
    """`n` generated questions, each varied by the styles (all by default) at their rates (STYLE_RATES unless given)."""
    chosen = styles if styles is not None else tuple(STYLES)
    rates = {**STYLE_RATES, **(rates or {})}
    out = []
    for _ in range(n):
        example = gen.question()
        for name in ORDER:
            if name in chosen and gen.rng.random() < rates[name]:
                example = STYLES[name](example, gen)
                example.styles.append(name)
        out.append(example)
    return out
