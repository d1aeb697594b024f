"""Recommendations: reading liked films, ranking with MMR, same-title exclusion, themes, explanations."""

from __future__ import annotations

import numpy as np
import pytest

from bot.answering.embeddings.space import EmbeddingSpace
from bot.answering.embeddings.vectors import Embeddings
from bot.answering.recommend import FilmRanker, Shared, reason
from bot.kg.labels import LabelIndex
from bot.kg.queries import iri

pytestmark = pytest.mark.integration

T = "http://test.invalid/"
P57 = "http://www.wikidata.org/prop/direct/P57"


def space_of(films: dict[str, list[float]]) -> EmbeddingSpace:
    index = LabelIndex()
    for i, name in enumerate(films):
        index.iris.append(T + name)
        index.labels.append(name)
        index.groups.append("film")
        index.degree.append(1)
        index.years.append(None)
        index.by_iri[T + name] = i
    vectors = np.array(list(films.values()), np.float32)
    return EmbeddingSpace(Embeddings([T + n for n in films], [P57], vectors, np.zeros((1, vectors.shape[1]), np.float32)), index)


def test_mmr_keeps_a_cluster_of_near_duplicates_from_filling_the_list():
    films = {"liked": [0, 0], "saw 2": [1, 0], "saw 3": [1.01, 0], "saw 4": [1.02, 0], "saw 5": [1.03, 0], "other a": [0, 1.2], "other b": [0, -1.3]}
    ranker = FilmRanker(space_of(films))
    liked = [T + "liked"]
    exclude = {ranker.position[T + "liked"]}
    plain, _ = ranker.rank(liked, exclude, 3, diversity=0.0)
    assert [p.label for p in plain] == ["saw 2", "saw 3", "saw 4"]
    varied, _ = ranker.rank(liked, exclude, 3, diversity=0.5)
    assert varied[0].label == "saw 2"
    assert sum(p.label.startswith("saw") for p in varied) == 1
    assert all(p.iri != T + "liked" for p in varied)


def test_scattered_liked_films_get_a_theme_each_and_share_the_picks():
    rng = np.random.default_rng(1)
    films = {f"filler {i}": list(rng.normal(size=4) * 5) for i in range(120)}
    films |= {"space a": [40, 0, 0, 0], "space b": [40.5, 0, 0, 0], "space c": [41, 0.5, 0, 0]}
    films |= {"west a": [0, 0, 40, 0], "west b": [0, 0, 40.5, 0], "west c": [0, 0.5, 41, 0]}
    ranker = FilmRanker(space_of(films))
    liked = [T + "space a", T + "west a"]
    picks, themes = ranker.rank(liked, {ranker.position[f] for f in liked}, 4, diversity=0.3)
    assert len(themes) == 2
    assert sorted(p.label.split()[0] for p in picks[:4]) == ["space", "space", "west", "west"]

    together, _ = ranker.rank([T + "space a", T + "space b"], {ranker.position[T + "space a"], ranker.position[T + "space b"]}, 1, 0.3)
    assert together[0].label == "space c"
    assert len(ranker.themes([T + "space a", T + "space b"])) == 1


def test_reasons_name_the_shared_neighbours(mini_agent):
    bundle = mini_agent.kg.bundle
    one = reason([Shared("director", T + "gvs", "Gus Van Sant", 3)], "Milk", bundle)
    assert one == "same director as Milk (Gus Van Sant)"
    many = reason(
        [Shared("genre", T + "drama", "drama film", 3), Shared("cast_member", T + "a", "Matt Damon", 1), Shared("cast_member", T + "b", "Ben Affleck", 1)],
        "Good Will Hunting",
        bundle,
    )
    # relations in the bundle's order (cast before genre in the mini bundle), values named
    assert many == "shares two cast members (Ben Affleck and Matt Damon) and the genre drama film with Good Will Hunting"
    tag_echo = reason([Shared("director", T + "gvs", "Gus Van Sant", 3), Shared("genre", T + "g", "gus van sant", 1)], "Milk", bundle)
    assert tag_echo == "same director as Milk (Gus Van Sant)"  # a value that repeats an earlier one is not named twice


def test_recommendation_from_a_list_of_films(mini_agent):
    reply = mini_agent.answer("Given that I like Good Will Hunting, Milk and Elephant, can you recommend some movies?")
    assert reply.kind == "recommendation"
    liked = {"http://test.invalid/gwh", "http://test.invalid/milk", "http://test.invalid/elephant"}
    assert {e.iri for e in reply.entities} >= liked
    assert reply.facts and all(f.source == "embedding" for f in reply.facts)
    assert not liked & {f.subject for f in reply.facts}
    assert all(f.value in liked for f in reply.facts)  # each pick is explained by one of the liked films


def test_explanations_are_backed_by_the_graph(mini_agent):
    reply = mini_agent.answer("Recommend movies similar to Good Will Hunting")
    graph, bundle = mini_agent.kg.graph, mini_agent.kg.bundle
    checked = 0
    for fact in reply.facts:
        assert fact.detail["because"] in reply.text
        for shared in fact.detail["shared"]:
            prop = iri(bundle.relations[shared["relation"]].property)
            for film in (fact.subject, fact.value):
                assert graph.select(f"SELECT ?x WHERE {{ {iri(film)} {prop} {iri(shared['value'])} }}"), (film, shared)
            assert shared["label"] in fact.detail["because"]
            checked += 1
    assert checked > 0  # Elephant and Milk share Gus Van Sant with Good Will Hunting


def test_liked_films_and_their_same_title_remakes_are_not_recommended(mini_agent):
    reply = mini_agent.answer("Recommend something like Hamlet 1948")
    picks = {f.subject for f in reply.facts}
    assert reply.kind == "recommendation" and picks
    assert not picks & {"http://test.invalid/hamlet48", "http://test.invalid/hamlet96"}


def test_unknown_titles_are_named_and_the_rest_used(mini_agent):
    reply = mini_agent.answer("I like Good Will Hunting, Xyzzy Plugh and Milk, what should I watch?")
    assert "I don't have \"Xyzzy Plugh\" in my knowledge graph" in reply.text
    assert reply.facts and {f.value for f in reply.facts} <= {"http://test.invalid/gwh", "http://test.invalid/milk"}


def test_unknown_titles_keep_their_capitalised_wording_words(mini_agent):
    reply = mini_agent.answer("Recommend something like Star Wars and Milk")  # "star" is question wording too
    assert "\"Star Wars\"" in reply.text


def test_a_request_without_films_asks_for_some(mini_agent):
    reply = mini_agent.answer("Can you recommend me something to watch?")
    assert reply.kind == "recommendation" and not reply.facts
    assert "films you like" in reply.text


def test_metaqa_two_films_of_a_director_bring_related_films(metaqa_agent):
    """Directors with >= 4 films: two of their films as likes should bring another film of theirs or of the same genre."""
    from bot.core.contracts import LinkedEntity, Understanding

    kg = metaqa_agent.kg
    director, genre = (iri(kg.bundle.relations[name].property) for name in ("directed_by", "has_genre"))
    rows = kg.graph.select(
        f"SELECT ?d (GROUP_CONCAT(STR(?f); separator=' ') AS ?films) WHERE {{ ?f {director} ?d }} GROUP BY ?d HAVING (COUNT(?f) >= 4) ORDER BY ?d LIMIT 20"
    )
    hits = 0
    for row in rows:
        liked = sorted(row["films"].value.split())[:2]
        entities = [LinkedEntity(kg.labels.label_of(f), f, kg.labels.label_of(f), 100.0, "film") for f in liked]
        facts = metaqa_agent.handlers["recommendation"](Understanding("recommend", "recommendation", entities=entities), None)
        picks = [a.iri for a in facts.answers]
        assert picks and not set(picks) & set(liked)
        related = " ".join(iri(p) for p in picks)
        same = kg.graph.select(
            f"SELECT ?p WHERE {{ VALUES ?p {{ {related} }} {{ ?p {director} {iri(row['d'].value)} }} UNION "
            f"{{ ?p {genre} ?g . {iri(liked[0])} {genre} ?g . {iri(liked[1])} {genre} ?g }} }} LIMIT 1"
        )
        hits += bool(same)
    assert len(rows) == 20 and hits >= 12


def test_films_like_one_but_from_a_decade_are_picked_only_from_that_decade(mini_agent):
    reply = mini_agent.answer("recommend movies like Good Will Hunting but from the 2000s")
    labels = mini_agent.kg.labels
    years = {labels.years[labels.by_iri[f.subject]] for f in reply.facts}
    assert years and all(2000 <= y <= 2009 for y in years), reply.text
    assert "the 2000s" in reply.text.split("\n")[0]


def test_other_films_like_the_one_just_discussed_are_recommended(mini_agent):
    from bot.core.contracts import Message
    from bot.dialogue.dialogue import Dialogue

    dialogue = Dialogue(mini_agent)
    dialogue.reply(Message("room", "ann", "Who directed Milk?"))
    reply = dialogue.reply(Message("room", "ann", "any other films like it?"))
    assert reply.kind == "recommendation" and not reply.error and reply.facts, reply.text
    assert "http://test.invalid/milk" not in {f.subject for f in reply.facts}


def test_films_like_one_but_not_by_a_person_leave_that_persons_films_out(mini_agent):
    """"not by Gus Van Sant" is a condition, not a liked name to leave out: his other films are not picked."""
    reply = mini_agent.answer("recommend movies like Good Will Hunting that are not by Gus Van Sant")
    picked = {f.subject for f in reply.facts}
    assert picked and not picked & {"http://test.invalid/milk", "http://test.invalid/elephant"}, reply.text
    assert "not Gus Van Sant" in reply.text.split("\n")[0] and "left it out" not in reply.text, reply.text


def test_films_like_one_but_not_of_a_genre_are_picked_outside_it(mini_agent):
    reply = mini_agent.answer("recommend movies like Good Will Hunting but not drama")
    picked = {f.subject for f in reply.facts}
    assert picked and not picked & {"http://test.invalid/milk", "http://test.invalid/elephant"}, reply.text


def test_a_dislike_said_with_a_contraction_is_a_condition_and_no_name_to_find(mini_agent):
    reply = mini_agent.answer("I don't like drama, recommend movies like Good Will Hunting")
    picked = {f.subject for f in reply.facts}
    assert picked and not picked & {"http://test.invalid/milk", "http://test.invalid/elephant"}, reply.text
    assert "could not find" not in reply.text, reply.text
