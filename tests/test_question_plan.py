"""The question plan on a small KG: clauses, namesakes, derived relations, a person's main role, names the graph
lacks, compositions over the conversation's films ("which of those ...") and plural pronouns."""

from __future__ import annotations

import pytest

from bot.agent import Agent
from bot.core.config import Settings
from bot.core.contracts import Message, Reply
from bot.core.kinds import Kind
from bot.dialogue.dialogue import Dialogue

from conftest import CHEAP_FEATURES

pytestmark = pytest.mark.integration  # builds a small KG and its classifier (the readers' own tests need none)

TTL = r'''
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix t: <http://test.invalid/> .

t:star wdt:P31 wd:Q11424 ; rdfs:label "Star!"@en ; wdt:P57 t:wise ; wdt:P161 t:andrews ; wdt:P577 "1968-07-18"^^xsd:date ;
  wdt:P2047 "176"^^xsd:decimal ; wdt:P136 t:musical .
t:justice wdt:P31 wd:Q11424 ; rdfs:label "...And Justice for All"@en ; wdt:P57 t:jewison ; wdt:P161 t:pacino ;
  wdt:P577 "1979-10-19"^^xsd:date ; wdt:P2047 "119"^^xsd:decimal ; wdt:P136 t:drama ; wdt:P1657 t:r .
t:inside wdt:P31 wd:Q11424 ; rdfs:label "Inside"@en ; wdt:P57 t:jewison ; wdt:P577 "1996-05-01"^^xsd:date ; wdt:P2047 "94"^^xsd:decimal ;
  wdt:P136 t:drama .
t:up wdt:P31 wd:Q11424 ; rdfs:label "Up"@en ; wdt:P57 t:docter ; wdt:P577 "2009-05-29"^^xsd:date ; wdt:P136 t:animation .
t:upbang wdt:P31 wd:Q11424 ; rdfs:label "Up!"@en ; wdt:P57 t:meyer ; wdt:P577 "1976-01-01"^^xsd:date .
t:dune wdt:P31 wd:Q11424 ; rdfs:label "Dune"@en ; wdt:P57 t:lynch ; wdt:P144 t:dunebook ; wdt:P577 "1984-12-14"^^xsd:date ;
  wdt:P2047 "137"^^xsd:decimal ; wdt:P136 t:scifi ; wdt:P1657 t:pg13 .
t:eraser wdt:P31 wd:Q11424 ; rdfs:label "Eraserhead"@en ; wdt:P57 t:lynch ; wdt:P58 t:lynch ; wdt:P577 "1977-03-19"^^xsd:date ;
  wdt:P2047 "89"^^xsd:decimal ; wdt:P136 t:horror .
t:elephant wdt:P31 wd:Q11424 ; rdfs:label "The Elephant Man"@en ; wdt:P57 t:lynch ; wdt:P161 t:hopkins ; wdt:P577 "1980-10-03"^^xsd:date ;
  wdt:P2047 "124"^^xsd:decimal ; wdt:P136 t:drama ; wdt:P1657 t:pg .
t:blue wdt:P31 wd:Q11424 ; rdfs:label "Blue Velvet"@en ; wdt:P57 t:lynch ; wdt:P58 t:lynch ; wdt:P161 t:hopper ; wdt:P577 "1986-09-19"^^xsd:date ;
  wdt:P2047 "120"^^xsd:decimal ; wdt:P136 t:drama ; wdt:P1657 t:r .
t:sorcerers wdt:P31 wd:Q11424 ; rdfs:label "Paper Castles"@en ; wdt:P162 t:lynch ; wdt:P57 t:wise ; wdt:P577 "1990-01-01"^^xsd:date ;
  wdt:P2047 "200"^^xsd:decimal ; wdt:P136 t:musical .
t:hal78 wdt:P31 wd:Q11424 ; rdfs:label "Halloween"@en ; wdt:P57 t:carpenter ; wdt:P161 t:pleasence ; wdt:P577 "1978-10-25"^^xsd:date .
t:hal07 wdt:P31 wd:Q11424 ; rdfs:label "Halloween"@en ; wdt:P57 t:zombie ; wdt:P161 t:mcdowell ; wdt:P577 "2007-08-31"^^xsd:date .
t:heat wdt:P31 wd:Q11424 ; rdfs:label "Heat"@en ; wdt:P57 t:mann ; wdt:P58 t:mann ; wdt:P161 t:pacino, t:deniro ; wdt:P86 t:goldenthal ;
  wdt:P577 "1995-12-15"^^xsd:date ; wdt:P2047 "170"^^xsd:decimal ; wdt:P136 t:crime .
t:ronin wdt:P31 wd:Q11424 ; rdfs:label "Ronin"@en ; wdt:P57 t:frankenheimer ; wdt:P161 t:deniro ; wdt:P577 "1998-09-25"^^xsd:date ;
  wdt:P2047 "122"^^xsd:decimal ; wdt:P136 t:crime .
t:godfather wdt:P31 wd:Q11424 ; rdfs:label "The Godfather Part II"@en ; wdt:P57 t:coppola ; wdt:P161 t:pacino, t:deniro ;
  wdt:P577 "1974-12-20"^^xsd:date ; wdt:P2047 "202"^^xsd:decimal ; wdt:P136 t:crime .
t:firstclass wdt:P31 wd:Q11424 ; rdfs:label "X-Men: First Class"@en ; wdt:P57 t:vaughn ; wdt:P577 "2011-06-03"^^xsd:date .
t:dunebook wdt:P31 wd:Q8261 ; rdfs:label "Dune"@en ; wdt:P50 t:herbert ; wdt:P136 t:scifi .
t:hal78 wdt:P179 t:halseries . t:hal07 wdt:P179 t:halseries .
t:halseries wdt:P31 wd:Q24856 ; rdfs:label "Halloween"@en .
t:aliens wdt:P31 wd:Q11424 ; rdfs:label "Aliens"@en ; wdt:P57 t:cameron ; wdt:P577 "1986-07-18"^^xsd:date ; wdt:P179 t:alienseries .
t:alien3 wdt:P31 wd:Q11424 ; rdfs:label "Alien 3"@en ; wdt:P57 t:fincher ; wdt:P577 "1992-05-22"^^xsd:date ; wdt:P179 t:alienseries .
t:alien4 wdt:P31 wd:Q11424 ; rdfs:label "Alien Resurrection"@en ; wdt:P57 t:jeunet ; wdt:P577 "1997-11-26"^^xsd:date .
t:alienseries wdt:P31 wd:Q24856 ; rdfs:label "Alien"@en .
t:inside2 wdt:P31 wd:Q11424 ; rdfs:label "Inside 2"@en ; wdt:P57 t:fincher ; wdt:P577 "2001-01-01"^^xsd:date .
t:heat wdt:P2142 "187436818"^^xsd:decimal . t:ronin wdt:P2142 "70692101"^^xsd:decimal . t:ronin wdt:P86 t:shorter .
t:shorter wdt:P31 wd:Q5 ; rdfs:label "Clinton Shorter"@en .
t:up wdt:P179 t:pixarlist . t:pixarlist wdt:P31 wd:Q24856 ; rdfs:label "list of Pixar films"@en .
t:prisoner wdt:P31 wd:Q11424 ; rdfs:label "The Spanish Prisoner"@en ; wdt:P57 t:mamet ; wdt:P58 t:mamet ; wdt:P577 "1997-09-08"^^xsd:date .
t:heist wdt:P31 wd:Q11424 ; rdfs:label "Heist"@en ; wdt:P57 t:mamet ; wdt:P58 t:mamet ; wdt:P577 "2001-11-09"^^xsd:date .
t:untouchables wdt:P31 wd:Q11424 ; rdfs:label "The Untouchables"@en ; wdt:P57 t:depalma ; wdt:P58 t:mamet ; wdt:P577 "1987-06-03"^^xsd:date .
t:depalma wdt:P31 wd:Q5 ; rdfs:label "Brian De Palma"@en .
t:mamet wdt:P31 wd:Q5 ; rdfs:label "David Mamet"@en .
t:rock wdt:P31 wd:Q11424 ; rdfs:label "School of Rock"@en ; wdt:P57 t:linklater ; wdt:P161 t:jackblack ; wdt:P577 "2003-10-03"^^xsd:date .
t:swan wdt:P31 wd:Q11424 ; rdfs:label "Black Swan"@en ; wdt:P57 t:aronofsky ; wdt:P577 "2010-12-03"^^xsd:date .
t:jackblack wdt:P31 wd:Q5 ; rdfs:label "Jack Black"@en .
t:linklater wdt:P31 wd:Q5 ; rdfs:label "Richard Linklater"@en .
t:aronofsky wdt:P31 wd:Q5 ; rdfs:label "Darren Aronofsky"@en .
t:cameron wdt:P31 wd:Q5 ; rdfs:label "James Cameron"@en .
t:fincher wdt:P31 wd:Q5 ; rdfs:label "David Fincher"@en .
t:sally wdt:P31 wd:Q11424 ; rdfs:label "When Harry Met Sally..."@en ; wdt:P57 t:reiner . t:reiner wdt:P31 wd:Q5 ; rdfs:label "Rob Reiner"@en .
t:jeunet wdt:P31 wd:Q5 ; rdfs:label "Jean-Pierre Jeunet"@en .
t:eraser skos:altLabel "Eraser Head"@en . t:blue skos:altLabel "Velours bleu"@en .
t:wise wdt:P31 wd:Q5 ; rdfs:label "Robert Wise"@en .
t:vaughn wdt:P31 wd:Q5 ; rdfs:label "Matthew Vaughn"@en .
t:weathers wdt:P31 wd:Q5 ; rdfs:label "Carl Weathers"@en .
t:andrews wdt:P31 wd:Q5 ; rdfs:label "Julie Andrews"@en .
t:jewison wdt:P31 wd:Q5 ; rdfs:label "Norman Jewison"@en .
t:pacino wdt:P31 wd:Q5 ; rdfs:label "Al Pacino"@en .
t:deniro wdt:P31 wd:Q5 ; rdfs:label "Robert De Niro"@en .
t:docter wdt:P31 wd:Q5 ; rdfs:label "Pete Docter"@en .
t:meyer wdt:P31 wd:Q5 ; rdfs:label "Russ Meyer"@en .
t:lynch wdt:P31 wd:Q5 ; rdfs:label "David Lynch"@en .
t:hopkins wdt:P31 wd:Q5 ; rdfs:label "Anthony Hopkins"@en .
t:hopper wdt:P31 wd:Q5 ; rdfs:label "Dennis Hopper"@en .
t:herbert wdt:P31 wd:Q5 ; rdfs:label "Frank Herbert"@en .
t:carpenter wdt:P31 wd:Q5 ; rdfs:label "John Carpenter"@en .
t:zombie wdt:P31 wd:Q5 ; rdfs:label "Rob Zombie"@en .
t:pleasence wdt:P31 wd:Q5 ; rdfs:label "Donald Pleasence"@en .
t:mcdowell wdt:P31 wd:Q5 ; rdfs:label "Malcolm McDowell"@en .
t:mann wdt:P31 wd:Q5 ; rdfs:label "Michael Mann"@en .
t:goldenthal wdt:P31 wd:Q5 ; rdfs:label "Elliot Goldenthal"@en .
t:frankenheimer wdt:P31 wd:Q5 ; rdfs:label "John Frankenheimer"@en .
t:coppola wdt:P31 wd:Q5 ; rdfs:label "Francis Ford Coppola"@en .
t:musical wdt:P31 wd:Q201658 ; rdfs:label "musical film"@en .
t:drama wdt:P31 wd:Q201658 ; rdfs:label "drama film"@en .
t:animation wdt:P31 wd:Q201658 ; rdfs:label "animated film"@en .
t:scifi wdt:P31 wd:Q201658 ; rdfs:label "science fiction film"@en .
t:horror wdt:P31 wd:Q201658 ; rdfs:label "horror film"@en .
t:crime wdt:P31 wd:Q201658 ; rdfs:label "crime film"@en .
t:r wdt:P31 wd:Q23660208 ; rdfs:label "R"@en .
t:pg13 wdt:P31 wd:Q23660208 ; rdfs:label "PG-13"@en .
t:pg wdt:P31 wd:Q23660208 ; rdfs:label "PG"@en .
t:heat wdt:P166 t:bestpicture . t:godfather wdt:P166 t:bestpicture . t:ronin wdt:P166 t:cesar .
t:bestpicture wdt:P31 wd:Q618779 ; rdfs:label "Academy Award for Best Picture"@en .
t:cesar wdt:P31 wd:Q618779 ; rdfs:label "César Award for Best Film"@en .
t:parasite wdt:P31 wd:Q11424 ; rdfs:label "Parasite"@en ; wdt:P58 t:hanjinwon ; wdt:P577 "2019-05-30"^^xsd:date .
t:hanjinwon wdt:P31 wd:Q5 ; rdfs:label "Han Jin-won"@en .
t:cameo wdt:P31 wd:Q11424 ; rdfs:label "Cameo"@en ; wdt:P57 t:vaughn ; wdt:P161 t:wise, t:weathers .
t:rollerball wdt:P31 wd:Q11424 ; rdfs:label "Rollerball"@en ; wdt:P57 t:wise ; wdt:P161 t:caan .
t:caan wdt:P31 wd:Q5 ; rdfs:label "James Caan"@en .
t:fog wdt:P31 wd:Q11424 ; rdfs:label "The Fog"@en ; wdt:P57 t:carpenter ; wdt:P577 "1980-02-08"^^xsd:date ; wdt:P2047 "89"^^xsd:decimal .
'''

TOML = '''
[bundle]
name = "plan"
graph = ["graph.ttl"]

[prefixes]
wd = "http://www.wikidata.org/entity/"
wdt = "http://www.wikidata.org/prop/direct/"

[schema]
label = "rdfs:label"
type = "wdt:P31"
aliases = ["http://www.w3.org/2004/02/skos/core#altLabel"]

[classes]
film = ["wd:Q11424"]
person = ["wd:Q5"]
genre = ["wd:Q201658"]
work = ["wd:Q8261"]
rating = ["wd:Q23660208"]
series = ["wd:Q24856"]
award = ["wd:Q618779"]

[relations.director]
property = "wdt:P57"
value_class = "person"

[relations.screenwriter]
property = "wdt:P58"
value_class = "person"

[relations.cast_member]
property = "wdt:P161"
value_class = "person"

[relations.composer]
property = "wdt:P86"
value_class = "person"

[relations.producer]
property = "wdt:P162"
value_class = "person"

[relations.genre]
property = "wdt:P136"
value_class = "genre"

[relations.publication_date]
property = "wdt:P577"
kind = "date"

[relations.duration]
property = "wdt:P2047"
kind = "number"

[relations.box_office]
property = "wdt:P2142"
kind = "number"

[relations.mpaa_rating]
property = "wdt:P1657"
value_class = "rating"

[relations.based_on]
property = "wdt:P144"
value_class = "work"

[relations.part_of_the_series]
property = "wdt:P179"
value_class = "series"

[relations.source_author]
via = ["wdt:P144"]
property = "wdt:P50"
value_class = "person"

[relations.award_received]
property = "wdt:P166"
value_class = "award"
noun = "award"
plural = "awards"
'''


@pytest.fixture(scope="module")
def agent(tmp_path_factory, cache_dir) -> Agent:
    folder = tmp_path_factory.mktemp("plan")
    (folder / "graph.ttl").write_text(TTL, encoding="utf-8")
    (folder / "bundle.toml").write_text(TOML, encoding="utf-8")
    return Agent.from_settings(Settings(kg=str(folder), cache_dir=str(cache_dir), features=CHEAP_FEATURES))


@pytest.fixture
def chat(agent):
    dialogue = Dialogue(agent)

    def say(text: str) -> Reply:
        return dialogue.reply(Message("room", "ann", text))

    return say


# --- clauses -------------------------------------------------------------------------------


def test_a_title_ending_in_an_exclamation_mark_keeps_the_question_after_it(agent):
    reply = agent.answer("When was Star! released?")
    assert reply.answers == ["18 July 1968"]


def test_a_title_starting_with_dots_is_read_whole(agent):
    reply = agent.answer("Who directed ...And Justice for All?")
    assert reply.answers == ["Norman Jewison"]


def test_a_question_after_a_title_mark_is_a_question_of_its_own(agent):
    reply = agent.answer("who directed Star!? and who directed Inside?")
    assert reply.answers == ["Robert Wise", "Norman Jewison"]


def test_a_polite_closing_does_not_swallow_an_elliptic_question_before_it(agent):
    reply = agent.answer("who directed Heat? and Ronin? thank you")
    assert reply.answers == ["Michael Mann", "John Frankenheimer"]


def test_a_greeting_before_a_yes_no_question_keeps_it_a_yes_no_question(agent):
    reply = agent.answer("hello bot, did Michael Mann direct Heat?")
    assert reply.text.startswith("Yes")


def test_the_fronted_films_of_a_person_are_the_topic_and_the_question_word_at_the_end_asks(agent):
    reply = agent.answer("the movies written by David Lynch were released in which years")
    assert set(reply.answers) == {"19 March 1977", "19 September 1986"}


def test_a_question_word_ending_the_clause_asks_for_the_author_of_the_source_work(agent):
    reply = agent.answer("Dune is adapted from whose novel?")
    assert reply.answers == ["Frank Herbert"]


def test_a_weak_cue_asks_for_the_director_and_does_not_speak_against_a_precise_one(agent):
    assert agent.answer("who is behind Ronin").answers == ["John Frankenheimer"]
    assert agent.answer("who were the producers behind Paper Castles?").answers == ["David Lynch"]


def test_a_word_of_a_title_is_no_comparison_cue(agent):
    reply = agent.answer("When were Ronin and X-Men: First Class released?")
    assert set(reply.answers) == {"25 September 1998", "3 June 2011"}


def test_a_superlative_with_a_name_the_graph_lacks_is_not_widened_to_the_whole_graph(agent):
    reply = agent.answer("Which is Kubrick's earliest film?")
    assert not reply.answers
    assert "Kubrick" in reply.text


def test_a_fronted_title_is_the_subject_of_the_question_after_it(agent):
    reply = agent.answer("The movie Inside, when was it released?")
    assert reply.answers == ["1 May 1996"]
    assert "not sure" not in reply.text


# --- namesakes -------------------------------------------------------------------------------


def test_namesakes_are_told_apart_by_the_exact_spelling(chat):
    assert chat("Who directed Up?").answers == ["Pete Docter"]
    assert chat("Who directed Up!?").answers == ["Russ Meyer"]


def test_a_film_chosen_by_its_year_never_falls_back_to_a_namesake(agent):
    reply = agent.answer("What genre is Up from 1976?")
    assert "Up!" in reply.text  # Up (2009)'s genre is not Up!'s: no stored fact of Up answers (a labelled prediction may)
    assert all(f.subject != "http://test.invalid/up" and (f.source != "kg" or f.value != "http://test.invalid/animation") for f in reply.facts)
    assert all(f.source != "kg" for f in reply.facts)  # at most a labelled prediction


def test_a_wikidata_style_genre_label_is_also_its_plain_plural(agent):
    assert set(agent.answer("dramas from the 80s").answers) == {"Blue Velvet", "The Elephant Man"}


def test_a_namesake_is_chosen_by_a_person_named_with_it(chat):
    assert chat("When was the Halloween with Donald Pleasence released?").answers == ["25 October 1978"]
    assert chat("Who directed the Halloween with Malcolm McDowell?").answers == ["Rob Zombie"]


# --- relations through other nodes, roles ---------------------------------------------------------------


def test_the_author_of_a_films_source_work_is_reached_through_the_work(agent):
    assert agent.answer("Who wrote the novel that Dune is based on?").answers == ["Frank Herbert"]
    assert agent.answer("Which films are based on works by Frank Herbert?").answers == ["Dune"]


def test_which_novel_asks_for_the_work_not_its_author(agent):
    assert agent.answer("Which novel is Dune adapted from?").answers == ["Dune"]


def test_a_persons_films_go_through_the_role_most_of_them_have(agent):
    reply = agent.answer("What genres are the films of David Lynch?")
    assert "musical film" not in reply.answers  # the one film he produced
    assert {"drama film", "horror film", "science fiction film"} == set(reply.answers)


def test_a_possessive_superlative_ranks_the_films_of_the_persons_main_role(agent):
    reply = agent.answer("What is David Lynch's longest film?")
    assert reply.answers == ["Dune"]  # not Paper Castles, which he produced


# --- names the graph lacks, misspellings, cue words ---------------------------------------------------------


def test_a_name_the_graph_lacks_is_reported_not_skipped(agent):
    reply = agent.answer("did David Lynch direct the fourth zorblax quintet movie?")
    assert reply.answers == [] and "zorblax quintet" in reply.text


def test_a_misspelt_title_between_question_words_is_found(agent):
    reply = agent.answer("Is Eraserhaed older than Blue Velvet?")
    assert reply.text.startswith("Yes") and "Eraserhead" in reply.text


def test_a_rating_letter_before_rated_is_a_condition(agent):
    reply = agent.answer("R-rated dramas?")
    assert set(reply.answers) == {"...And Justice for All", "Blue Velvet"}


def test_cue_words_are_read_as_written_before_spelling_is_tried(agent):
    assert agent.understander.understand("show me what David Lynch looks like").kind == Kind.MULTIMEDIA


# --- the conversation's films ------------------------------------------------------------------


def test_which_of_those_ranks_the_films_of_the_previous_answer(chat):
    listed = chat("Which films did David Lynch direct?")
    assert set(listed.answers) == {"Dune", "Eraserhead", "The Elephant Man", "Blue Velvet"}
    assert chat("Which of those is the longest?").answers == ["Dune"]


def test_which_one_compares_the_films_the_last_turns_were_about(chat):
    chat("Who directed Heat?")
    chat("And Ronin?")
    assert chat("Which one is longer?").answers == ["Heat"]


def test_which_of_them_filters_the_previous_answer(chat):
    chat("Which films did David Lynch direct?")
    assert set(chat("And which of them came out after 1980?").answers) == {"Dune", "Blue Velvet"}


def test_other_films_together_leave_out_the_film_already_discussed(chat):
    chat("Who starred in Heat?")
    reply = chat("Did Al Pacino and Robert De Niro make any other films together?")
    assert reply.answers == ["The Godfather Part II"]


def test_those_with_no_earlier_list_is_asked_back_not_answered_over_all_films(chat):
    reply = chat("Which of those is the longest?")
    assert reply.answers == [] and "Which films do you mean" in reply.text


def test_those_after_a_list_of_people_says_it_ranks_films_only(chat):
    chat("Who starred in Heat?")
    reply = chat("Which of them is the oldest?")
    assert reply.answers == [] and "not a list of films" in reply.text


def test_they_names_the_previous_answers(chat):
    chat("Who starred in The Godfather Part II?")
    reply = chat("Did they also act in Ronin?")
    assert reply.text.startswith("No") or reply.text.startswith("Yes")
    assert "Robert De Niro" in reply.text


# --- series and aliases ---------------------------------------------------------------------


def test_an_ordinal_and_a_series_name_pick_the_film_by_release_order(agent):
    assert agent.answer("Who directed the first Halloween film?").answers == ["John Carpenter"]
    assert agent.answer("who directed the second halloween movie").answers == ["Rob Zombie"]
    assert agent.answer("Who directed the latest Halloween film?").answers == ["Rob Zombie"]


def test_an_ordinal_past_the_films_the_graph_has_is_not_guessed(agent):
    reply = agent.answer("Who directed the third Halloween film?")
    assert reply.answers == [] and "third" in reply.text and "2" in reply.text


def test_an_ordinal_is_not_answered_when_films_titled_like_the_series_but_left_out_of_it_would_change_the_pick(agent):
    assert agent.answer("Who directed the first Alien film?").answers == ["James Cameron"]  # Alien Resurrection is later
    reply = agent.answer("Who directed the latest Alien film?")  # the series ends with Alien 3; Alien Resurrection is newer
    assert reply.answers == [] and "Alien Resurrection" in reply.text


def test_an_ordinal_before_a_title_that_names_no_series_takes_the_film_numbered_so(agent):
    assert agent.answer("who directed the second Inside movie").answers == ["David Fincher"]
    assert agent.answer("who directed the first Inside movie").answers == ["Norman Jewison"]
    reply = agent.answer("who directed the latest Inside movie")
    assert reply.answers == [] and "latest" in reply.text


def test_an_alias_links_like_a_label_and_the_reply_shows_the_label(agent):
    reply = agent.answer("Who directed Velours bleu?")
    assert reply.answers == ["David Lynch"] and "Blue Velvet" in reply.text and "Velours" not in reply.text


# --- follow-ups that need the previous turn --------------------------------------------------------------


def test_that_director_is_the_person_just_answered(chat):
    assert chat("who directed Eraserhead?").answers == ["David Lynch"]
    assert "Blue Velvet" in chat("what other movies did that director make?").answers


def test_a_singular_they_is_the_one_person_just_answered(chat):
    assert chat("who wrote Eraserhead?").answers == ["David Lynch"]
    assert chat("what else did they write?").answers == ["Blue Velvet"]


def test_a_correction_after_a_name_not_found_asks_the_question_again_about_the_new_name(chat):
    assert chat("who directed The Glass Harbour?").answers == []
    assert chat("sorry, i meant Ronin").answers == ["John Frankenheimer"]


def test_name_them_after_a_count_lists_what_was_counted(chat):
    assert "4" in chat("how many films did David Lynch direct?").text
    assert set(chat("name them").answers) == {"Dune", "Eraserhead", "The Elephant Man", "Blue Velvet"}


def test_any_with_a_person_narrows_the_films_just_listed(chat):
    assert len(chat("which films star Robert De Niro?").answers) == 3
    assert set(chat("any with Al Pacino?").answers) == {"Heat", "The Godfather Part II"}


def test_a_challenge_is_answered_from_the_graph_and_says_whether_the_user_is_right(chat):
    assert chat("who directed Heat?").answers == ["Michael Mann"]
    disputed = chat("are you sure? wasn't it John Frankenheimer?")
    assert disputed.text.startswith("No") and disputed.answers == ["Michael Mann"]
    confirmed = chat("wasn't it Michael Mann?")
    assert confirmed.text.startswith("Yes") and confirmed.answers == ["Michael Mann"]


def test_small_talk_near_a_name_by_spelling_only_stays_small_talk(agent):
    assert agent.answer("what's the weather like today?").kind == Kind.DECLINE


def test_a_genre_after_a_praising_word_is_the_genre_asked_for(agent):
    reply = agent.answer("any good dramas?")
    assert reply.kind == Kind.RECOMMENDATION
    assert reply.answers and set(reply.answers) <= {"...And Justice for All", "Inside", "The Elephant Man", "Blue Velvet"}


def test_film_before_a_relation_noun_makes_a_compound_that_is_asked_for(agent):
    assert agent.answer("what film genre is Heat").answers == ["crime film"]


def test_films_ending_a_statement_after_a_verb_are_the_answer(agent):
    assert agent.answer("the screenwriter of Eraserhead also wrote movies").answers == ["Blue Velvet"]


def test_the_relation_named_before_of_and_a_name_is_the_first_step_from_it(agent):
    reply = agent.answer("who starred in films for the director of Eraserhead")
    assert set(reply.answers) == {"Anthony Hopkins", "Dennis Hopper"}


# --- what the compositional queries cost -------------------------------------------------


def _sparql(reply: Reply) -> str:
    return next(t for t in reply.trace if t.stage == "retrieve").detail["sparql"]


def test_a_condition_on_a_relation_only_films_have_needs_no_class_test_but_one_a_novel_has_keeps_it(agent):
    assert "director" in agent.kg.labels.film_only and "genre" not in agent.kg.labels.film_only  # the novel Dune has a genre
    lynch = agent.answer("how many films did David Lynch direct?")
    assert "4" in lynch.text and "P31" not in _sparql(lynch)
    scifi = agent.answer("how many science fiction films are there?")
    assert "1 film" in scifi.text and "P31" in _sparql(scifi)  # the film Dune, not the novel


def test_many_matches_list_the_same_best_known_films_whether_fetched_or_checked_in_batches(agent, monkeypatch):
    """Past ALL_MATCHES, the graph's best known films are checked against the conditions in batches instead; sparse
    matches are fetched, and past MANY_MATCHES the first RANKED in IRI order are ranked (all of them on this small KG)."""
    from bot.answering import compose

    questions = ["drama films", "films from the 70s", "how many crime films are there?", "films longer than 2 hours"]
    fetched = [agent.answer(q).text for q in questions]
    monkeypatch.setattr(compose, "ALL_MATCHES", 1)
    monkeypatch.setattr(compose, "FAME_BATCH", 1)  # batches of 1, 4, 16 films
    checked = [agent.answer(q) for q in questions]
    assert [r.text for r in checked] == fetched
    assert ["VALUES ?film {" in _sparql(r) for r in checked] == [True, True, False, True]  # the lists; a count shows its COUNT
    monkeypatch.setattr(compose, "FAME_CHECKS", 1)  # matches too sparse to find among the best known: fetched and ranked
    assert [agent.answer(q).text for q in questions] == fetched
    monkeypatch.setattr(compose, "MANY_MATCHES", 1)  # too many to fetch: the first RANKED in IRI order are ranked
    assert [agent.answer(q).text for q in questions] == fetched


# --- words that belong to another part of the question ----------------------------------------


def test_a_role_word_beside_two_names_belongs_to_the_one_who_has_that_role(agent):
    """"starred in for David Lynch": Lynch never acted, Dennis Hopper did; Lynch's films are those he directed."""
    reply = agent.answer("films Dennis Hopper starred in for David Lynch")
    assert reply.answers == ["Blue Velvet"]


def test_a_role_word_the_only_name_lacks_is_still_read_as_asked(agent):
    reply = agent.answer("which films did David Lynch star in")
    assert not reply.answers


def test_films_from_a_year_are_that_years_films(agent):
    assert agent.answer("Norman Jewison films from 1979").answers == ["...And Justice for All"]
    assert set(agent.answer("Norman Jewison films from 1979 onwards").answers) == {"...And Justice for All", "Inside"}


def test_which_other_films_after_a_fronted_path_asks_for_the_films(agent):
    reply = agent.answer("the director of Eraserhead also made which other films")
    assert set(reply.answers) == {"Dune", "The Elephant Man", "Blue Velvet"}


def test_a_year_a_chain_from_a_person_cannot_use_is_not_dropped(agent):
    """Answering for all of Lynch's films would answer another question than the one about his 1980 film."""
    reply = agent.answer("who starred in the film that David Lynch directed in 1980")
    assert not reply.answers and "1980" in reply.text


def test_a_word_several_relations_share_names_the_one_the_film_has(agent):
    """"wrote" may be the screenplay or the score: Eraserhead has a screenwriter and no composer."""
    reply = agent.answer("Who wrote and directed Eraserhead?")
    assert reply.answers == ["David Lynch", "David Lynch"] and "written" in reply.text


def test_a_word_several_relations_share_names_first_the_one_whose_own_cue_it_is(agent):
    """Heat has a screenwriter and a composer: "wrote" alone is the screenwriter's ("who wrote the music" borrows it)."""
    reply = agent.answer("Who wrote and directed Heat?")
    assert reply.answers == ["Michael Mann", "Michael Mann"] and "written" in reply.text, reply.text


def test_a_title_that_opens_the_evidence_after_yes_keeps_its_capital(agent):
    reply = agent.answer("Is The Godfather Part II longer than 3 hours?")
    assert reply.text.startswith("Yes — The Godfather Part II "), reply.text


def test_with_before_someone_who_never_acted_means_the_roles_they_have(agent):
    reply = agent.answer("which films did Al Pacino make with Norman Jewison")
    assert reply.answers == ["...And Justice for All"]


def test_a_lowercase_surname_that_is_also_a_common_word_is_no_name_beside_capitalised_ones(agent):
    reply = agent.answer("is Blue Velvet in black and white")
    assert "Jack Black" not in reply.text and not reply.answers
    assert agent.answer("is jack black in school of rock").text.startswith("Yes")  # typed as a name, all lower case


def test_the_highest_grossing_film_is_the_one_with_the_largest_box_office(agent):
    reply = agent.answer("what's the highest grossing film")
    assert reply.answers == ["Heat"] and "highest-grossing film" in reply.text


def test_a_follow_up_that_names_nothing_asks_about_the_film_just_discussed(chat):
    chat("who starred in Heat?")
    assert chat("and who composed the music?").answers == ["Elliot Goldenthal"]


def test_the_first_one_after_a_list_is_the_earliest_of_the_films_just_listed(chat):
    chat("which films did David Lynch direct?")
    reply = chat("when was the first one released?")
    assert len(reply.answers) == 1 and reply.text.startswith("Eraserhead") and "1977" in reply.text, reply.text
    chat("which films did David Lynch direct?")
    assert chat("who starred in the last one?").answers == ["Dennis Hopper"]  # Blue Velvet, the latest


def test_a_decimal_point_in_a_number_ends_no_question(agent):
    assert agent.answer("David Lynch films longer than 2.1 hours").answers == ["Dune"]


def test_one_capitalised_word_the_graph_lacks_is_a_name_not_found(agent):
    reply = agent.answer("Did David Lynch direct The Hobbit?")
    assert not reply.answers and '"The Hobbit"' in reply.text
    assert agent.answer("when was Heat released, Sir").answers == ["15 December 1995"]  # someone addressed, no name


def test_a_lowercase_word_that_is_also_a_surname_yields_to_the_quantity_around_it(agent):
    """"shorter than 100 minutes" says nothing of the composer Clinton Shorter."""
    assert agent.answer("David Lynch films shorter than 100 minutes").answers == ["Eraserhead"]


def test_a_chain_through_two_relations_keeps_the_questions_own_person_among_its_answers(agent):
    """Lynch wrote two of the films he directed: "who wrote the films David Lynch directed" names him."""
    assert agent.answer("who wrote the films David Lynch directed").answers == ["David Lynch"]
    assert "Al Pacino" not in agent.answer("who starred with Al Pacino").answers  # back through the same relation: not him


def test_a_title_with_a_year_no_film_of_that_name_has_is_not_answered_about_another_year(agent):
    reply = agent.answer("who directed Ronin 1975")  # the graph's Ronin is from 1998
    assert not reply.answers and "Ronin (1975)" in reply.text
    assert agent.answer("who directed Ronin (1998)").answers == ["John Frankenheimer"]
    assert agent.answer("who directed the 1997 Ronin").answers == ["John Frankenheimer"]  # a year off: a premiere, say


def test_a_count_comparison_says_who_has_more(agent):
    reply = agent.answer("Did David Lynch direct more films than Norman Jewison?")
    assert reply.text.startswith("Yes — David Lynch has more ("), reply.text


def test_what_are_the_films_of_a_series_the_graph_lacks_is_not_the_series_of_a_film(agent):
    reply = agent.answer("What are the films of the Up series?")
    assert "Pixar" not in reply.text and not reply.answers, reply.text


def test_the_films_of_someone_who_directed_and_wrote_as_many_are_those_they_directed(agent):
    reply = agent.answer("what are the films of Michael Mann")
    assert reply.trace[0].detail["chain"] == "director-" and reply.answers == ["Heat"]


def test_which_of_those_are_longer_than_a_duration_filters_the_films_just_listed(chat):
    chat("which films did David Lynch direct?")
    reply = chat("which of those are longer than two hours?")
    assert set(reply.answers) == {"Dune", "The Elephant Man"}, reply.text


def test_the_films_of_someone_who_wrote_more_than_they_directed_but_directed_some_are_those_they_directed(agent):
    """Mamet wrote four films here and directed two: "his movies" are the ones he directed, as people mean it."""
    assert set(agent.answer("David Mamet's movies").answers) == {"The Spanish Prisoner", "Heist"}


# --- what two names have in common, and a film left out ------------------------------------------


def test_who_acted_in_both_of_two_films_is_the_cast_they_share(agent):
    """Each film's own cast would answer another question (and read as if everyone were in both)."""
    reply = agent.answer("who acted in both Heat and Ronin?")
    assert reply.answers == ["Robert De Niro"] and "in common" in reply.text, reply.text
    reply = agent.answer("which actors are in both Ronin and ...And Justice for All")
    assert not reply.answers and "no cast member in common" in reply.text, reply.text


def test_whether_two_films_have_the_same_director_is_a_yes_or_no_with_the_directors(agent):
    reply = agent.answer("were Dune and Blue Velvet directed by the same person?")
    assert reply.text.startswith("Yes — ") and "David Lynch" in reply.text, reply.text
    reply = agent.answer("do Heat and Ronin have the same director?")
    assert reply.text.startswith("No — ") and "Michael Mann" in reply.text and "John Frankenheimer" in reply.text, reply.text


def test_what_the_films_of_two_people_both_have_is_what_their_answers_share(agent):
    """Mann's film has Pacino and De Niro, Frankenheimer's only De Niro: the union would name Pacino too."""
    reply = agent.answer("which actors appeared in films by both Michael Mann and John Frankenheimer?")
    assert reply.answers == ["Robert De Niro"], reply.text


def test_a_film_said_to_be_left_out_is_left_out_of_the_films_asked_for(agent):
    assert set(agent.answer("which films did Al Pacino star in besides Heat").answers) == {"The Godfather Part II", "...And Justice for All"}
    reply = agent.answer("crime films with Robert De Niro other than Heat")
    assert set(reply.answers) == {"The Godfather Part II", "Ronin"} and reply.text.rstrip(".").count("other than Heat"), reply.text
    assert not agent.answer("which films other than Heat?").answers  # no set named to take them from
    assert agent.answer("which films did Robert De Niro star in besides Heat and Ronin").answers == ["The Godfather Part II"]


def test_an_oscar_category_said_alone_is_the_academy_award(agent):
    """"best picture" is how people name the Oscar; "won" is the verb, not the surname of Han Jin-won."""
    reply = agent.answer("which films won best picture")
    assert set(reply.answers) == {"Heat", "The Godfather Part II"}, reply.text
    assert agent.answer("which films won best picture in the 1990s").answers == ["Heat"]
    assert agent.answer("best picture winners of the 1990s").answers == ["Heat"]  # an award's winners are films


def test_an_ordinal_before_a_title_counts_the_films_of_its_series_or_its_numbered_sequels(agent):
    """"the second Halloween" cannot be the first film called Halloween; "the 2nd Inside" is Inside 2."""
    assert agent.answer("who directed the second Halloween").answers == ["Rob Zombie"]
    assert agent.answer("who directed the 2nd Inside").answers == ["David Fincher"]


def test_whether_two_people_ever_worked_together_is_a_yes_with_their_films_or_a_no(agent):
    """Not each one's co-workers listed side by side, which answers another question."""
    reply = agent.answer("did Al Pacino and Norman Jewison ever work together?")
    assert reply.answers == ["...And Justice for All"] and reply.text.startswith("Yes — "), reply.text
    reply = agent.answer("did David Lynch and Al Pacino make a film together?")
    assert not reply.answers and reply.text.startswith("No — "), reply.text


def test_how_many_of_them_counts_the_films_just_listed_that_meet_the_condition(chat):
    chat("which films did David Lynch direct?")
    assert chat("how many of them star Dennis Hopper?").answers == ["1"]


def test_and_the_other_superlative_asks_the_same_question_of_the_same_films(chat):
    chat("which films did David Lynch direct?")
    assert chat("which of those is the longest?").answers == ["Dune"]
    assert chat("and the oldest?").answers == ["Eraserhead"]  # of Lynch's films, not the graph's oldest (Star!)


def test_a_listed_film_without_the_value_compared_is_said_and_no_superlative_claimed(chat):
    chat("which films did John Carpenter direct?")
    reply = chat("which of those is the longest?")
    assert "only The Fog has" in reply.text and "no duration for Halloween" in reply.text, reply.text


def test_a_not_before_the_role_words_excludes_the_person(agent):
    reply = agent.answer("films not directed by David Lynch starring Al Pacino")
    assert reply.answers and "...And Justice for All" in reply.answers, reply.text  # Pacino, never in a Lynch film
    assert set(agent.answer("crime films not starring Al Pacino").answers) == {"Ronin"}


def test_a_not_the_reading_cannot_use_is_not_dropped(agent):
    """"which films did Lynch not direct" read without its "not" lists the films he did direct: the opposite."""
    reply = agent.answer("which films did David Lynch not direct")
    assert not reply.answers and '"not"' in reply.text, reply.text
    assert agent.answer("didn't David Lynch direct Dune?").text.startswith("Yes")  # an opening "didn't" asks yes or no


def test_an_unknown_word_after_a_title_typed_in_lower_case_names_another_film(agent):
    reply = agent.answer("who directed blue velvet returns")
    assert not reply.answers and '"blue velvet returns"' in reply.text, reply.text
    assert agent.answer("who directed blue velvet").answers == ["David Lynch"]


def test_answers_with_names_set_aside_are_not_said_to_be_all_of_them(agent):
    reply = agent.answer("who starred in Heat besides Al Pacino")
    assert reply.answers == ["Robert De Niro"] and reply.text.startswith("Besides Al Pacino, ") and " has " not in reply.text, reply.text
    reply = agent.answer("who directed Heat besides Michael Mann")
    assert not reply.answers and "no directors of Heat besides Michael Mann" in reply.text, reply.text


def test_the_counted_role_is_the_questions_not_the_named_persons(agent):
    """Wise acted once (Cameo, with Carl Weathers): "appears" counts the cast of the films he directed, it does not
    make his films the one he acted in."""
    answers = agent.answer("which actor appears most in Robert Wise films").answers
    assert "Julie Andrews" in answers and "Carl Weathers" not in answers, answers


def test_a_person_beside_the_films_compared_is_context_not_a_name_to_find(agent):
    reply = agent.answer("Which film did David Lynch direct first, Dune or Blue Velvet?")
    assert reply.answers == ["Dune"], reply.text


def test_a_value_said_with_not_is_a_condition_the_films_fail(agent):
    reply = agent.answer("David Lynch films that are not drama")
    assert set(reply.answers) == {"Dune", "Eraserhead"} and "not in the genre" in reply.text, reply.text


def test_a_question_beside_a_composition_is_answered_or_said_not_dropped(agent):
    reply = agent.answer("how many awards did Heat win and who directed it")
    assert "Michael Mann" in reply.answers and "1" in reply.answers, reply.text
    reply = agent.answer("how many films did David Lynch direct and who composed its music?")
    assert reply.answers[:1] == ["4"] and 'not sure what "who composed its music" asks' in reply.text, reply.text


def test_a_pronoun_after_a_composition_stands_for_its_answer(agent):
    reply = agent.answer("which of David Lynch's films is the longest and who directed it?")
    assert reply.answers == ["Dune", "David Lynch"], reply.text
    reply = agent.answer("which is longer, Heat or Ronin, and who composed its music?")
    assert reply.answers == ["Heat", "Elliot Goldenthal"], reply.text


def test_which_of_them_was_also_in_a_film_after_a_cast_is_the_cast_both_share(chat):
    chat("who starred in Heat?")
    assert chat("which of them was also in Ronin?").answers == ["Robert De Niro"]


def test_which_of_those_after_a_list_cut_short_filters_every_film_it_was_cut_from(chat, monkeypatch):
    """A list shows the best known films of a larger set: "those" are all of them, not only the ones shown."""
    import bot.answering.compose as compose

    monkeypatch.setattr(compose, "SHOWN", 1)
    first = chat("crime films")
    assert len(first.answers) == 1 and "3 in all" in first.text, first.text
    reply = chat("which of those are from the 90s?")
    assert "2 in all" in reply.text and reply.answers and set(reply.answers) <= {"Heat", "Ronin"}, reply.text  # Heat and Ronin


def test_both_in_a_yes_no_question_about_each_one_is_not_read_as_what_they_share(agent):
    """Each was released in the 80s, each is a director: "No, nothing in common" would answer another question."""
    for question in ("were both Dune and Blue Velvet released in the 80s?", "are David Lynch and Norman Jewison both directors?"):
        reply = agent.answer(question)
        assert not reply.text.startswith("No — "), (question, reply.text)


def test_the_most_recent_film_of_a_series_is_its_latest(agent):
    """Not the first film the series' name also titles: "the most recent Halloween" is the 2007 one."""
    assert agent.answer("who directed the most recent Halloween film").answers == ["Rob Zombie"]
    assert agent.answer("who directed the earliest Halloween film").answers == ["John Carpenter"]


# --- questions that once crashed ----------------------------------------------------------------


def test_a_recommendation_asking_for_other_films_is_answered_not_crashed(chat):
    """A course user's question: 'other' once became a condition on the conversation's films that reached the
    query builder unresolved (KeyError 'not_earlier')."""
    reply = chat("I'm a fan of musical and drama movies like Jumanji. What other films would you recommend?")
    assert reply.kind == Kind.RECOMMENDATION and not reply.error, reply.text
    assert "went wrong" not in reply.text


def test_a_recommendation_saying_those_is_answered_not_crashed(chat):
    """'the kids have seen all of those' once became a condition on the films listed earlier (KeyError 'earlier')."""
    reply = chat("can you recommend an animated film that isn't Pixar? the kids have seen all of those")
    assert reply.kind == Kind.RECOMMENDATION and not reply.error, reply.text
    assert "went wrong" not in reply.text


# --- overviews ---------------------------------------------------------------------------------


def test_an_overview_of_a_film_says_its_year_director_genre_cast_and_running_time(agent):
    reply = agent.answer("tell me about Heat")
    assert reply.text.startswith("Heat (1995) was directed by Michael Mann."), reply.text
    assert "crime film" in reply.text and "Al Pacino" in reply.text and "170 minutes" in reply.text
    assert {f.value for f in reply.facts} >= {"http://test.invalid/mann", "http://test.invalid/pacino"}


def test_an_overview_of_a_person_counts_their_films_per_role(agent):
    reply = agent.answer("What do you know about David Lynch?")
    assert reply.text.startswith("In my knowledge graph, David Lynch is the director of 4 films, the screenwriter of 2 films"), reply.text


def test_a_question_beside_an_overview_is_answered_too(agent):
    reply = agent.answer("Tell me about Ronin. Who composed its music?")
    assert "John Frankenheimer" in reply.text and "Clinton Shorter" in reply.text, reply.text


def test_whether_a_film_won_any_awards_is_answered_with_its_awards(agent):
    """"Did X win any awards" asks which ones: a bare "yes" hides them; a specific award is still a yes or no."""
    assert agent.answer("did Heat win any awards?").answers == ["Academy Award for Best Picture"]
    assert agent.answer("has Ronin won anything").answers == ["César Award for Best Film"]
    assert agent.answer("did Eraserhead win any awards").answers == []  # none in the graph: no "no" either
    assert agent.answer("did Heat win an Oscar?").answers == ["yes"]



def test_an_ordinal_before_a_person_s_films_is_their_place_in_release_order(agent):
    """"Her second film" is neither all her films nor her first; an ordinal before a superlative ranks in its order."""
    assert agent.answer("what was David Lynch's second film?").answers == ["The Elephant Man"]
    assert agent.answer("Lynch's third feature?").answers == ["Dune"]
    assert agent.answer("what was Lynch's sophomore movie").answers == ["The Elephant Man"]
    fifth = agent.answer("David Lynch's fifth film")  # he has four here: no fifth is made up
    assert fifth.answers == [] and "does not have 5 films" in fifth.text, fifth.text


def test_a_person_said_as_the_guy_who_did_something_is_the_one_who_did_it(agent):
    """"the guy who directed X" is X's director however the person is called; a bare "X director" still asks it."""
    assert set(agent.answer("what else did the guy who directed Eraserhead make?").answers) == {"The Elephant Man", "Dune", "Blue Velvet"}
    assert agent.answer("the man who directed Eraserhead").answers == ["David Lynch"]
    assert agent.answer("eraserhead director").answers == ["David Lynch"]


def test_a_story_that_names_a_film_gives_the_next_question_its_topic_and_asks_nothing_itself(agent):
    reply = agent.answer("My sister loved Heat. Who directed it?")
    assert reply.answers == ["Michael Mann"] and "not sure" not in reply.text and "1995" not in reply.text, reply.text


def test_a_recommendation_the_story_tells_of_asks_for_none(agent):
    reply = agent.answer("My friend recommended Heat. Who directed it?")
    assert reply.kind is Kind.FACTUAL and reply.answers == ["Michael Mann"], reply.text


def test_an_alternative_that_names_nothing_leaves_a_yes_no_question(agent):
    for said in ("Did David Lynch direct Eraserhead, or was it someone else?", "did michael mann direct eraserhead or someone else",
                 "Eraserhead was directed by David Lynch, or was it someone else?"):
        reply = agent.answer(said)
        assert reply.answers == (["yes"] if "Lynch" in said else ["no"]) and "David Lynch" in reply.text, (said, reply.text)


def test_a_heading_before_a_colon_asks_nothing_and_a_relation_before_one_still_asks(agent):
    reply = agent.answer("Quiz time: who directed Heat, and what year was it released?")
    assert reply.answers[0] == "Michael Mann" and len(reply.answers) == 2 and "1995" in reply.text and "not sure" not in reply.text, reply.text
    assert agent.answer("Director: Heat?").answers == ["Michael Mann"]


def test_a_title_that_opens_with_a_question_word_is_no_new_question(agent):
    reply = agent.answer("the directors of Heat and When Harry Met Sally... pls")
    assert sorted(reply.answers) == ["Michael Mann", "Rob Reiner"], reply.text


def test_the_other_extreme_after_a_superlative_is_over_the_same_films(chat):
    assert chat("what is David Lynch's longest film?").answers == ["Dune"]
    assert chat("and the shortest one?").answers == ["Eraserhead"]
