"""The shared vocabulary: word classes written once, sets built from them, the one spell-corrector."""

from __future__ import annotations

from collections import Counter

from bot.understanding import vocabulary
from bot.understanding.vocabulary import PRONOUNS, STOP, Speller, word_set


def test_a_set_is_the_union_of_its_classes_and_words():
    assert vocabulary.word_class("articles") <= STOP and vocabulary.word_class("question_words") <= STOP
    assert set(PRONOUNS) <= STOP  # a pronoun is a function word wherever it stands
    assert "please" in word_set("filler_start") and "moviebot" in word_set("filler_start")


def test_no_word_is_written_twice_in_one_class_or_set():
    data = vocabulary._data()
    for name, words in data["classes"].items():
        repeated = [w for w, n in Counter(words.split()).items() if n > 1]
        assert repeated == [], f"class {name}: {repeated}"
    for name, entries in data["sets"].items():
        written = [e for e in entries if not e.startswith(("@", "#"))]
        classes = set().union(*(data["classes"][e[1:]].split() for e in entries if e.startswith("@")))
        assert [w for w, n in Counter(written).items() if n > 1] == [], name
        assert sorted(set(written) & classes) == [], f"set {name} repeats words of its own classes"


def test_every_word_class_is_read_somewhere():
    data = vocabulary._data()
    used = {e[1:] for entries in data["sets"].values() for e in entries if e.startswith("@")}
    used |= {w[1:] for phrase in _strings(data.get("referring", {})) for w in phrase.split() if w.startswith("@")}  # "that @person_nouns"
    source = "".join(p.read_text(encoding="utf-8") for p in vocabulary.Path(vocabulary.__file__).parent.rglob("*.py"))
    unread = [name for name in data["classes"] if name not in used and f'"{name}"' not in source]
    assert unread == []


def test_the_speller_corrects_one_slip_and_keeps_the_first_letter():
    speller = Speller(["longest", "directed", "other", "recommendations"])
    assert speller("lonest") == "longest" and speller("directd") == "directed"
    assert Speller(["direct", "directed"])("directd") == "directed"  # of words as close, the longer
    assert speller("bother") == "bother"  # not "other": typos rarely change the first letter
    assert speller("heat") == "heat"  # shorter than five letters: never corrected
    assert speller("recomendatoins") == "recommendations"  # two slips in a long word


def test_number_words_are_numbers():
    assert vocabulary.NUMBER_WORDS["two"] == 2 and vocabulary.NUMBER_WORDS["ten"] == 10


def _strings(value) -> list[str]:
    """Every string inside nested tables and lists of vocabulary.toml."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_a_short_slip_is_corrected_only_into_a_cue_it_drops_a_letter_of():
    """"wrot" is "wrote" with a letter dropped; "heat" is an ordinary word (no slip of "heart"); "dirs" drops no letter of a cue."""
    from bot.understanding.vocabulary import Speller

    speller = Speller(["wrote", "heart", "directed"], short_targets=["wrote", "heart"], ordinary=frozenset({"heat"}))
    assert speller("wrot") == "wrote"
    assert speller("heat") == "heat"
    assert speller("dirs") == "dirs"
