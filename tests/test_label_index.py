"""The label index keeps its lookups when saved in the compact read-only form and loaded again."""

from __future__ import annotations

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.kg.labels import LabelIndex, SortedIds, SortedPositions

keys = st.text(alphabet="abcdé xyz'", min_size=1, max_size=8)


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

    assert isinstance(loaded.by_norm, SortedIds) and isinstance(loaded.by_iri, SortedPositions)
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
