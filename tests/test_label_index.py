"""The label index keeps its lookups when saved in the compact read-only form and loaded again."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.kg.labels import KeysByLength, LabelIndex, Positions, SortedIds, Strings

keys = st.text(alphabet="abcdé xyz'", min_size=1, max_size=8)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(max_size=6)), st.lists(st.text(max_size=6), max_size=10))
def test_strings_read_and_find_every_string_like_the_list_they_were_made_from(items, probes):
    frozen = pickle.loads(pickle.dumps(Strings(items)))
    assert len(frozen) == len(items) and list(frozen) == items and frozen[:] == items
    assert [frozen[i] for i in range(-len(items), len(items))] == items + items
    assert [frozen[np.int64(i)] for i in range(len(items))] == items  # positions from numpy arrays
    for probe in [*items, *probes]:
        found = frozen.position(probe)
        assert (found >= 0) == (probe in items) == (probe in frozen)
        if found >= 0:
            assert frozen[found] == probe  # one of its places when it is there twice
    assert frozen.position("\ud800") == -1 and frozen.position(None) == -1
    unfindable = pickle.loads(pickle.dumps(Strings(items, findable=False)))
    assert list(unfindable) == items
    with pytest.raises(TypeError):
        unfindable.position("a")


@settings(max_examples=60, deadline=None)
@given(st.lists(keys, unique=True), st.lists(keys, unique=True), st.floats(0, 10), st.floats(0, 12))
def test_keys_by_length_give_every_key_of_a_length_band_once(labels, variants, low, high):
    band = KeysByLength(Strings(labels), variants).band(low, high)
    expected = {key for key in [*labels, *variants] if low <= len(key) <= high}
    assert sorted(band) == sorted(expected)
    assert [len(key) for key in band] == sorted(len(key) for key in band)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(keys, st.lists(st.integers(0, 50), min_size=1, max_size=4, unique=True), max_size=30), st.lists(keys, max_size=10))
def test_sorted_ids_answer_every_lookup_like_the_dict_they_were_made_from(mapping, probes):
    frozen = pickle.loads(pickle.dumps(SortedIds(mapping)))
    assert dict(frozen.items()) == mapping
    assert len(frozen) == len(mapping)
    for probe in [*mapping, *probes]:
        assert (probe in frozen) == (probe in mapping)
        assert frozen.get(probe) == mapping.get(probe)
    assert frozen.get(None) is None and 3 not in frozen


def test_a_saved_and_loaded_index_finds_the_same_entities_by_label_variant_and_iri(tmp_path):
    index = LabelIndex()
    for iri, label, group in [("http://x/a1", "Alien", "film"), ("http://x/a2", "Aliens", "film"), ("http://x/p1", "Ridley Scott", "person"),
                              ("http://x/w1", "Academy Award for Best Picture", "award"), ("http://x/w2", "Academy Honorary Award", "award")]:
        idx = len(index.iris)
        index.iris.append(iri)
        index.labels.append(label)
        index.groups.append(group)
        index.degree.append(idx)
        index.years.append(None)
        index.roles.append(0)
        index.by_iri[iri] = idx
        index.by_norm.setdefault(label.lower(), []).append(idx)
    index.by_norm.setdefault("alien", []).append(1)  # an alias shared by two entities
    index.variants = {"scott": [2]}
    index.save(tmp_path / "labels.pkl")
    loaded = LabelIndex.load(tmp_path / "labels.pkl")

    assert isinstance(loaded.by_norm, SortedIds) and isinstance(loaded.by_iri, Positions)
    assert loaded.by_iri.keys is loaded.iris  # one list of IRIs, not two
    assert loaded.lookup("alien") == [0, 1] and loaded.lookup("aliens") == [1] and loaded.lookup("predator") == []
    assert loaded.lookup_variant("scott") == [2] and loaded.lookup_any("scott") == [2]
    assert loaded.label_of("http://x/p1") == "Ridley Scott" and loaded.label_of("http://x/zz") is None
    assert loaded.info("http://x/a2") == ("Aliens", "film", 1, None)
    assert [key for key, _ in loaded.fuzzy("alein", 80)] == [key for key, _ in index.fuzzy("alein", 80)]
    assert sorted(loaded.starting_with("academy award")) == [3] == sorted(index.starting_with("academy award"))


def test_an_index_whose_iris_are_not_sorted_keeps_its_iri_map(tmp_path):
    index = LabelIndex(iris=["http://x/b", "http://x/a"], labels=["B", "A"], groups=["", ""], degree=[0, 0], years=[None, None],
                       roles=[0, 0], by_norm={"b": [0], "a": [1]}, by_iri={"http://x/b": 0, "http://x/a": 1})
    index.save(tmp_path / "labels.pkl")
    loaded = LabelIndex.load(tmp_path / "labels.pkl")
    assert loaded.by_iri["http://x/a"] == 1 and loaded.label_of("http://x/b") == "B"


def test_a_first_name_names_the_one_well_known_person_who_has_it_and_no_one_else():
    from bot.kg.labels import first_names

    index = LabelIndex()
    people = [("Keanu Reeves", 5), ("Grace Kelly", 6), ("Tom Hanks", 9), ("Milla Jovovich", 4), ("Milla Mare", 3), ("Zoltan Rarely", 1)]
    for label, degree in people:
        index.iris.append(f"http://x/{len(index.iris)}")
        index.labels.append(label)
        index.groups.append("person")
        index.degree.append(degree)
    named = first_names(index)
    assert named == {"keanu": 0}  # "grace" is an ordinary word, "tom" too short, two Millas, Zoltan has one film


def test_titles_are_also_known_by_their_initials_and_without_the_word_before_their_number():
    from bot.kg.variants import genre_variants, title_variants

    assert "lotr" in title_variants("The Lord of the Rings: The Return of the King")
    assert "bttf" in title_variants("Back to the Future")
    assert not {v for v in title_variants("Lord of War") if " " not in v}  # "low" is a word, not initials
    assert "godfather 2" in title_variants("The Godfather Part II")
    assert "romantic comedies" in genre_variants("romantic comedy film")


def test_a_mood_names_a_genre_only_with_its_film_noun():
    """"sad films" are dramas; "I'm sad" is no genre the person asked for."""
    from bot.kg.variants import genre_variants

    assert {"sad films", "tearjerkers"} <= genre_variants("drama")
    assert "sad" not in genre_variants("drama")
