"""The reader: chat spelling, the generated and augmented training text, and the role tagger learned from it."""

from __future__ import annotations

import math
import random

import pytest

from bot.core.text import normalize, tokens
from bot.kg.bundle import load_bundle
from bot.kg.labels import LabelIndex
from bot.understanding.mentions import IndexMentions
from bot.understanding.reader.augment import STYLES, augmented, describe, unforeseen
from bot.understanding.reader.build import exact_names
from bot.understanding.reader.corpus import Example, Film, Generator, KgFacts, Piece, Role
from bot.understanding.reader.descriptions import Described, FilmOption, check, read_description
from bot.understanding.reader.spelling import respell
from bot.understanding.reader.tagger import Features, RoleTagger, Vocabulary, train

FILMS = [
    Film("Heat", 1995, ["Michael Mann"], ["Al Pacino", "Robert De Niro"], ["crime film"]),
    Film("Good Will Hunting", 1997, ["Gus Van Sant"], ["Matt Damon", "Robin Williams"], ["drama film"]),
    Film("Hamlet", 1996, ["Kenneth Branagh"], ["Kenneth Branagh", "Kate Winslet"], ["drama film"]),
    Film("Milk", 2008, ["Gus Van Sant"], ["Sean Penn"], ["drama film"]),
]
PERSONS = sorted({p for f in FILMS for p in f.directors + f.cast})
WORDS = ["harbour", "lantern", "garden", "winter", "violin", "market", "bridge", "candle", "ocean", "castle"]


def label_index(titles: list[str], persons: list[str]) -> LabelIndex:
    index = LabelIndex()
    for group, names in (("film", titles), ("person", persons)):
        for name in names:
            idx = len(index.iris)
            index.iris.append(f"http://test.invalid/{group}/{idx}")
            index.labels.append(name)
            index.groups.append(group)
            index.degree.append(1)
            index.years.append(None)
            index.by_iri[index.iris[-1]] = idx
            index.by_norm.setdefault(normalize(name), []).append(idx)
            index.max_tokens = max(index.max_tokens, len(normalize(name).split()))
    return index


def facts() -> KgFacts:
    return KgFacts.of(FILMS, PERSONS, ["crime film", "drama film"], WORDS)


@pytest.fixture(scope="module")
def generator(mini_bundle) -> Generator:
    return Generator(load_bundle(mini_bundle), facts(), seed=3)


def test_list_markers_end_the_questions_they_number_and_a_year_in_brackets_stays():
    read = respell("1) who directed juno 2) when was it released")
    assert read.text == "; who directed juno ; when was it released" and ("2)", ";") in read.changes
    assert respell("Q1: who directed Heat? Q2: its runtime").text == "; who directed Heat? ; its runtime"
    assert respell("Heat (1995) who directed it").text == "Heat (1995) who directed it"
    assert respell("who directed Ocean's 11? and Ocean's 12?").text == "who directed Ocean's 11? and Ocean's 12?"


def test_chat_spelling_is_read_as_the_words_it_stands_for():
    read = respell("whos in heat n who did the music + how long is it, pls")
    assert read.text == "who's in heat and who did the music and how long is it, please"
    assert ("n", "and") in read.changes and ("pls", "please") in read.changes


def test_a_rating_letter_a_title_typed_as_one_and_a_protected_name_keep_their_spelling():
    assert respell("is it rated r").text == "is it rated r"
    assert respell("an r rated film w keanu").text == "an r rated film with keanu"
    assert respell("Who directed Her?").text == "Who directed Her?"  # capitalised inside a sentence: a title
    text = "who directed ur mum"
    protected = [(text.index("ur mum"), len(text))]  # the caller's exact label "Ur Mum"
    assert respell(text, protected).text == text


def test_a_word_capitalised_at_the_start_of_a_sentence_is_respelled_with_its_capital():
    assert respell("Whos the dir of Heat? Wat year").text == "Who's the director of Heat? What year"


def test_every_generated_word_has_the_role_of_the_piece_it_was_written_in():
    example = Example([Piece("so I watched", Role.CTX), Piece("Heat", Role.NAME, "film", "Heat"), Piece("yesterday.", Role.CTX),
                       Piece("who directed it", Role.ASK), Piece(", the 1995 one", Role.DESC)])
    text, toks, roles = example.roles()
    assert text == "so I watched Heat yesterday. who directed it, the 1995 one"
    assert [t for t, _, _ in toks] == ["so", "i", "watched", "heat", "yesterday", "who", "directed", "it", "the", "1995", "one"]
    assert [r.value for r in roles] == ["ctx"] * 3 + ["name", "ctx"] + ["ask"] * 3 + ["desc"] * 3


def test_a_description_is_true_of_the_film_it_describes(generator):
    for _ in range(60):
        film_text, _, title = generator.fill("film")
        example = Example([Piece("who composed the music for", Role.ASK), Piece(film_text, Role.NAME, "film", title)])
        described = describe(example, generator)
        said = " ".join(p.text for p in described.pieces if p.role is Role.DESC)
        film = generator.facts.by_title[title]
        facts_of_film = [str(film.year), str(film.year)[-2:], *film.directors, *(d.split()[-1] for d in film.directors), *film.cast,
                         *(g.removesuffix(" film") for g in film.genres), "original"]
        assert any(fact in said for fact in facts_of_film), said


def test_an_unforeseen_word_where_the_question_asks_stays_a_question_word(generator):
    for _ in range(30):
        example = unforeseen(Example([Piece("who scored the film", Role.ASK), Piece("Heat", Role.NAME, "film", "Heat")]), generator)
        asked = [p for p in example.pieces if p.role is Role.ASK][0].text.split()
        assert len(asked) == 4 and sum(w in WORDS for w in asked) >= 1


def test_every_style_keeps_names_as_names_and_adds_no_empty_piece(generator):
    for name in STYLES:
        for example in augmented(generator, 20, (name,)):
            assert all(p.text.strip() for p in example.pieces)
            text, toks, roles = example.roles()
            assert toks and len(roles) == len(toks)
            names = [p for p in example.pieces if p.role is Role.NAME]
            for piece in names:  # a name's words are named, whatever the style did around them
                start = text.find(piece.text)
                assert start >= 0
                assert all(r is Role.NAME for (_, s, _), r in zip(toks, roles) if start <= s < start + len(piece.text))


@pytest.mark.integration
def test_the_tagger_learns_a_word_s_role_from_where_it_stands(generator, tmp_path):
    """Trained on a few thousand generated messages, the tagger labels words it never saw by their place: a story's words
    are context, a word where the question asks is question, a typed title is a name."""
    index = label_index([f.title for f in FILMS], PERSONS)
    wording = frozenset("who what when which how directed composed music wrote film films movie the of in for is was did".split())
    vocabulary = Vocabulary(frozenset("directed composed music wrote score".split()), wording, frozenset("the of in for is was a".split()),
                            frozenset("tell please thanks".split()), frozenset({"film", "movie", "films"}), frozenset({"longer", "most"}))
    names_of = exact_names(IndexMentions(index, wording), wording)
    features = Features(vocabulary)
    path = tmp_path / "reader.crfsuite"
    train(augmented(generator, 6000), features, names_of, path)
    tagger = RoleTagger(path, features)

    def roles(text: str) -> dict[str, Role]:
        toks = tokens(text)
        return {t: r for (t, _, _), r in zip(toks, tagger.tag(text, toks, names_of(text, toks)).roles)}

    story = roles("my grandmother knitted a scarf for me. who composed the music for Heat?")
    assert all(story[w] is Role.CTX for w in ("grandmother", "knitted", "scarf"))
    assert story["composed"] is Role.ASK and story["heat"] is Role.NAME
    asked = roles("who frobnicated Milk?")
    assert asked["frobnicated"] is Role.ASK


def test_the_tagger_s_features_see_the_vocabularies_and_the_label_index():
    vocabulary = Vocabulary(frozenset({"directed"}), frozenset({"who", "directed"}), frozenset({"the"}), frozenset({"please"}),
                            frozenset({"film"}), frozenset({"longest"}))
    text = "who directed the film Heat, please?"
    toks = tokens(text)
    rows = Features(vocabulary)(text, toks, ["", "", "", "", "B", ""])
    assert "f=wh" in rows[0] and "f=cue" in rows[1] and "f=stop" in rows[2] and "f=film" in rows[3]
    assert "name=B" in rows[4] and "before_comma" in rows[4] and "f=generic" in rows[5] and "sent_asks=True" in rows[5]
    unknown = Features(vocabulary)("blorp", tokens("blorp"), [""])
    assert "f=unknown" in unknown[0]


def test_random_generation_is_reproducible_by_seed(mini_bundle):
    bundle = load_bundle(mini_bundle)
    first = [e.text for e in augmented(Generator(bundle, facts(), seed=5), 30)]
    second = [e.text for e in augmented(Generator(bundle, facts(), seed=5), 30)]
    assert first == second
    assert len(set(first)) > 20


def test_a_description_s_years_people_and_order_are_read_from_its_words():
    text = "who scored the original Candyman from '92 with Tony Todd"
    toks = tokens(text)
    positions = frozenset(range(3, len(toks))) - {4}  # "the original" ... "from 92 with tony todd", not the title
    people = [(len(toks) - 2, len(toks), "http://x/todd", "Tony Todd")]
    described = read_description(text, toks, positions, people, [])
    assert described.years == (1992,) and described.people == (("http://x/todd", "Tony Todd"),) and described.order == "original"
    assert described.film_described("Candyman") == "Candyman (1992) with Tony Todd"


def test_a_description_picks_the_namesake_it_fits_and_fits_none_when_it_describes_another_film():
    films = [FilmOption("http://x/c92", "Candyman", 1992), FilmOption("http://x/c21", "Candyman", 2021)]
    cast = {"http://x/todd": {"http://x/c92", "http://x/c21"}, "http://x/dacosta": {"http://x/c21"}}

    def linked(film_iris, person):
        return frozenset(f for f in film_iris if f in cast.get(person, ()))

    def described(**said) -> list[str]:
        fields = {"years": (), "people": (), "genres": (), "order": ""} | said
        return [f.iri for f in check(Described(frozenset(), **fields), films, linked, lambda film: frozenset()).fits]

    assert described(people=(("http://x/dacosta", "Nia DaCosta"),)) == ["http://x/c21"]
    assert described(people=(("http://x/todd", "Tony Todd"),)) == ["http://x/c92", "http://x/c21"]  # both: not told apart
    assert described(years=(1993,)) == ["http://x/c92"]  # a year off: a premiere, say
    assert described(years=(1975,)) == []
    assert described(order="original") == ["http://x/c92"]
    assert described(people=(("http://x/dacosta", "Nia DaCosta"),), years=(1992,)) == []


@pytest.fixture(scope="module")
def demo_agent(cache_dir):
    from bot.agent import Agent
    from bot.core.config import Settings
    from bot.resources import demo_kg

    return Agent.from_settings(Settings(kg=str(demo_kg()), cache_dir=str(cache_dir), features=()))


@pytest.mark.integration
def test_a_description_beside_a_title_chooses_confirms_or_refuses_the_film(demo_agent):
    assert demo_agent.answer("who wrote Candyman, the DaCosta one").answers == ["Jordan Peele", "Nia DaCosta", "Win Rosenfeld"]
    assert demo_agent.answer("who directed the candyman w tony todd from 92").answers == ["Bernard Rose"]
    assert demo_agent.answer("When did Edward Berger's All Quiet on the Western Front come out?").answers  # confirmed: no namesake
    refused = demo_agent.answer("who directed the 1971 candyman")
    assert not refused.answers and "Candyman (1971)" in refused.text


@pytest.mark.integration
def test_a_story_around_a_question_is_context_and_chat_spelling_is_read(demo_agent):
    story = demo_agent.answer("My sister and I spent the whole afternoon knitting scarves. Anyway, who directed Candyman 2021?")
    assert story.answers == ["Nia DaCosta"]
    terse = demo_agent.answer("whos in candyman 2021 n who wrote it")
    assert "Nia DaCosta" in terse.answers and any(a in terse.answers for a in ("Yahya Abdul-Mateen II", "Teyonah Parris"))


@pytest.mark.integration
def test_a_second_question_about_the_same_film_needs_no_name_and_may_name_its_relation_in_any_words(demo_agent):
    """"... and what's its running time?": the relation its words name, however the classifier ranks the wording; "... and
    who did the music?": the film of the first question, though "music" is also a name in the graph."""
    assert demo_agent.answer("Who composed the music for Jaws, and what's its running time?").answers == ["John Williams", "124"]
    assert demo_agent.answer("how long is Heat? and who did the music?").answers == ["170", "Elliot Goldenthal"]


@pytest.mark.integration
def test_an_overview_is_of_the_film_a_description_picks(demo_agent):
    assert "Nia DaCosta" in demo_agent.answer("give me an overview of Candyman, the DaCosta one").text
    assert "Bernard Rose" in demo_agent.answer("what do you know about the 1992 Candyman?").text
    assert "Nia DaCosta" in demo_agent.answer("overview of Candyman please, the DaCosta one").text  # "please" between
    assert demo_agent.answer("who directed halloween 78").answers == ["John Carpenter"]  # two digits after a title: its year
    assert not demo_agent.answer("who directed halloween 85").answers  # no Halloween of 1985: said, not another one


@pytest.mark.integration
def test_names_people_type_read_as_the_films_and_people_they_mean(demo_agent):
    """A number after a name several films share is their order ("lotr 3"), a well-known first name its person, a person
    whose only role is the source books their films, and a title typed in lower case is still a name the reading must use."""
    assert demo_agent.answer("how long is lotr 3").answers == ["201"]
    assert "Meryl Streep" in demo_agent.answer("anything with meryl?").answers
    assert "The Shining" in demo_agent.answer("stephen king films please").answers
    checked = demo_agent.answer("did spielberg direct alien")
    assert checked.answers == ["no"] and "Ridley Scott" in checked.text


@pytest.mark.integration
def test_the_words_around_a_person_s_films_need_no_exact_phrasing(demo_agent):
    """A filmography "as a <role>", a body of work, a "directorial debut", a description by surname before a title, and a
    yes/no question that names a film is no request for an overview of it."""
    assert "Skyfall" in demo_agent.answer("give me Roger Deakins's filmography as a cinematographer").answers
    assert "Toy Story" in demo_agent.answer("walk me through tom hanks's oeuvre").answers
    assert demo_agent.answer("What was Jordan Peele's directorial debut?").answers == ["Get Out"]
    assert "Macbeth (1971)" in demo_agent.answer("what is the running time of the Polanski Macbeth").text
    assert demo_agent.answer("is heat ok for a date night?").answers == []


def test_the_trust_threshold_is_the_lowest_whose_held_out_readings_are_right_often_enough(tmp_path):
    from bot.understanding.reader.trust import FEATURES, TrustModel, fit

    def row(probability: float, right: bool) -> tuple[dict[str, float], bool]:
        features = dict.fromkeys(FEATURES, 0.0) | {"log_probability": math.log(probability), "unknown": 1.0}
        return features, right

    rng = random.Random(4)
    # the likelier the classifier, the likelier the reading is right: sure readings right 99 % of the time, unsure 40 %
    rows = [row(p, rng.random() < (0.99 if p > 0.6 else 0.4)) for p in (rng.uniform(0.01, 1.0) for _ in range(2000))]
    model, curve = fit(rows, precision=0.97)
    sure, unsure = rows[0][0] | {"log_probability": math.log(0.9)}, rows[0][0] | {"log_probability": math.log(0.1)}
    assert model.trusts(sure) and not model.trusts(unsure)
    assert curve[0][1] < curve[-1][1]  # precision rises with the threshold
    model.save(tmp_path / "trust.json")
    assert TrustModel.load(tmp_path / "trust.json").probability(sure) == pytest.approx(model.probability(sure))


def test_a_reading_that_leaves_no_word_unknown_needs_no_trust():
    from bot.understanding.constructions.fact import Candidate
    from bot.understanding.lexicon import Explanation
    from bot.understanding.scoring import LearnedScorer

    class Never:
        def trusts(self, features):
            return False

    scorer = LearnedScorer(Never(), lambda candidate: {})
    known = Candidate(None, None, "director+", 0.5, 0.0)
    unknown = Candidate(None, None, "director+", 0.5, 0.0, Explanation(unknown=("lensed",)))
    assert scorer.trusted(known) and not scorer.trusted(unknown)


@pytest.mark.integration
def test_the_demo_kg_s_trust_model_answers_sure_readings_and_refuses_an_unknown_verb(demo_agent):
    assert 0.0 < demo_agent.understander.scorer.trust.threshold <= 1.0
    assert not demo_agent.answer("who frobnicated Candyman 2021?").answers  # an unknown verb where the relation is asked
    assert demo_agent.answer("who actually directed Candyman 2021?").answers == ["Nia DaCosta"]


def test_a_tagger_trained_without_descriptions_never_tags_one(generator, tmp_path):
    """A model trained on styles that never describe a film knows no description role: it tags without failing."""
    index = label_index([f.title for f in FILMS], PERSONS)
    wording = frozenset("who what when which how directed composed music wrote film the of in is was did".split())
    vocabulary = Vocabulary(frozenset("directed composed music wrote".split()), wording, frozenset("the of in is was a".split()),
                            frozenset({"please"}), frozenset({"film", "movie"}), frozenset({"longer"}))
    names_of = exact_names(IndexMentions(index, wording), wording)
    features = Features(vocabulary)
    examples = augmented(generator, 300, ("polite",))
    assert not any(p.role is Role.DESC for e in examples for p in e.pieces)
    train(examples, features, names_of, tmp_path / "reader.crfsuite")
    text = "who directed Heat, the 1995 one?"
    toks = tokens(text)
    tagged = RoleTagger(tmp_path / "reader.crfsuite", features).tag(text, toks, names_of(text, toks))
    assert Role.DESC not in tagged.roles and all(m[Role.DESC] == 0.0 for m in tagged.marginals)


@pytest.mark.integration
def test_a_bare_surname_is_the_best_known_person_of_that_name_unless_the_words_say_otherwise(demo_agent):
    """"Nolan" asked what films he makes is Christopher Nolan (not the actress Jeanette Nolan, whose films the cast
    chain would find); "films starring Nolan" asks for the actress, the one who stars."""
    assert "Christopher Nolan" in demo_agent.answer("what kind of films does Nolan make").text
    assert "Jeanette Nolan" in demo_agent.answer("films starring Nolan").text


@pytest.mark.integration
def test_the_noun_after_which_names_the_values_a_most_counts(demo_agent):
    """"Which story was adapted the most" counts source works, not the actors or authors "play" and "adapted" could also
    cue, nor the people who worked on those films most often."""
    assert demo_agent.answer("what Shakespeare story got adapted into the most movies").answers == ["Macbeth"]
    assert "source work of the most films" in demo_agent.answer("which book has been adapted most often").text
