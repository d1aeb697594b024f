"""SPARQL queries typed into the chat: recognised, checked, run read-only within limits, and explained when empty.

The first part needs no knowledge graph (recognising, checking, wording, the rate limit); the
tests marked integration run queries in worker processes on the demo KG and on a small graph
in the course layout, imported as `moviebot import atai` does.
"""

from __future__ import annotations

import socket
import string
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_atai_import import FILMS, PEOPLE, SERIES, write_course_layout
from test_remote_endpoint import endpoint  # noqa: F401 - the oxigraph server fixture

from bot.agent import Agent, Timer
from bot.answering.sparql import LocalRunner, RateLimiter, SparqlAnswerer, reachable_from_outside
from bot.core.config import Settings, load_settings
from bot.core.contracts import Message
from bot.core.kinds import Kind
from bot.dialogue.dialogue import Dialogue
from bot.generation.tables import Shown, compact, select_text, triples_text
from bot.kg.graph import open_kg
from bot.kg.importers.atai import import_atai
from bot.kg.store import Node
from bot.resources import demo_kg
from bot.understanding.sparql_message import QueryRefused, check_query, rewritten, sparql_message

COURSE_QUERY = """PREFIX ddis: <http://ddis.ch/atai/>
PREFIX wd: <http://www.wikidata.org/entity/>
PREFIX wdt: <http://www.wikidata.org/prop/direct/>
PREFIX schema: <http://schema.org/>
SELECT ?directorLabel ?directorItem WHERE {
  ?movieItem rdfs:label "The Bridge on the River Kwai".
  ?movieItem wdt:P57 ?directorItem.
  ?directorItem rdfs:label ?directorLabel.
}"""
BEST_RATED = """PREFIX ddis: <http://ddis.ch/atai/>
SELECT ?lbl WHERE {
  ?movie ddis:rating ?rating .
  ?movie rdfs:label ?lbl .
}
ORDER BY DESC(?rating)
LIMIT 1"""
COUNTRY_AND_AWARD = """SELECT ?country ?award WHERE {
  ?movie rdfs:label "Salt and Iron"@en ; wdt:P495 ?c ; wdt:P166 ?a .
  ?c rdfs:label ?country .
  ?a rdfs:label ?award .
}"""
CROSS_PRODUCT = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n2 ?o }"  # 10^11 rows on 170 triples
MB = "http://moviebot.invalid/entity/"
WD = "http://www.wikidata.org/entity/"


def check(text: str, prefixes: dict | None = None):
    message = sparql_message(text)
    assert message is not None, text
    return check_query(message, prefixes)


def refusal(text: str) -> QueryRefused:
    with pytest.raises(QueryRefused) as caught:
        check(text)
    return caught.value


# ---------------------------------------------------------------------------------------- recognising


def test_the_course_query_is_recognised_as_a_select_query():
    message = sparql_message(COURSE_QUERY)
    assert message is not None and message.form == "SELECT" and message.query == COURSE_QUERY


@pytest.mark.parametrize("wrapped", [
    f"```sparql\n{COURSE_QUERY}\n```",
    f"Could you run this one?\n```\n{COURSE_QUERY}\n```\nThanks!",
    f'"{COURSE_QUERY}"',
    f"\u201c{COURSE_QUERY}\u201d",
    f"`{COURSE_QUERY}`",
    f'"""{COURSE_QUERY}"""',
])
def test_queries_pasted_in_code_fences_or_quotes_are_unwrapped(wrapped):
    message = sparql_message(wrapped)
    assert message is not None and message.query == COURSE_QUERY


@pytest.mark.parametrize("query, form", [
    ("select ?x where { ?x ?p ?o }", "SELECT"),
    ("SELECT DISTINCT ?x { ?x ?p ?o }", "SELECT"),
    ("SELECT * WHERE { ?s ?p ?o }", "SELECT"),
    ("ASK { ?s ?p ?o }", "ASK"),
    ("ASK WHERE { ?s ?p ?o }", "ASK"),
    ("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", "CONSTRUCT"),
    ("DESCRIBE wd:Q188718", "DESCRIBE"),
    ("# my query\nBASE <http://example.org/>\nSELECT ?x WHERE { ?x ?p ?o }", "SELECT"),
])
def test_every_query_form_is_recognised(query, form):
    message = sparql_message(query)
    assert message is not None and message.form == form


@pytest.mark.parametrize("question", [
    "Describe The Matrix", "Select a film for me", "Ask me anything", "Construct a watchlist with horror films",
    "drop all the films with Nicolas Cage", "Create a list of films by Wes Anderson", "Load more films please",
    "Who directed The Bridge on the River Kwai?", "What is the rating of Salt and Iron?", "select the best film of 1999",
    "Copy that, and who wrote it?", "With whom did Matt Damon star in Good Will Hunting?", "",
])
def test_questions_that_begin_with_a_query_keyword_stay_questions(question):
    assert sparql_message(question) is None


# ---------------------------------------------------------------------------------------- checking


@pytest.mark.parametrize("update", [
    "INSERT DATA { <http://a.example/s> <http://a.example/p> 1 }",
    "DELETE WHERE { ?s ?p ?o }",
    "PREFIX wd: <http://www.wikidata.org/entity/>\nDELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
    "LOAD <http://example.org/data.ttl>",
    "CLEAR ALL", "drop all", "DROP SILENT GRAPH <http://example.org/g>", "CREATE GRAPH <http://example.org/g>",
    "WITH <http://example.org/g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
    "COPY DEFAULT TO <http://example.org/g>", "MOVE GRAPH <http://example.org/a> TO DEFAULT",
    "ADD <http://example.org/a> TO <http://example.org/b>",
])
def test_updates_are_refused_with_a_reason(update):
    exc = refusal(update)
    keyword = sparql_message(update).form
    assert exc.reason == "update" and keyword in exc.user_message and "only run SPARQL queries that read" in exc.user_message


@pytest.mark.parametrize("query", [
    "SELECT * WHERE { SERVICE <http://127.0.0.1:9999/sparql> { ?s ?p ?o } }",
    "SELECT * WHERE { ?x ?y ?z OPTIONAL { service silent <http://example.org/sparql> { ?x ?q ?r } } }",
    "SELECT * WHERE { \\u0053ERVICE <http://example.org/sparql> { ?s ?p ?o } }",
])
def test_federated_service_calls_are_refused(query):
    exc = refusal(query)
    assert exc.reason == "service" and "SERVICE" in exc.user_message


def test_from_clauses_are_refused():
    exc = refusal("SELECT * FROM <http://example.org/other.ttl> WHERE { ?s ?p ?o }")
    assert exc.reason == "dataset" and "FROM" in exc.user_message


@pytest.mark.parametrize("query, line, column, token", [
    ("SELECT ?x WHER { ?x ?p ?o }", 1, 11, "WHER"),
    ("SELECT ?x WHERE {\n  ?x ?p ?o .\n  ?x ?q\n}", 3, 3, "?x"),  # the incomplete triple
    ("SELECT ?x WHERE {\n\t?x ?p ?o\n\t?y }", 3, 2, "?y"),
    ("SELECT ?x WHERE { ?x ?p \"a\" . FILTER( }", 1, 39, "}"),
    ("SELECT ?x WHERE {\n  ?x rdfs:label ?l .\n", 1, 17, "{"),
    ("SELECT ?x WHERE { ?x rdfs:label \"The Bridge }", 1, 33, '"'),
    ("SELECT ?x WHERE { ?x ?p ?o } )", 1, 30, ")"),
])
def test_syntax_errors_are_located_by_line_column_and_token(query, line, column, token):
    exc = refusal(query)
    assert exc.reason == "syntax"
    assert f"line {line}, column {column}" in exc.user_message, exc.user_message
    assert token in exc.user_message


def test_the_usual_prefixes_need_no_declaration_and_the_query_keeps_its_own():
    checked = check(COURSE_QUERY, {"mb": MB})
    assert "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>" in checked.runnable  # used undeclared: pre-declared
    assert "PREFIX mb: <http://moviebot.invalid/entity/>" in checked.runnable  # the bundle's own
    assert checked.runnable.count("PREFIX wd:") == 1  # the query declares it itself
    assert checked.runnable.endswith(COURSE_QUERY)
    assert checked.form == "SELECT" and ("The Bridge on the River Kwai", "", "") in checked.literals
    assert "http://www.wikidata.org/prop/direct/P57" in checked.iris


def test_an_undeclared_prefix_is_named_with_the_fix():
    exc = refusal("SELECT ?film WHERE { ?film dbo:director ?d }")
    assert exc.reason == "prefix" and "dbo:" in exc.user_message and "PREFIX dbo:" in exc.user_message


def test_rewriting_swaps_whole_tokens_and_leaves_comments_prologue_and_other_strings_alone():
    query = ('PREFIX wd: <http://www.wikidata.org/entity/>\n'
             '# "Jaws" wd:Q189505\n'
             'SELECT ?d WHERE { wd:Q189505 wdt:P57 ?d . ?d rdfs:label "Jaws" . ?x rdfs:label "Jaws 2" . '
             '?y rdfs:label "Jaws"@de . ?z ?p <http://www.wikidata.org/entity/Q189505> }')
    checked = check(query)
    out = rewritten(checked, {("Jaws", ""): '"Jaws"@en', ("Jaws", "de"): '"Jaws"'}, {WD + "Q189505": f"<{MB}film-jaws>"})
    assert out.startswith('PREFIX wd: <http://www.wikidata.org/entity/>\n# "Jaws" wd:Q189505\n')
    assert f"{{ <{MB}film-jaws> wdt:P57 ?d" in out and f"?z ?p <{MB}film-jaws> }}" in out
    assert '?d rdfs:label "Jaws"@en .' in out and '"Jaws 2"' in out and '?y rdfs:label "Jaws" .' in out
    check_query(sparql_message(out))  # still a valid query


# ---------------------------------------------------------------------------------------- wording


def labels(iri: str) -> str | None:
    return {MB + "person-david-lean": "David Lean", WD + "Q55260": "David Lean"}.get(iri)


PREFIXES = {"mb": MB, "wd": WD, "wdt": "http://www.wikidata.org/prop/direct/"}


def test_one_value_is_a_sentence_a_few_rows_a_list_and_more_a_table():
    lean = Node(WD + "Q55260", True)
    one = select_text(["director"], [[lean]], 1, True, labels, PREFIXES)
    assert one == Shown("The result is David Lean (wd:Q55260).", ["David Lean (wd:Q55260)"])
    few = select_text(["n"], [[Node(str(i), False, "http://www.w3.org/2001/XMLSchema#integer")] for i in range(3)], 3, True, labels, PREFIXES)
    assert few.text == "The query found 3 results (?n):\n0\n1\n2" and few.answers == ["0", "1", "2"]
    pairs = select_text(["film", "n"], [[Node(MB + "person-david-lean", True), Node("1", False)]] * 2, 2, True, labels, PREFIXES)
    assert pairs.text == "The query found 2 results:\n" + "\n".join(["film: David Lean (mb:person-david-lean); n: 1"] * 2)
    rows = [[Node(f"{MB}film-{i}", True), Node(f"Film {i}", False, lang="en")] for i in range(20)]
    table = select_text(["film", "title"], rows, 250, True, labels, PREFIXES)
    lines = table.text.splitlines()
    assert lines[0] == "The query found 250 results; here are the first 20 (?film | ?title):"
    assert lines[1] == "mb:film-0 | Film 0" and len(lines) == 21
    assert table.answers == lines[1:]


def test_an_unbound_cell_and_an_interrupted_count_read_honestly():
    rows = [[Node(MB + "person-david-lean", True), None] for _ in range(10)]
    table = select_text(["p", "award"], rows, 1234, False, labels, PREFIXES)
    assert table.text.startswith("The query found at least 1,234 results; here are the first 10 (?p | ?award):\n")
    assert "David Lean (mb:person-david-lean) | —" in table.text


def test_triples_are_abbreviated_with_the_prefixes_and_labelled_in_a_comment():
    triple = [Node(MB + "person-david-lean", True), Node("http://www.w3.org/2000/01/rdf-schema#label", True),
              Node('Lean "David"', False, lang="en")]
    shown = triples_text([triple], 1, True, labels, {**PREFIXES, "rdfs": "http://www.w3.org/2000/01/rdf-schema#"})
    assert shown.answers == ['mb:person-david-lean rdfs:label "Lean \\"David\\""@en .  # David Lean']
    assert compact("http://example.org/a b", PREFIXES) == "<http://example.org/a b>"


# ---------------------------------------------------------------------------------------- limits and settings


def test_the_rate_limit_counts_each_person_separately_within_a_minute():
    now = [1000.0]
    limiter = RateLimiter(2, clock=lambda: now[0])
    assert limiter.wait_s("alice") == 0 and limiter.wait_s("alice") == 0
    assert limiter.wait_s("alice") == pytest.approx(60.0)
    assert limiter.wait_s("bob") == 0
    now[0] += 45
    assert limiter.wait_s("alice") == pytest.approx(15.0)
    now[0] += 15
    assert limiter.wait_s("alice") == 0


@pytest.mark.parametrize("overrides, limited", [
    ({}, False),
    ({"host": "0.0.0.0"}, True),
    ({"host": "192.0.2.10"}, True),
    ({"host": "::1"}, False),
    ({"speakeasy_url": "https://speakeasy.example.org"}, True),
    ({"speakeasy_url": "http://127.0.0.1:8000"}, False),
    ({"matrix_homeserver": "https://matrix.example.org"}, True),
])
def test_the_rate_limit_applies_when_people_beyond_this_machine_can_chat(overrides, limited):
    assert reachable_from_outside(Settings(**overrides)) is limited


def test_the_sparql_settings_come_from_the_environment_and_the_config_file(tmp_path):
    settings = load_settings(env={"MOVIEBOT_SPARQL_TIME_LIMIT_S": "2.5", "MOVIEBOT_SPARQL_IN_CHAT": "false",
                                  "MOVIEBOT_SPARQL_MAX_ROWS": "7"})
    assert (settings.sparql_time_limit_s, settings.sparql_in_chat, settings.sparql_max_rows) == (2.5, False, 7)
    config = tmp_path / "moviebot.toml"
    config.write_text("[sparql]\nrate_per_minute = 3\nmemory_mb = 900\n", encoding="utf-8")
    settings = load_settings(config, env={})
    assert (settings.sparql_rate_per_minute, settings.sparql_memory_mb, settings.sparql_in_chat) == (3, 900, True)


# ---------------------------------------------------------------------------------------- on the demo KG


@pytest.fixture(scope="module")
def demo(cache_dir):
    """The demo KG (store and labels only: the SPARQL path needs no trained model) and an answerer on it."""
    settings = Settings(kg=str(demo_kg()), cache_dir=str(cache_dir), features=())
    kg = open_kg(settings)
    answerer = SparqlAnswerer(kg, settings)
    yield kg, answerer
    answerer.close()


def ask(answerer: SparqlAnswerer, text: str, sender: str = ""):
    message = sparql_message(text)
    assert message is not None, text
    timer = Timer()
    reply = answerer.answer(message, sender, timer)
    reply.trace = timer.steps
    return reply


def sparql_step(reply) -> dict:
    return next(step.detail for step in reply.trace if step.stage == "sparql")


@pytest.mark.integration
def test_the_course_query_on_the_demo_kg_explains_the_plain_literal_and_finds_the_director(demo):
    _, answerer = demo
    reply = ask(answerer, COURSE_QUERY)
    assert reply.kind == Kind.SPARQL
    assert "no results as written" in reply.text and '"The Bridge on the River Kwai"@en' in reply.text
    assert "David Lean (mb:person-david-lean)" in reply.text
    assert {(f.relation, f.value) for f in reply.facts} == {("?directorLabel", "David Lean"), ("?directorItem", MB + "person-david-lean")}
    step = sparql_step(reply)
    assert '"The Bridge on the River Kwai"@en' in step["corrected_query"]
    assert step["bindings"] == [{"directorLabel": {"type": "literal", "value": "David Lean", "xml:lang": "en"},
                                 "directorItem": {"type": "uri", "value": MB + "person-david-lean"}}]


@pytest.mark.integration
def test_the_course_query_with_the_tagged_literal_answers_directly(demo):
    _, answerer = demo
    reply = ask(answerer, COURSE_QUERY.replace('Kwai".', 'Kwai"@en.'))
    assert reply.text == "The query found one result: directorLabel: David Lean; directorItem: David Lean (mb:person-david-lean)."
    assert sparql_step(reply)["total"] == 1 and "corrected_query" not in sparql_step(reply)


@pytest.mark.integration
def test_wikidata_iris_are_mapped_to_the_kg_entities_through_owl_same_as(demo):
    _, answerer = demo
    reply = ask(answerer, "SELECT ?name WHERE { wd:Q188718 wdt:P57 ?d . ?d rdfs:label ?name }")
    assert "wd:Q188718 is mb:film-the-bridge-on-the-river-kwai (The Bridge on the River Kwai)" in reply.text
    assert reply.answers == ["David Lean"]


@pytest.mark.integration
def test_iris_the_kg_does_not_use_are_named(demo):
    _, answerer = demo
    reply = ask(answerer, "PREFIX dbo: <http://dbpedia.org/ontology/>\nSELECT ?f WHERE { ?f dbo:director ?d }")
    assert "dbo:director occurs nowhere in the knowledge graph" in reply.text and "is in none of them" in reply.text
    assert reply.answers == []


@pytest.mark.integration
def test_a_correction_that_still_finds_nothing_says_so(demo):
    _, answerer = demo
    reply = ask(answerer, 'SELECT ?d WHERE { ?f rdfs:label "Jaws" ; wdt:P57 ?d . ?d wdt:P31 wd:Q11424 }')  # a director that is a film
    assert '"Jaws"@en' in reply.text and reply.text.endswith("Even with that change, it finds nothing.")
    assert reply.answers == [] and reply.facts == []


@pytest.mark.integration
def test_a_query_that_finds_nothing_for_no_known_reason_says_so(demo):
    _, answerer = demo
    reply = ask(answerer, 'SELECT ?f WHERE { ?f rdfs:label "No Such Film At All"@en }')
    assert reply.text == "The query found no results." and reply.answers == []


@pytest.mark.integration
def test_more_results_than_the_row_limit_are_shown_in_part_and_counted(demo, cache_dir):
    kg, _ = demo
    answerer = SparqlAnswerer(kg, Settings(kg=str(demo_kg()), cache_dir=str(cache_dir), features=(), sparql_max_rows=5))
    try:
        count = ask(answerer, "SELECT (COUNT(?f) AS ?n) WHERE { ?f wdt:P57 ?d }")
        total = int(count.answers[0])
        reply = ask(answerer, "SELECT ?f ?d WHERE { ?f wdt:P57 ?d }")
        assert reply.text.startswith(f"The query found {total:,} results; here are the first 5:\nf: ")
        assert len(reply.answers) == 5 and len(reply.facts) == 10
        assert sparql_step(reply)["total"] == total and sparql_step(reply)["complete"] is True
    finally:
        answerer.close()


@pytest.mark.integration
def test_ask_answers_yes_or_no_and_describe_gives_abbreviated_triples(demo):
    _, answerer = demo
    assert ask(answerer, "ASK { ?film wdt:P57 mb:person-david-lean }").answers == ["yes"]
    assert ask(answerer, "ASK { mb:person-david-lean wdt:P57 ?film }").answers == ["no"]
    described = ask(answerer, "DESCRIBE mb:person-david-lean")
    assert 'mb:person-david-lean rdfs:label "David Lean"@en .  # David Lean' in described.answers
    constructed = ask(answerer, "CONSTRUCT { ?f wdt:P57 mb:person-david-lean } WHERE { ?f wdt:P57 mb:person-david-lean }")
    assert "mb:film-the-bridge-on-the-river-kwai wdt:P57 mb:person-david-lean .  # The Bridge on the River Kwai, David Lean" \
        in constructed.answers


@pytest.mark.integration
def test_a_query_that_needs_too_much_memory_is_stopped_and_the_next_one_runs(demo, cache_dir):
    kg, _ = demo
    settings = Settings(kg=str(demo_kg()), cache_dir=str(cache_dir), features=(), sparql_memory_mb=600, sparql_time_limit_s=20)
    answerer = SparqlAnswerer(kg, settings)
    try:
        reply = ask(answerer, "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f } ORDER BY ?a ?f")
        assert "needed more memory than a chat query may use" in reply.text
        assert ask(answerer, "ASK { ?s ?p ?o }").answers == ["yes"]
    finally:
        answerer.close()


@pytest.mark.integration
def test_sparql_in_chat_off_gives_a_short_explanation(demo, cache_dir):
    kg, _ = demo
    answerer = SparqlAnswerer(kg, Settings(kg=str(demo_kg()), cache_dir=str(cache_dir), features=(), sparql_in_chat=False))
    reply = ask(answerer, COURSE_QUERY)
    assert reply.kind == Kind.SPARQL and "turned off" in reply.text and reply.answers == []
    assert answerer._runner is None  # nothing was started


class Listener:
    """A loopback TCP server that counts the connections it gets (it should get none)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.running = True
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self):
        self.running = False
        self.thread.join()
        self.sock.close()


@pytest.fixture
def listener():
    server = Listener()
    yield server
    server.close()


def triple_count(store: Path) -> int:
    import pyoxigraph

    return len(pyoxigraph.Store.read_only(str(store)))


@pytest.mark.integration
def test_the_worker_itself_runs_no_update_and_reaches_no_network(demo, listener):
    """Below the checks: a worker sent an update or a SERVICE call directly still changes nothing and calls nobody."""
    kg, _ = demo
    before = triple_count(kg.graph.path)
    runner = LocalRunner(kg.graph.path, 2048)
    try:
        deleted, _ = runner.run("DELETE WHERE { ?s ?p ?o }", "SELECT", 5, 10, 5.0)
        assert deleted.stopped == "engine"
        called, notes = runner.run(f"SELECT * WHERE {{ SERVICE <http://127.0.0.1:{listener.port}/sparql> {{ ?s ?p ?o }} }}",
                                   "SELECT", 5, 10, 5.0)
        if notes["network_isolated"]:
            assert called.stopped == "engine" and listener.connections == 0
        else:  # a kernel without network namespaces for this user: the check before the worker is the only guard
            pytest.skip("this kernel gives the worker no network namespace of its own")
    finally:
        runner.close()
    assert triple_count(kg.graph.path) == before


# ---------------------------------------------------------------------------------------- the course layout, through the agent


@pytest.fixture(scope="module")
def course_agent(tmp_path_factory, cache_dir):
    root = tmp_path_factory.mktemp("course")
    import_atai(write_course_layout(root / "course"), root / "bundle")
    agent = Agent.from_settings(Settings(kg=str(root / "bundle"), cache_dir=str(cache_dir), features=(), sparql_time_limit_s=1.5))
    yield agent
    agent.sparql.close()


@pytest.mark.integration
def test_course_queries_on_an_imported_course_graph(course_agent):
    best = max(FILMS, key=lambda f: float(f[8]))
    assert course_agent.answer(BEST_RATED).text == f"The result is {best[1]}."
    reply = course_agent.answer(COUNTRY_AND_AWARD)
    assert reply.text == "The query found one result: country: Norway; award: Golden Reel Prize."
    reply = course_agent.answer(COURSE_QUERY.replace("The Bridge on the River Kwai", "Salt and Iron"))
    assert '"Salt and Iron"@en' in reply.text  # the course graph's labels are tagged too
    director = PEOPLE[next(f[3] for f in FILMS if f[1] == "Salt and Iron")]
    assert f"{director} (wd:Q2006)" in reply.text


@pytest.mark.integration
def test_a_tagged_literal_where_the_kg_has_a_plain_one_is_explained_too(course_agent):
    reply = course_agent.answer('SELECT ?film WHERE { ?film wdt:P345 "tt0001007"@en }')
    assert 'has "tt0001007" without a language tag' in reply.text
    assert reply.answers == ["Salt and Iron (wd:Q1007)"]


@pytest.mark.integration
def test_describe_of_a_wikidata_iri_on_the_demo_kg_describes_the_linked_entity(demo):
    _, answerer = demo
    reply = ask(answerer, "DESCRIBE wd:Q188718")
    assert "wd:Q188718 is mb:film-the-bridge-on-the-river-kwai" in reply.text
    assert "mb:film-the-bridge-on-the-river-kwai wdt:P57 mb:person-david-lean .  # The Bridge on the River Kwai, David Lean" in reply.answers


@pytest.mark.integration
def test_wikidata_ids_in_results_are_written_as_the_chatroom_links_them(course_agent):
    reply = course_agent.answer("SELECT ?film WHERE { ?film wdt:P57 wd:Q2001 } ORDER BY ?film")
    works = FILMS + [(SERIES[0], SERIES[1], "", SERIES[2])]  # the series has a director too
    films = sorted(f"{WD}{f[0]}" for f in works if f[3] == "Q2001")
    titles = {f"{WD}{f[0]}": f[1] for f in works}
    assert reply.answers == [f"{titles[iri]} (wd:{iri.rsplit('/', 1)[1]})" for iri in films]


@pytest.mark.integration
def test_an_expensive_cross_product_stops_at_the_time_limit_while_other_messages_are_answered(course_agent):
    done: list[str] = []
    replies = {}

    def slow():
        replies["slow"] = course_agent.answer(CROSS_PRODUCT, sender="carol")
        done.append("slow")

    thread = threading.Thread(target=slow)
    started = time.monotonic()
    thread.start()
    time.sleep(0.3)  # let the cross product get going in its worker
    replies["question"] = course_agent.answer("Who directed Salt and Iron?")
    done.append("question")
    replies["query"] = course_agent.answer(BEST_RATED, sender="dave")
    done.append("query")
    thread.join(30)
    elapsed = time.monotonic() - started
    assert done == ["question", "query", "slow"]
    assert replies["question"].answers == ["Rufus Oyelaran"] and replies["query"].kind == Kind.SPARQL
    assert "still running after 1.5 s, so I stopped it" in replies["slow"].text
    assert elapsed < 1.5 + 5.0  # stopped at the limit (generous slack for a busy machine), not left to run
    assert course_agent.answer("ASK { ?s ?p ?o }").answers == ["yes"]  # the next query gets a fresh worker


@pytest.mark.integration
def test_the_dialogue_passes_a_query_through_unchanged_even_while_it_waits_for_a_choice(course_agent):
    dialogue = Dialogue(course_agent)
    asked = dialogue.reply(Message("room", "erin", "Who directed Hamlet?"))
    assert asked.kind == Kind.CLARIFY
    query = 'SELECT ?d WHERE { ?h rdfs:label "Hamlet"@en ; wdt:P577 ?date ; wdt:P57 ?x . ?x rdfs:label ?d FILTER(YEAR(?date) = 1996) }'
    reply = dialogue.reply(Message("room", "erin", query))
    assert reply.kind == Kind.SPARQL and reply.answers == [PEOPLE["Q2002"]]
    assert dialogue.memory("room").pending() is None


@pytest.mark.integration
def test_each_person_may_send_a_few_queries_a_minute_on_a_public_chatroom(course_agent):
    agent = Agent(course_agent.kg, course_agent.settings.with_overrides(host="0.0.0.0", sparql_rate_per_minute=2))
    dialogue = Dialogue(agent)
    try:
        first = [dialogue.reply(Message(f"r{i}", "frank", "ASK { ?s ?p ?o }")) for i in range(3)]
        assert [r.answers for r in first[:2]] == [["yes"], ["yes"]]
        assert "2 SPARQL queries within a minute" in first[2].text and first[2].answers == []
        assert dialogue.reply(Message("r9", "grace", "ASK { ?s ?p ?o }")).answers == ["yes"]
        assert dialogue.reply(Message("r0", "frank", "Who directed Salt and Iron?")).answers == ["Rufus Oyelaran"]
    finally:
        agent.sparql.close()


# ---------------------------------------------------------------------------------------- mutated queries

SEEDS = [
    COURSE_QUERY, BEST_RATED, COUNTRY_AND_AWARD,
    "SELECT ?f WHERE { ?f wdt:P57 wd:Q2001 } ORDER BY ?f",
    "ASK { ?s ?p ?o }",
    "DESCRIBE wd:Q1007",
    "CONSTRUCT { ?f wdt:P57 ?d } WHERE { ?f wdt:P57 ?d }",
    "DELETE WHERE { ?s ?p ?o }",
    "INSERT DATA { wd:Q1 wdt:P57 wd:Q2 }",
]
PIECES = ["SERVICE <http://127.0.0.1:{port}/sparql> { ?s ?p ?o }", "LOAD <http://127.0.0.1:{port}/x.ttl>", "DELETE", "INSERT DATA",
          "DROP ALL", "FROM <http://127.0.0.1:{port}/g>", "{", "}", "(", ")", '"', "'", "#", "\n", "\\u0053ERVICE", "?x", ".", ";",
          "FILTER(", "OPTIONAL {", "UNION", "GRAPH ?g {", "LIMIT 0", "ORDER BY", "@en", "^^xsd:integer", "wd:Q1007", "<>", "```"]


@st.composite
def mutated_queries(draw):
    query = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(query)))
        action = draw(st.sampled_from(["insert", "delete", "replace", "duplicate"]))
        if action == "insert":
            piece = draw(st.one_of(st.sampled_from(PIECES), st.text(string.printable, max_size=6)))
            query = query[:at] + " " + piece + " " + query[at:]
        elif action == "delete":
            query = query[:at] + query[at + draw(st.integers(1, 12)):]
        elif action == "replace":
            query = query[:at] + draw(st.text(max_size=3)) + query[at + 1:]
        else:
            query = query[:at] + query[at: at + 20] + query[at:]
    return query


@pytest.mark.integration
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(mutated_queries())
def test_mutated_queries_never_crash_change_the_store_or_reach_the_network(course_agent, listener, monkeypatch, query):
    query = query.replace("{port}", str(listener.port))
    connections = []
    monkeypatch.setattr(socket.socket, "connect", lambda self, address: connections.append(address))
    before = triple_count(course_agent.kg.graph.path)
    reply = course_agent.answer(query, sender="hypothesis")
    assert reply.text and "Traceback" not in reply.text
    assert reply.kind in set(Kind)
    assert connections == [] and listener.connections == 0
    assert triple_count(course_agent.kg.graph.path) == before


# ---------------------------------------------------------------------------------------- on a remote endpoint


@pytest.fixture(scope="module")
def remote(request, mini_bundle, cache_dir):
    """An answerer on the mini bundle's graph behind `oxigraph serve-read-only` (the fixture of test_remote_endpoint)."""
    url = request.getfixturevalue("endpoint")
    settings = Settings(kg=url, schema=str(mini_bundle), cache_dir=str(cache_dir), features=(), sparql_time_limit_s=0.5)
    return SparqlAnswerer(open_kg(settings), settings)


@pytest.mark.e2e
def test_a_remote_endpoint_answers_chat_queries_like_the_local_store(remote):
    reply = ask(remote, 'SELECT ?name WHERE { ?f rdfs:label "Good Will Hunting" ; wdt:P57 ?d . ?d rdfs:label ?name }')
    assert '"Good Will Hunting"@en' in reply.text and reply.answers == ["Gus Van Sant"]
    assert sparql_step(reply)["endpoint"].startswith("http://127.0.0.1:")
    assert ask(remote, "ASK { ?f wdt:P57 ?d }").answers == ["yes"]
    built = ask(remote, "PREFIX t: <http://test.invalid/>\nCONSTRUCT { t:milk wdt:P57 ?d } WHERE { t:milk wdt:P57 ?d }")
    assert built.answers == ["t:milk wdt:P57 t:gvs .  # Milk, Gus Van Sant"]


@pytest.mark.e2e
def test_a_remote_query_past_the_time_limit_is_given_up(remote):
    reply = ask(remote, "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }")
    assert "still running after 0.5 s, so I stopped it" in reply.text
