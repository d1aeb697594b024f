"""The process that runs SPARQL queries typed into the chat, apart from the bot.

A query can run for as long as it likes inside pyoxigraph (which has no timeout of its own),
and a thread cannot be stopped; a process can. So the bot sends each chat query to one of
these workers over a pipe, and kills the worker when the time limit passes — the bot's own
threads go on answering meanwhile. The worker is started as a script
(`python sparql_worker.py STORE`), imports nothing of moviebot (only pyoxigraph) and
protects the store and the network by construction:

* the store is opened read-only (a query cannot change it: pyoxigraph's `query` runs no
  updates, and a read-only store refuses writes anyway);
* where the kernel allows it (root, or unprivileged user namespaces), the worker moves into
  a network namespace of its own, so even a federated `SERVICE` call that slipped past the
  bot's check finds no network to reach;
* its address space is capped (`--memory-mb`), so a query that materialises a huge result
  fails instead of starving the machine;
* it ends with the bot's process (`--parent`), even in the middle of a query.

Protocol, one JSON object per line: the worker says {"ready": true, "isolated": bool} once
the store is open; a request is {"query", "rows", "count", "budget_s"}; the answer is
{"head": ...} with at most `rows` results as soon as it has them, then {"total": n,
"complete": bool} once it has counted up to `count` results or spent `budget_s`. Errors are
{"error": message}. The worker ends when its input closes (the bot exited or let it go).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import sys
import threading
import time

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
COUNT_CHECK_EVERY = 256  # results counted between looks at the clock


def isolate_network() -> bool:
    """Move this process into an empty network namespace; False where the kernel does not allow it."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return False
    for flags in (CLONE_NEWNET, CLONE_NEWUSER | CLONE_NEWNET):
        if libc.unshare(flags) == 0:
            return True
    return False


def exit_with_parent(parent: int) -> None:
    """End this worker when the bot's process is gone: a worker killed mid-query never reads the end of
    its input, so it watches its parent instead (pyoxigraph releases the GIL while it evaluates)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def cap_memory(megabytes: int) -> None:
    if megabytes > 0:
        limit = megabytes * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def term(node) -> list | None:
    """A pyoxigraph term as [kind, value, datatype, language]; nested triples as their N-Triples text."""
    import pyoxigraph

    if node is None:
        return None
    if isinstance(node, pyoxigraph.NamedNode):
        return ["iri", node.value, "", ""]
    if isinstance(node, pyoxigraph.Literal):
        return ["literal", node.value, node.datatype.value, node.language or ""]
    if isinstance(node, pyoxigraph.BlankNode):
        return ["bnode", node.value, "", ""]
    return ["triple", str(node), "", ""]


def triple_terms(triple) -> list:
    return [term(triple.subject), term(triple.predicate), term(triple.object)]


def run(store, request: dict, send) -> None:
    """Answer one request: the head as soon as it is known, then the count."""
    import pyoxigraph

    started = time.monotonic()
    deadline = started + float(request["budget_s"])
    rows_wanted = max(1, int(request["rows"]))
    count_limit = max(int(request["count"]), rows_wanted)
    result = store.query(request["query"])
    if isinstance(result, pyoxigraph.QueryBoolean):
        send({"head": {"boolean": bool(result)}, "total": 1, "complete": True})
        return
    if isinstance(result, pyoxigraph.QuerySolutions):
        names = [v.value for v in result.variables]
        head = {"vars": names, "rows": []}
        convert = lambda solution: [term(solution[name]) for name in names]
    else:  # QueryTriples (CONSTRUCT, DESCRIBE)
        head = {"triples": []}
        convert = triple_terms
    shown = head["rows"] if "rows" in head else head["triples"]
    total = 0
    iterator = iter(result)
    for item in iterator:
        shown.append(convert(item))
        total += 1
        if total >= rows_wanted:
            break
    else:
        send({"head": head, "total": total, "complete": True})
        return
    send({"head": head})
    complete = True
    for _ in iterator:
        total += 1
        if total % COUNT_CHECK_EVERY == 0 and time.monotonic() > deadline:
            complete = False
            break
        if total >= count_limit:
            complete = next(iterator, None) is None
            break
    send({"total": total, "complete": complete})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--memory-mb", type=int, default=0)
    parser.add_argument("--parent", type=int, default=0, help="the bot's process id: the worker ends with it")
    parser.add_argument("--no-isolation", action="store_true", help="keep the network namespace (for measurements)")
    args = parser.parse_args(argv)
    if args.parent:
        exit_with_parent(args.parent)
    isolated = False if args.no_isolation else isolate_network()
    import pyoxigraph

    out = sys.stdout

    def send(message: dict) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    try:
        store = pyoxigraph.Store.read_only(args.store)
    except OSError as exc:
        send({"error": f"cannot open the store: {exc}"})
        return 1
    cap_memory(args.memory_mb)
    send({"ready": True, "isolated": isolated, "pid": os.getpid()})
    for line in sys.stdin:
        try:
            request = json.loads(line)
            run(store, request, send)
        except MemoryError:
            send({"error": "the query needs more memory than a chat query may use"})
        except SyntaxError as exc:
            send({"error": f"syntax: {exc}"})
        except Exception as exc:  # noqa: BLE001 - any failure of one query is reported, and the worker goes on
            send({"error": f"{type(exc).__name__}: {exc}"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
