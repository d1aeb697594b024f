"""Bad input never crashes the agent, and no input can change the SPARQL that runs."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.errors import TemplateError
from bot.kg.queries import iri

NASTY = st.sampled_from(
    [
        "", " ", "\t\n", "\x00\x01\x1b[31m", "🎬🍿" * 50, "\"'\\}{<>", "} UNION { ?s ?p ?o }", "<script>alert(1)</script>",
        "SELECT * WHERE { ?s ?p ?o }", "Who directed \"Good Will Hunting\"?", "who directed Good Will Hunting\\",
        "x" * 100_000, "who directed " + "a " * 5000, "DROP ALL; INSERT DATA { <a> <b> <c> }", "#", "?", "¿¡",
    ]
)


def assert_friendly(reply):
    assert reply.text and isinstance(reply.text, str)
    assert "Traceback" not in reply.text and "Error" not in reply.text.split(":")[0]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(NASTY, st.text(max_size=300), st.text(alphabet=st.characters(codec="utf-8"), max_size=50)))
def test_any_text_gets_a_friendly_reply(mini_agent, text):
    reply = mini_agent.answer(text)
    assert_friendly(reply)
    assert not reply.error


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prefix=NASTY, suffix=st.text(max_size=40))
def test_nasty_text_around_a_real_question_still_answers_or_explains(mini_agent, prefix, suffix):
    reply = mini_agent.answer(f"{prefix[:200]} who directed Good Will Hunting {suffix}")
    assert_friendly(reply)


def test_titles_with_quotes_backslashes_and_braces_are_answered(mini_agent):
    reply = mini_agent.answer('Who directed Say "Cheese" {Now}?')
    assert reply.answers == ["Back\\Slash O'Neil"]
    reply = mini_agent.answer("What did Back\\Slash O'Neil direct?")
    assert reply.answers == ['Say "Cheese" {Now}']


def test_queries_contain_only_iris_never_user_text(mini_agent):
    hostile = 'Good Will Hunting" } ; DROP ALL ; { "'
    reply = mini_agent.answer(f"who directed {hostile}")
    queries = [t.detail.get("sparql", "") for t in reply.trace]
    queries = [q for query in queries for q in (query if isinstance(query, list) else [query])]  # one per ask
    for query in queries:
        assert "DROP" not in query and hostile not in query
        # every angle-bracketed term is an IRI the bundle or the KG provided
        for term in re.findall(r"<([^>]*)>", query):
            assert term.startswith("http://")
    assert reply.answers == ["Gus Van Sant"]


def test_unsafe_iris_are_refused():
    for bad in ["http://x/a> . ?s ?p ?o . <b", 'http://x/"', "http://x/{y}", "not an iri", "http://x/a b"]:
        try:
            iri(bad)
        except TemplateError:
            continue
        raise AssertionError(f"{bad!r} was accepted")


def test_long_messages_are_refused_politely_and_quoted_back_in_size(mini_agent):
    reply = mini_agent.answer("who directed " + "x" * 5000)
    assert "5,013 characters" in reply.text
    assert reply.kind == "too_long"


def test_unknown_titles_are_named(mini_agent):
    reply = mini_agent.answer("Who directed Zorblax Quux?")
    assert "Zorblax Quux" in reply.text
    assert reply.answers == []
