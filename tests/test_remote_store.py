"""The remote store against a scripted SPARQL endpoint on loopback: pooling, time limit, retries, engine quirks.

The endpoint is a tiny HTTP server in a thread whose answers each test chooses, so the
behaviour of Virtuoso (a result cut at ResultSetMaxRows with an X-SPARQL-MaxRows header, a
partial "anytime" result) can be checked exactly; tests/test_virtuoso.py runs the real server.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
import urllib.parse
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bot.core.errors import StoreError
from bot.kg.store import EndpointTimeout, RemoteGraph, split_prologue

XSD_INT = "http://www.w3.org/2001/XMLSchema#integer"


def results(names: list[str], rows: list[dict]) -> dict:
    return {"head": {"vars": names}, "results": {"bindings": rows}}


def as_xml(payload: dict) -> bytes:
    """The SPARQL XML results form of a JSON results payload, as an endpoint writes it (character data escaped)."""
    def term(t: dict) -> str:
        kind = "literal" if t["type"] == "typed-literal" else t["type"]
        extra = "".join(f' {key}="{escape(t[src])}"' for key, src in (("datatype", "datatype"), ("xml:lang", "xml:lang")) if src in t)
        return f"<{kind}{extra}>{escape(t['value'])}</{kind}>"

    head = "".join(f'<variable name="{v}"/>' for v in payload["head"]["vars"])
    body = "".join("<result>" + "".join(f'<binding name="{n}">{term(t)}</binding>' for n, t in row.items()) + "</result>\n"
                   for row in payload["results"]["bindings"])
    return (f'<?xml version="1.0"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head>{head}</head>'
            f"<results>{body}</results></sparql>").encode()


class Endpoint:
    """A scripted endpoint: `answer(form) -> (status, headers, payload)` decides each reply; requests are recorded."""

    def __init__(self, answer, port: int = 0):
        self.answer = answer
        self.forms: list[dict[str, list[str]]] = []
        self.accepts: list[str] = []
        self.connections: set[tuple[str, int]] = set()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, so a pooled client reuses its connection

            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"])).decode()
                form = urllib.parse.parse_qs(body)
                endpoint.forms.append(form)
                endpoint.accepts.append(self.headers.get("Accept", ""))
                endpoint.connections.add(self.client_address)
                status, headers, payload = endpoint.answer(form)
                xml = "sparql-results+xml" in self.headers.get("Accept", "") and "head" in payload
                data = as_xml(payload) if xml else json.dumps(payload).encode()
                self.send_response(status)
                kind = "application/sparql-results+xml" if xml else "application/sparql-results+json"
                for key, value in {"Content-Type": kind, **headers}.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, query: str = "") -> str:
        return f"http://127.0.0.1:{self.port}/sparql" + (f"?{query}" if query else "")

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def endpoint():
    servers = []

    def start(answer, port: int = 0) -> Endpoint:
        servers.append(Endpoint(answer, port))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def one_row(form):
    return 200, {}, results(["x"], [{"x": {"type": "uri", "value": "http://x.invalid/a"}}])


def test_the_urls_parameters_go_with_every_query(endpoint):
    server = endpoint(one_row)
    graph = RemoteGraph(server.url("default-graph-uri=urn%3Amoviebot%3Ademo"))
    graph.select("SELECT ?x WHERE { ?x ?p ?o }")
    assert server.forms[0]["default-graph-uri"] == ["urn:moviebot:demo"]
    assert server.forms[0]["query"] == ["SELECT ?x WHERE { ?x ?p ?o }"]


def test_queries_share_one_kept_alive_connection(endpoint):
    server = endpoint(one_row)
    graph = RemoteGraph(server.url())
    for _ in range(20):
        assert graph.select("SELECT ?x WHERE { ?x ?p ?o }")[0]["x"].value == "http://x.invalid/a"
    assert len(server.forms) == 20 and len(server.connections) == 1


def test_a_query_past_the_time_limit_fails_as_a_store_error(endpoint):
    def slow(form):
        time.sleep(3)
        return one_row(form)

    graph = RemoteGraph(endpoint(slow).url(), timeout=0.5)
    with pytest.raises(EndpointTimeout, match="did not answer within 0.5 s") as caught:
        graph.select("SELECT ?x WHERE { ?x ?p ?o }")
    assert "cannot reach my knowledge graph" in caught.value.user_message


def test_a_build_time_scan_has_its_own_longer_time_limit(endpoint):
    """Building the label index of a 20M-triple graph reads ~2.5M labels in one result, which takes minutes over
    HTTP: the question-time limit must not fail it, and a question's query must still fail by its own limit."""
    def slow(form):
        time.sleep(1.5)
        return one_row(form)

    graph = RemoteGraph(endpoint(slow).url(), timeout=0.5, scan_timeout=5)
    assert graph.scan("SELECT ?x WHERE { ?x ?p ?o }")[0]["x"].value == "http://x.invalid/a"
    with pytest.raises(EndpointTimeout, match="within 0.5 s"):
        graph.select("SELECT ?x WHERE { ?x ?p ?o }")
    with pytest.raises(EndpointTimeout, match="within 1 s"):
        RemoteGraph(graph.url, timeout=0.5, scan_timeout=1).scan("SELECT ?x WHERE { ?x ?p ?o }")


def test_the_label_index_is_built_with_scans_not_question_time_selects():
    """Every query of the label-index build goes through `scan` (the build-time limit)."""
    from bot.kg.bundle import load_bundle
    from bot.kg.labels import build_label_index
    from bot.resources import demo_kg

    class Recorder:
        def __init__(self):
            self.scans = 0

        def scan(self, query):
            self.scans += 1
            return []

        def select(self, query):
            raise AssertionError(f"a question-time select during the build: {query}")

    graph = Recorder()
    bundle = load_bundle(demo_kg())
    build_label_index(graph, bundle)
    assert graph.scans == 3 + 2 * len(bundle.relations)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_connections_refused_are_retried_until_the_endpoint_is_up(endpoint):
    port = free_port()
    graph = RemoteGraph(f"http://127.0.0.1:{port}/sparql", retries=6, backoff=0.2)  # waits 0.2, 0.4, ... 6.4 s between attempts
    started = threading.Timer(0.3, lambda: endpoint(one_row, port))
    started.start()
    try:
        assert graph.select("SELECT ?x WHERE { ?x ?p ?o }")[0]["x"].value == "http://x.invalid/a"
    finally:
        started.join()


def test_an_endpoint_that_stays_down_is_unreachable_after_the_retries():
    graph = RemoteGraph(f"http://127.0.0.1:{free_port()}/sparql", retries=2, backoff=0.01)
    with pytest.raises(StoreError, match="is unreachable"):
        graph.select("SELECT ?x WHERE { ?x ?p ?o }")


def test_a_partial_anytime_result_is_an_error_not_an_answer(endpoint):
    def partial(form):
        return 200, {"X-SQL-State": "S1TAT", "X-SQL-Message": "RC...: Returning incomplete results"}, results(["x"], [])

    with pytest.raises(StoreError, match="partial result"):
        RemoteGraph(endpoint(partial).url()).select("SELECT ?x WHERE { ?x ?p ?o }")


def test_an_http_error_names_the_status(endpoint):
    with pytest.raises(StoreError, match="answered 400"):
        RemoteGraph(endpoint(lambda form: (400, {}, {"error": "bad query"})).url()).select("SELECT")


ALL = [f"http://x.invalid/{n:03d}" for n in range(25)]
CAP = 10


def capped(form):
    """Like Virtuoso with ResultSetMaxRows = 10: an unpaged query is cut with the header; a paged one gets its page."""
    query = form["query"][0]
    page = re.search(r"LIMIT (\d+) OFFSET (\d+)\s*$", query)
    if page:
        limit, offset = int(page.group(1)), int(page.group(2))
        chosen = sorted(ALL)[offset : offset + limit]
        headers = {"X-SPARQL-MaxRows": str(CAP)} if len(chosen) == CAP else {}
    else:
        chosen, headers = ALL[:CAP], {"X-SPARQL-MaxRows": str(CAP)}
    return 200, headers, results(["s"], [{"s": {"type": "uri", "value": s}} for s in chosen])


def test_a_result_cut_at_the_endpoints_row_limit_is_read_in_pages(endpoint):
    server = endpoint(capped)
    query = "PREFIX ex: <http://x.invalid/>\nSELECT ?s WHERE { ?s ?p ?o }"
    rows = RemoteGraph(server.url()).select(query)
    assert sorted(row["s"].value for row in rows) == ALL
    paged = [form["query"][0] for form in server.forms[1:]]
    assert len(paged) == 3  # 10 + 10 + 5 rows
    assert all(q.startswith("PREFIX ex: <http://x.invalid/>\n") and "ORDER BY ?s" in q for q in paged)


def test_a_full_result_without_the_header_is_not_paged(endpoint):
    server = endpoint(lambda form: (200, {}, results(["s"], [{"s": {"type": "uri", "value": s}} for s in ALL])))
    assert len(RemoteGraph(server.url()).select("SELECT ?s WHERE { ?s ?p ?o }")) == len(ALL)
    assert len(server.forms) == 1


def test_literals_keep_their_datatype_and_language(endpoint):
    row = {"n": {"type": "typed-literal", "datatype": XSD_INT, "value": "7"},
           "l": {"type": "literal", "xml:lang": "en", "value": "Heat"}, "p": {"type": "literal", "value": "plain"}}
    got = RemoteGraph(endpoint(lambda form: (200, {}, results(["n", "l", "p"], [row]))).url()).select("SELECT * {}")[0]
    assert (got["n"].datatype, got["n"].value) == (XSD_INT, "7")
    assert (got["l"].lang, got["l"].datatype) == ("en", "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString")
    assert got["p"].datatype == "http://www.w3.org/2001/XMLSchema#string"


def test_a_scan_reads_the_xml_results_with_every_terms_kind_datatype_and_language(endpoint):
    """Build-time scans stream the XML results format (Virtuoso writes it ~3x faster than JSON): the rows must be the
    ones `select` reads from JSON, term for term."""
    rows = [{"s": {"type": "uri", "value": "http://x.invalid/a?b=1&c=2"}, "n": {"type": "typed-literal", "datatype": XSD_INT, "value": "7"},
             "l": {"type": "literal", "xml:lang": "fr", "value": "L'été <meurtrier> & co"}, "p": {"type": "literal", "value": ""},
             "b": {"type": "bnode", "value": "b0"}},
            {"s": {"type": "uri", "value": "http://x.invalid/only-s"}}]
    server = endpoint(lambda form: (200, {}, results(["s", "n", "l", "p", "b"], rows)))
    graph = RemoteGraph(server.url())
    scanned = graph.scan("SELECT * {}")
    assert scanned == graph.select("SELECT * {}")
    assert server.accepts == ["application/sparql-results+xml", "application/sparql-results+json"]
    assert scanned[0]["l"] == ("L'été <meurtrier> & co", False, "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString", "fr")
    assert scanned[0]["p"].datatype == "http://www.w3.org/2001/XMLSchema#string" and scanned[1].keys() == {"s"}


def test_a_scan_cut_at_the_endpoints_row_limit_is_read_in_pages(endpoint):
    """Virtuoso cuts any HTTP result at 2^20 rows: a 20M-triple graph's cast pairs (5.9M) come in pages, in XML too."""
    server = endpoint(capped)
    assert sorted(row["s"].value for row in RemoteGraph(server.url()).scan("SELECT ?s WHERE { ?s ?p ?o }")) == ALL
    assert len(server.forms) == 4 and set(server.accepts) == {"application/sparql-results+xml"}  # the cut read, then 3 pages


def test_a_scan_answer_that_is_no_xml_is_a_store_error(endpoint):
    server = endpoint(lambda form: (200, {"Content-Type": "text/html"}, {"error": "<p>not results"}))
    with pytest.raises(StoreError, match="no XML results"):
        RemoteGraph(server.url()).scan("SELECT * {}")


def predicate_counts(counts: dict[str, int]):
    def answer(form):
        if "GRAPH <urn:moviebot:meta>" in form["query"][0]:
            return 200, {}, results(["digest"], [])
        return 200, {}, results(["p", "n"], [{"p": {"type": "uri", "value": p}, "n": {"type": "typed-literal", "datatype": XSD_INT,
                                                                                      "value": str(n)}} for p, n in counts.items()])
    return answer


def test_the_fingerprint_of_an_endpoint_follows_what_it_holds_not_its_url(endpoint):
    first = RemoteGraph(endpoint(predicate_counts({"http://x.invalid/p": 10, "http://x.invalid/q": 3})).url()).fingerprint()
    same = RemoteGraph(endpoint(predicate_counts({"http://x.invalid/q": 3, "http://x.invalid/p": 10})).url()).fingerprint()
    grown = RemoteGraph(endpoint(predicate_counts({"http://x.invalid/p": 11, "http://x.invalid/q": 3})).url()).fingerprint()
    assert first == same != grown


def test_the_fingerprint_is_the_loaders_recorded_digest_when_there_is_one(endpoint):
    def recorded(form):
        assert form["named-graph-uri"] == ["urn:moviebot:meta"]
        return 200, {}, results(["digest"], [{"digest": {"type": "literal", "value": "abc123"}}])

    graph = RemoteGraph(endpoint(recorded).url("default-graph-uri=urn%3Amoviebot%3Ademo"))
    assert graph.fingerprint() == "loaded:abc123"


def test_the_prologue_is_split_from_the_query():
    query = "# find\nPREFIX wd: <http://www.wikidata.org/entity/>\nBASE <http://x.invalid/>\nSELECT ?s WHERE { ?s ?p wd:Q1 }"
    prologue, body = split_prologue(query)
    assert body == "SELECT ?s WHERE { ?s ?p wd:Q1 }" and prologue + body == query
