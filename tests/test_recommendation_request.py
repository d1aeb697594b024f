"""The recommendation request reader's parts on small inputs (no knowledge graph): scopes of negations and seen cues,
counts, negated quantities, catalogue names, the request cues; and the dialogue's state helpers."""

from __future__ import annotations

import re

from bot.core.contracts import Constraint, RecommendationRequest
from bot.core.text import tokens
from bot.dialogue.recommendations import PICK, RecommendationState, _replaced
from bot.understanding.quantities import Quantity
from bot.understanding.recommendation_words import TOO_LONG, catalogue_keys, cue_pattern, flipped, is_catalogue, reaches, requested_count, segments

CUES = re.compile(cue_pattern(), re.I)


def reach_of(text: str, names: list[str]):
    """The reach of the first token of each name (names given as they are written in `text`)."""
    toks = tokens(text)
    spans = []
    for name in names:
        start = text.index(name)
        spans.append([k for k, (_, s, e) in enumerate(toks) if start <= s and e <= start + len(name)])
    covered = {k for span in spans for k in span}
    reach = reaches(text, toks, covered)
    return [reach[span[0]] for span in spans]


def test_a_negation_reaches_every_name_of_a_list_after_it():
    first, second = reach_of("a western please, one that is not by Ann Lee or Bo Carr", ["Ann Lee", "Bo Carr"])
    assert first.negated and second.negated


def test_a_negation_stops_at_new_content_words():
    (name,) = reach_of("a comedy that is not too long and stars Ann Lee", ["Ann Lee"])
    assert not name.negated


def test_a_contrast_word_starts_a_segment_a_negation_does_not_cross():
    liked, unwanted = reach_of("nothing gory, but something like Night Ferry or not Day Trip", ["Night Ferry", "Day Trip"])
    assert not liked.negated and unwanted.negated


def test_a_question_with_a_contracted_not_negates_nothing():
    (name,) = reach_of("don't you have anything like Night Ferry?", ["Night Ferry"])
    assert not name.negated


def test_a_dislike_said_with_a_contraction_is_a_negation():
    (name,) = reach_of("we didn't enjoy Night Ferry at all", ["Night Ferry"])
    assert name.negated


def test_a_seen_cue_reaches_the_names_after_it():
    first, second = reach_of("my parents have already seen Night Ferry and Day Trip", ["Night Ferry", "Day Trip"])
    assert first.seen and second.seen and not first.negated


def test_a_like_cue_after_a_seen_name_makes_it_liked():
    (name,) = reach_of("we watched Night Ferry on sunday and adored it", ["Night Ferry"])
    assert name.seen and name.liked_after


def test_a_question_about_what_to_see_is_no_seen_cue():
    (name,) = reach_of("what should we see after Night Ferry", ["Night Ferry"])
    assert not name.seen


def test_segments_split_at_sentence_marks_commas_dashes_and_contrast_words():
    text = "Night Ferry was great — what next? nothing long, though"
    toks = tokens(text)
    cut = segments(text, toks)
    words = [t for t, _, _ in toks]
    assert cut[words.index("great")] < cut[words.index("what")] < cut[words.index("nothing")] < cut[words.index("though")]


def test_a_name_is_never_cut_into_segments():
    text = "loved Good Bye, Lenin! so much"
    toks = tokens(text)
    cut = segments(text, toks, protected={1, 2, 3})
    assert cut[1] == cut[2] == cut[3]


def test_a_requested_count_is_read_in_digits_and_words():
    assert requested_count("can you give me 4 more films like it")[0] == 4
    assert requested_count("just one movie for tonight please")[0] == 1
    assert requested_count("a couple of ideas?")[0] == 2
    assert requested_count("anything like it?")[0] == 0


def test_a_number_inside_a_title_is_no_count():
    text = "something like Seven Samurai films"
    at = text.index("Seven Samurai")
    assert requested_count(text, [(at, at + len("Seven Samurai"))])[0] == 0


def test_the_other_one_is_no_count():
    assert requested_count("and the other one?")[0] == 0


def test_a_negated_duration_keeps_the_films_on_the_other_side():
    over = Quantity("duration", ">", 95.0, 0, 10, "over 95 minutes")
    assert (flipped(over).op, flipped(over).value) == ("<=", 95.0)
    before = Quantity("date", "year<=", 1979.0, 0, 10, "before 1980")
    assert (flipped(before).op, flipped(before).value) == ("year>=", 1980.0)


def test_a_catalogue_is_named_by_its_own_words_unless_they_name_something_else():
    taken = {"family", "animation"}
    keys = catalogue_keys([(7, "list of Moonbeam Studio films"), (8, "Family Classics")], lambda key: key in taken)
    assert keys["moonbeam"] == 7 and keys["moonbeam studio"] == 7
    assert "family" not in keys  # a genre's name stays the genre's


def test_a_catalogue_is_a_list_of_films_not_a_story_series():
    assert is_catalogue("list of Moonbeam Studio films") and is_catalogue("Sunrise Feature Films")
    assert not is_catalogue("The Lantern Saga") and not is_catalogue("Peter Quill's Sky film series")


def test_the_request_cues_read_ways_of_asking_for_films():
    for text in ("what else could we put on tonight?", "got anything else like that", "any recs?", "more in the same vein please",
                 "I'm in the mood for a weepy drama", "what would my dad enjoy", "which other ones should I try first"):
        assert CUES.search(text), text


def test_the_request_cues_leave_questions_about_facts_alone():
    for text in ("what else did she direct?", "who directed it", "what is the runtime of it", "which of those is the longest?"):
        assert not CUES.search(text), text


def test_an_ordinal_points_at_a_pick_but_not_inside_a_title():
    assert PICK.search("tell me about the second one").group("ord") == "second"
    assert PICK.search("why the last?").group("ord") == "last"
    assert PICK.search("who directed the first Lantern Saga film?") is None


def test_a_pick_is_found_by_ordinal_number_or_title():
    state = RecommendationState(RecommendationRequest(), picks=[("a", "Night Ferry"), ("b", "Day Trip"), ("c", "Low Tide")])
    assert state.pick("what about the third one") == ("c", "Low Tide")
    assert state.pick("number 2") == ("b", "Day Trip")
    assert state.pick("why Night Ferry?") == ("a", "Night Ferry")
    assert state.pick("why that one?") is None  # three picks: "that one" is not one of them


def test_a_refinement_replaces_the_condition_on_the_same_side_and_keeps_the_others():
    horror = Constraint(("genre",), "in", ("g:horror",), "horror")
    under_two_hours = Constraint(("duration",), "<=", ("120",), "not over two hours")
    comedy = Constraint(("genre",), "in", ("g:comedy",), "comedy")
    under_ninety = Constraint(("duration",), "<=", ("90",), "not over 90 minutes")
    kept = _replaced([horror, under_two_hours], [comedy, under_ninety])
    assert kept == [comedy, under_ninety]
    not_horror = Constraint(("genre",), "not_in", ("g:horror",), "not horror")
    assert _replaced([horror, under_two_hours], [not_horror]) == [under_two_hours, not_horror]


def test_too_long_is_read_however_the_not_is_written():
    for text in ("a drama that isn't too long", "nothing too long please", "not super long, ok?", "none of them too lengthy"):
        assert TOO_LONG.search(text), text
    assert not TOO_LONG.search("a long film is fine, not too short")
