"""Answering SPARQL queries typed into the chat: read-only, within a time limit, explained when empty.

The agent hands a recognised query (bot.understanding.sparql_message) to `SparqlAnswerer`,
which checks it, applies the per-person rate limit, runs it and words the result:

* on a local store, in a worker process (bot/answering/sparql_worker.py) that opened the store
  read-only; a query still running at the time limit is stopped by killing its worker, and a
  fresh one starts in the background, so the bot's threads go on answering meanwhile. Workers
  are started on the first query and reused (one per query running at the same time);
* on a remote endpoint, over HTTP with the time limit as the timeout (the endpoint's own server
  decides what its queries may do; the check here refuses updates and SERVICE all the same).

At most `sparql_max_rows` results are shown; the rest are counted (up to
`sparql_count_limit`, within the time limit). A query that finds nothing is explained where
the reason is a common one: a plain label literal where the KG's labels carry a language tag
(or the other way round), Wikidata IRIs where the KG names its entities itself and links them
with owl:sameAs, or IRIs that occur nowhere in the KG; the corrected query is run and its
results shown, labelled as such.
"""

from __future__ import annotations

import atexit
import ipaddress
import json
import logging
import os
import queue
import subprocess
import sys
import threading
import time
import urllib.parse
import weakref
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path

from bot.answering.sparql_worker import term as worker_term
from bot.answering.sparql_worker import triple_terms
from bot.core.config import Settings
from bot.core.contracts import Fact, Reply
from bot.core.errors import StoreError
from bot.core.kinds import Kind
from bot.generation.tables import Shown, ask_text, cell, compact, n3, select_text, triples_text
from bot.kg import queries
from bot.kg.bundle import is_safe_iri
from bot.kg.graph import KG
from bot.kg.store import EndpointTimeout, LocalGraph, Node, RemoteGraph
from bot.understanding.sparql_message import VOCABULARIES, CheckedQuery, QueryRefused, SparqlMessage, check_query, rewritten

log = logging.getLogger(__name__)

WORKER_SCRIPT = Path(__file__).with_name("sparql_worker.py")
WORKER_START_S = 60.0  # opening a big store read-only takes about a second; this is the limit for a stuck start
MESSAGE_GRACE_S = 0.25  # how long past its budget a worker's count may take to arrive
MAX_HINT_TERMS = 12  # literals or IRIs of an empty query checked for a likely mistake
OWL_SAME_AS = "http://www.w3.org/2002/07/owl#sameAs"
TURNED_OFF = ("Running SPARQL queries typed into the chat is turned off for this bot. "
              "Ask me in plain words instead, for example \"Who directed The Bridge on the River Kwai?\"")


# ------------------------------------------------------------------------------ outcomes


@dataclass
class Outcome:
    """What running one query gave: results (at most the row limit), the count, or why it stopped."""

    form: str
    variables: list[str] = field(default_factory=list)
    rows: list[list[Node | None]] = field(default_factory=list)  # SELECT cells per variable, or [s, p, o] triples
    boolean: bool | None = None
    total: int = 0
    complete: bool = True  # total is the exact count
    ms: float = 0.0  # time the query ran
    stopped: str = ""  # "" | time | memory | engine
    detail: str = ""  # the engine's message, for the log and the trace

    @property
    def empty(self) -> bool:
        return not self.stopped and self.boolean is None and not self.rows


def _node(raw: list | None) -> Node | None:
    """A worker's [kind, value, datatype, language] as a Node (blank nodes and quoted triples as literals of that kind)."""
    if raw is None:
        return None
    kind, value, datatype, lang = raw
    if kind == "iri":
        return Node(value, True)
    if kind == "literal":
        return Node(value, False, datatype, lang)
    return Node(value, False, kind)


def _outcome(form: str, head: dict, total: int, complete: bool, ms: float) -> Outcome:
    if "boolean" in head:
        return Outcome(form, boolean=bool(head["boolean"]), total=1, ms=ms)
    rows = [[_node(cell) for cell in row] for row in head.get("rows", head.get("triples", []))]
    return Outcome(form, list(head.get("vars", [])), rows, total=max(total, len(rows)), complete=complete, ms=ms)


# ------------------------------------------------------------------------------ local store: worker processes


class Worker:
    """One worker process with a thread reading its answers into a queue."""

    def __init__(self, store: Path, memory_mb: int):
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, str(WORKER_SCRIPT), str(store), "--memory-mb", str(memory_mb), "--parent", str(os.getpid())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, encoding="utf-8", bufsize=1,
        )
        self.messages: queue.Queue = queue.Queue()
        self.info: dict | None = None  # the worker's ready message
        self.start_ms: float | None = None  # from starting the process to its ready message
        threading.Thread(target=self._read, name="sparql-worker-reader", daemon=True).start()

    def _read(self) -> None:
        with self.process.stdout as output:
            for line in output:
                if self.start_ms is None:
                    self.start_ms = (time.perf_counter() - self.started) * 1000
                try:
                    self.messages.put(json.loads(line))
                except ValueError:
                    log.warning("SPARQL worker wrote something that is not JSON: %r", line[:200])
        self.messages.put(None)  # end of output: the worker exited

    def wait_ready(self) -> dict:
        if self.info is None:
            message = self.next(WORKER_START_S)
            if message is None or not message.get("ready"):
                self.kill()
                raise StoreError(f"the SPARQL worker did not start: {message}")
            self.info = message
            if not message.get("isolated"):
                log.info("SPARQL worker %s runs without its own network namespace (the kernel does not allow one)", message.get("pid"))
        return self.info

    def next(self, timeout: float) -> dict | None:
        """The next message; None when the worker exited; queue.Empty when none came within `timeout`."""
        return self.messages.get(timeout=max(timeout, 0.0))

    def send(self, request: dict) -> None:
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        if self.alive:
            self.process.kill()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            log.error("SPARQL worker %s did not exit after SIGKILL", self.process.pid)
        try:
            self.process.stdin.close()  # its output is closed by the reading thread, at its end
        except OSError:
            pass


def _kill_all(workers: list[Worker]) -> None:
    for worker in list(workers):
        worker.kill()


class LocalRunner:
    """Runs chat queries on a local store in worker processes: one per query running at once, reused."""

    def __init__(self, store: Path, memory_mb: int):
        self.store = store
        self.memory_mb = memory_mb
        self._idle: list[Worker] = []
        self._all: list[Worker] = []
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _kill_all, self._all)
        atexit.register(self._finalizer)

    def _spawn(self) -> Worker:
        worker = Worker(self.store, self.memory_mb)
        with self._lock:
            self._all.append(worker)
        return worker

    def _take(self) -> Worker:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.alive:
                    return worker
                self._all.remove(worker)
        return self._spawn()

    def _give_back(self, worker: Worker) -> None:
        with self._lock:
            self._idle.append(worker)

    def _replace(self, worker: Worker) -> None:
        """Kill a worker stuck in a query (or dead) and start its successor right away, so the next query finds it warm."""
        worker.kill()
        with self._lock:
            if worker in self._all:
                self._all.remove(worker)
        self._give_back(self._spawn())

    def close(self) -> None:
        self._finalizer()

    def run(self, query: str, form: str, rows: int, count: int, budget_s: float) -> tuple[Outcome, dict]:
        """Run `query` for at most `budget_s` seconds; (outcome, notes on the worker for the trace)."""
        waiting = time.perf_counter()
        for attempt in range(2):  # a worker that died while idle (killed from outside) is replaced once
            worker = self._take()
            first_use = worker.info is None
            info = worker.wait_ready()
            started = time.perf_counter()
            deadline = time.monotonic() + budget_s
            try:
                worker.send({"query": query, "rows": rows, "count": count, "budget_s": budget_s})
                break
            except OSError:
                self._replace(worker)
                if attempt:
                    raise StoreError("the SPARQL worker exits as soon as it gets a query") from None
        notes = {"worker": info.get("pid"), "network_isolated": bool(info.get("isolated")),
                 "worker_wait_ms": round((started - waiting) * 1000, 1)}
        if first_use:
            notes["worker_start_ms"] = round(worker.start_ms or 0.0, 1)
        elapsed = lambda: (time.perf_counter() - started) * 1000
        try:
            first = worker.next(deadline - time.monotonic())
        except queue.Empty:
            self._replace(worker)
            return Outcome(form, ms=elapsed(), stopped="time"), notes
        if first is None:  # the worker's output ended: it died in the query (a failed allocation aborts it)
            try:
                code = worker.process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                code = None
            self._replace(worker)
            return Outcome(form, ms=elapsed(), stopped="memory" if code in (-6, -11, 134) else "engine",
                           detail=f"the worker exited with {code}"), notes
        if "error" in first:
            self._give_back(worker)
            stopped = "memory" if "memory" in first["error"] else "engine"
            return Outcome(form, ms=elapsed(), stopped=stopped, detail=first["error"]), notes
        if "total" in first:
            self._give_back(worker)
            return _outcome(form, first["head"], first["total"], first["complete"], elapsed()), notes
        shown_ms = elapsed()
        try:
            final = worker.next(deadline - time.monotonic() + MESSAGE_GRACE_S)
        except queue.Empty:
            final = None
        if final is None or "total" not in final:  # still counting at the deadline (or died counting)
            self._replace(worker)
            return _outcome(form, first["head"], 0, False, shown_ms), notes
        self._give_back(worker)
        return _outcome(form, first["head"], final["total"], final["complete"], shown_ms), notes


# ------------------------------------------------------------------------------ remote endpoint


class RemoteRunner:
    """Runs chat queries on the bundle's SPARQL endpoint (the graph's connection pool), with the time limit as the HTTP timeout."""

    def __init__(self, graph: RemoteGraph):
        self.graph = graph

    def run(self, query: str, form: str, rows: int, count: int, budget_s: float) -> tuple[Outcome, dict]:
        import pyoxigraph
        import urllib3

        graph_form = form in ("CONSTRUCT", "DESCRIBE")
        started = time.perf_counter()
        deadline = time.monotonic() + budget_s
        notes = {"endpoint": self.graph.url}
        try:
            response = self.graph.request(query, "application/n-triples" if graph_form else "application/sparql-results+json", budget_s)
        except EndpointTimeout:
            return Outcome(form, ms=(time.perf_counter() - started) * 1000, stopped="time"), notes
        try:
            if response.status >= 400:
                return Outcome(form, stopped="engine", detail=f"the endpoint answered {response.status}: {response.read(300)!r}"), notes
            if graph_form:
                items = (triple_terms(t) for t in pyoxigraph.parse(response, pyoxigraph.RdfFormat.N_TRIPLES))
                head: dict = {"triples": []}
                shown = head["triples"]
            else:
                results = pyoxigraph.parse_query_results(response, pyoxigraph.QueryResultsFormat.JSON)
                if isinstance(results, pyoxigraph.QueryBoolean):
                    return Outcome(form, boolean=bool(results), total=1, ms=(time.perf_counter() - started) * 1000), notes
                names = [v.value for v in results.variables]
                head = {"vars": names, "rows": []}
                shown = head["rows"]
                items = ([worker_term(solution[name]) for name in names] for solution in results)
            total, complete = 0, True
            for item in items:
                total += 1
                if len(shown) < rows:
                    shown.append(item)
                if total >= count or time.monotonic() > deadline:
                    complete = False
                    break
        except urllib3.exceptions.TimeoutError:
            return Outcome(form, ms=(time.perf_counter() - started) * 1000, stopped="time"), notes
        except (OSError, SyntaxError, ValueError, urllib3.exceptions.HTTPError) as exc:
            return Outcome(form, stopped="engine", detail=f"{type(exc).__name__}: {exc}"), notes
        finally:
            response.release_conn()
        cap = response.headers.get("X-SPARQL-MaxRows", "")  # Virtuoso cut the result: the total is a lower bound
        if cap.isdigit() and total >= int(cap):
            complete = False
        return _outcome(form, head, total, complete, (time.perf_counter() - started) * 1000), notes

    def close(self) -> None:
        """Nothing to stop: each query is one HTTP request on the graph's pool."""


# ------------------------------------------------------------------------------ rate limit


def is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def reachable_from_outside(settings: Settings) -> bool:
    """Whether people beyond this machine can send the bot queries: the web chatroom bound to a
    non-loopback address, or a Speakeasy or Matrix server elsewhere."""
    if not is_loopback(settings.host):
        return True
    for url in (settings.speakeasy_url, settings.matrix_homeserver):
        if url and not is_loopback(urllib.parse.urlsplit(url).hostname or ""):
            return True
    return False


class RateLimiter:
    """At most `per_minute` queries per sender in any 60 seconds."""

    WINDOW_S = 60.0

    def __init__(self, per_minute: int, clock=time.monotonic):
        self.per_minute = per_minute
        self.clock = clock
        self._sent: dict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def wait_s(self, sender: str) -> float:
        """0 (and the query is counted) when `sender` may run a query now, else the seconds until they may."""
        now = self.clock()
        with self._lock:
            times = self._sent[sender]
            while times and now - times[0] >= self.WINDOW_S:
                times.popleft()
            if len(times) >= self.per_minute:
                return self.WINDOW_S - (now - times[0])
            times.append(now)
            return 0.0


# ------------------------------------------------------------------------------ the answerer


@dataclass
class Correction:
    """Why an empty query found nothing, as sentences, and the query with the likely mistakes corrected."""

    notes: list[str]
    literals: dict[tuple[str, str], str] = field(default_factory=dict)  # (value, language) -> rendered literal
    iris: dict[str, str] = field(default_factory=dict)  # IRI -> rendered IRI
    query: str = ""


class SparqlAnswerer:
    """Checks, runs and words SPARQL queries typed into the chat (see the module docstring)."""

    def __init__(self, kg: KG, settings: Settings):
        self.kg = kg
        self.settings = settings
        self.prefixes = dict(kg.bundle.prefixes)
        limited = settings.sparql_rate_per_minute > 0 and reachable_from_outside(settings)
        self.limiter = RateLimiter(settings.sparql_rate_per_minute) if limited else None
        self._runner: LocalRunner | RemoteRunner | None = None
        self._runner_lock = threading.Lock()

    @property
    def runner(self) -> LocalRunner | RemoteRunner:
        with self._runner_lock:
            if self._runner is None:
                graph = self.kg.graph
                if isinstance(graph, RemoteGraph):
                    self._runner = RemoteRunner(graph)
                elif isinstance(graph, LocalGraph):
                    self._runner = LocalRunner(graph.path, self.settings.sparql_memory_mb)
                else:
                    raise StoreError(f"chat queries cannot run on {graph.describe()}")
            return self._runner

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()

    def answer(self, message: SparqlMessage, sender: str, timer) -> Reply:
        """The reply to one SPARQL chat message; `timer` (the agent's) records a "sparql" trace step."""
        with timer.stage("sparql") as detail:
            detail["form"] = message.form
            if not self.settings.sparql_in_chat:
                detail["refused"] = "turned off"
                return Reply(TURNED_OFF, Kind.SPARQL)
            try:
                checked = check_query(message, self.prefixes)
            except QueryRefused as exc:
                detail["refused"] = exc.reason
                return Reply(exc.user_message, Kind.SPARQL)
            if self.limiter is not None and sender:
                wait = self.limiter.wait_s(sender)
                if wait > 0:
                    detail["refused"] = "rate limit"
                    return Reply(f"You have sent {self.limiter.per_minute} SPARQL queries within a minute; please wait "
                                 f"{max(1, round(wait))} s before the next one. Questions in plain words are not limited.", Kind.SPARQL)
            return self._run_and_word(checked, detail)

    def _run(self, query: str, form: str, budget_s: float, detail: dict) -> Outcome:
        if budget_s <= 0:  # the time limit is spent (an explanation's lookups share it)
            return Outcome(form, stopped="time")
        outcome, notes = self.runner.run(query, form, self.settings.sparql_max_rows, self.settings.sparql_count_limit, budget_s)
        detail.update(notes)
        return outcome

    def _run_and_word(self, checked: CheckedQuery, detail: dict) -> Reply:
        limit = self.settings.sparql_time_limit_s
        detail["query"] = checked.runnable
        outcome = self._run(checked.runnable, checked.form, limit, detail)
        detail.update(run_ms=round(outcome.ms, 1), stopped=outcome.stopped)
        if outcome.stopped:
            if outcome.detail:
                log.info("chat query stopped (%s): %s", outcome.stopped, outcome.detail)
            return Reply(self._stopped_text(outcome, limit), Kind.SPARQL, error=outcome.stopped == "engine")
        lead = ""
        if outcome.empty:  # the explanation's lookups and the corrected query share what is left of the time limit
            deadline = time.monotonic() + limit - outcome.ms / 1000
            correction = self._correction(checked, deadline - time.monotonic(), detail)
            if correction is not None:
                lead = "Your query found no results as written. " + " ".join(correction.notes)
                if correction.query:
                    corrected = self._run(correction.query, checked.form, max(deadline - time.monotonic(), 0.5), detail)
                    detail["corrected_query"] = correction.query
                    if corrected.stopped:
                        lead += " The corrected query did not finish within the time limit."
                    elif corrected.empty:
                        lead += " Even with that change, it finds nothing."
                    else:
                        outcome, lead = corrected, lead + " With that change, it finds this:"
        shown = self._shown(checked, outcome)
        text = shown.text if not lead else (lead if outcome.empty else f"{lead}\n{shown.text}")
        detail.update(self._trace(outcome, checked))
        return Reply(text, Kind.SPARQL, answers=shown.answers, facts=self._facts(outcome, checked))

    # --- wording ---------------------------------------------------------------------

    def _label(self, iri: str) -> str | None:
        return self.kg.labels.label_of(iri)

    def _shown(self, checked: CheckedQuery, outcome: Outcome) -> Shown:
        prefixes = checked.prefixes
        if outcome.boolean is not None:
            return ask_text(outcome.boolean)
        if checked.form in ("CONSTRUCT", "DESCRIBE"):
            return triples_text(outcome.rows, outcome.total, outcome.complete, self._label, prefixes)
        return select_text(outcome.variables, outcome.rows, outcome.total, outcome.complete, self._label, prefixes)

    def _stopped_text(self, outcome: Outcome, limit: float) -> str:
        if outcome.stopped == "time":
            return (f"Your query was still running after {limit:g} s, so I stopped it. Narrow it down — fewer unbound "
                    "patterns, a FILTER on an indexed value, or a LIMIT — and try again.")
        if outcome.stopped == "memory":
            return ("Your query needed more memory than a chat query may use, so I stopped it. It probably builds a very "
                    "large intermediate result (a cross product, or ORDER BY over everything); narrow it down and try again.")
        return f"The knowledge graph's SPARQL engine could not run that query: {outcome.detail[:300]}"

    def _facts(self, outcome: Outcome, checked: CheckedQuery) -> list[Fact]:
        """The shown results as facts: one per bound variable of each row, or one per triple."""
        facts = []
        if checked.form in ("CONSTRUCT", "DESCRIBE"):
            for s, p, o in outcome.rows:
                facts.append(Fact(s.value if s else "", cell(s, self._label, checked.prefixes), p.value if p else "",
                                  o.value if o else "", cell(o, self._label, checked.prefixes), source="sparql",
                                  detail={"triple": [n3(node, checked.prefixes) for node in (s, p, o)]}))
            return facts
        for index, row in enumerate(outcome.rows):
            for var, node in zip(outcome.variables, row, strict=True):
                if node is not None:
                    facts.append(Fact("", "", f"?{var}", node.value, cell(node, self._label, checked.prefixes), source="sparql",
                                      detail={"row": index, **_binding(node)}))
        return facts

    def _trace(self, outcome: Outcome, checked: CheckedQuery) -> dict:
        """The results in the SPARQL 1.1 JSON results shape, plus the counts."""
        if outcome.boolean is not None:
            return {"boolean": outcome.boolean}
        if checked.form in ("CONSTRUCT", "DESCRIBE"):
            return {"triples": [[n3(node, checked.prefixes) for node in triple] for triple in outcome.rows],
                    "total": outcome.total, "complete": outcome.complete}
        return {
            "vars": outcome.variables,
            "bindings": [{var: _binding(node) for var, node in zip(outcome.variables, row, strict=True) if node is not None}
                         for row in outcome.rows],
            "total": outcome.total,
            "complete": outcome.complete,
        }

    # --- explaining an empty result --------------------------------------------------

    def _correction(self, checked: CheckedQuery, budget_s: float, detail: dict) -> Correction | None:
        """Why the query probably found nothing, and the corrected query, from a few cheap lookups."""
        if budget_s <= 0:
            return None
        deadline = time.monotonic() + budget_s
        notes: list[str] = []
        literal_fix = self._literal_fix(checked, deadline, detail)
        iri_fix, unknown = self._iri_fix(checked, deadline, detail)
        language = self.kg.bundle.language
        if literal_fix:
            tagged = [v for (v, lang) in literal_fix if not lang]
            untagged = [v for (v, lang) in literal_fix if lang]
            if tagged:
                examples = ", ".join(f"\"{v}\"@{language}" for v in tagged[:3])
                notes.append(f"The knowledge graph's labels carry a language tag, so a plain literal such as \"{tagged[0]}\" "
                             f"matches none of them; write {examples} (with the language tag {language}) instead.")
            if untagged:
                notes.append(f"The knowledge graph has \"{untagged[0]}\" without a language tag, so a tagged literal does "
                             f"not match it; leave out the tag.")
        if iri_fix:
            pairs = [f"{compact(old, checked.prefixes)} is {compact(new, self.prefixes)}"
                     + (f" ({self._label(new)})" if self._label(new) else "") for old, new in list(iri_fix.items())[:3]]
            notes.append("This knowledge graph names its entities with its own IRIs and links them to Wikidata with owl:sameAs: "
                         + "; ".join(pairs) + ".")
        if unknown:
            names = ", ".join(compact(i, checked.prefixes) for i in unknown[:4])
            declared = set(self.prefixes.values())
            foreign = [i for i in unknown if not any(i.startswith(ns) for ns in declared)]
            sentence = f"{names} {'occurs' if len(unknown) == 1 else 'occur'} nowhere in the knowledge graph"
            if foreign:
                sentence += ("; its bundle declares the namespaces " + ", ".join(f"{p}:" for p in self.prefixes)
                             + f", and {compact(foreign[0], checked.prefixes)} is in none of them")
            notes.append(sentence + ".")
        if not notes:
            return None
        correction = Correction(notes, {k: queries.literal(k[0], lang=(language if not k[1] else None)) for k in literal_fix},
                                {old: queries.iri(new) for old, new in iri_fix.items()})
        if correction.literals or correction.iris:
            text = rewritten(checked, correction.literals, correction.iris)
            try:
                correction.query = check_query(SparqlMessage(text, checked.form), self.prefixes).runnable
            except QueryRefused:  # the rewrite broke the query: explain, but run nothing
                log.warning("the corrected chat query does not parse: %r", text[:300])
        return correction

    def _literal_fix(self, checked: CheckedQuery, deadline: float, detail: dict) -> list[tuple[str, str]]:
        """The string literals of the query (value, language) that occur nowhere while their other form does."""
        language = self.kg.bundle.language
        candidates = [(value, lang) for value, lang, _ in checked.literals][:MAX_HINT_TERMS]
        if not candidates:
            return []
        alternatives = [(value, "" if lang else language) for value, lang in candidates]
        outcome = self._run(queries.present_literals(candidates + alternatives), "SELECT", deadline - time.monotonic(), detail)
        present = {(node.value, node.lang) for row in outcome.rows for node in row if node is not None}
        return [c for c, alt in zip(candidates, alternatives, strict=True) if c not in present and alt in present]

    def _iri_fix(self, checked: CheckedQuery, deadline: float, detail: dict) -> tuple[dict[str, str], list[str]]:
        """IRIs of the query mapped to the KG's own entities by owl:sameAs, and the IRIs that occur nowhere."""
        candidates = [i for i in checked.iris if not i.startswith(VOCABULARIES) and is_safe_iri(i)][:MAX_HINT_TERMS]
        if not candidates:
            return {}, []
        mapped: dict[str, str] = {}
        if OWL_SAME_AS not in checked.iris:
            outcome = self._run(queries.same_as(candidates), "SELECT", deadline - time.monotonic(), detail)
            for x, e in outcome.rows:  # prefer a partner the label index knows
                if x is None or e is None or not e.is_iri or e.value == x.value:
                    continue
                if x.value not in mapped or (self._label(e.value) and not self._label(mapped[x.value])):
                    mapped[x.value] = e.value
        rest = [i for i in candidates if i not in mapped]
        unknown: list[str] = []
        if rest:
            outcome = self._run(queries.absent_iris(rest), "SELECT", deadline - time.monotonic(), detail)
            absent = {row[0].value for row in outcome.rows if row[0] is not None}
            unknown = [i for i in rest if i in absent]
        return mapped, unknown


def _binding(node: Node) -> dict:
    """A term as in the SPARQL 1.1 JSON results format."""
    if node.is_iri:
        return {"type": "uri", "value": node.value}
    if node.datatype == "bnode":
        return {"type": "bnode", "value": node.value}
    binding = {"type": "literal", "value": node.value}
    if node.lang:
        binding["xml:lang"] = node.lang
    elif node.datatype:
        binding["datatype"] = node.datatype
    return binding

