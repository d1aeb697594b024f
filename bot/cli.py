"""The `moviebot` command line."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from .bundle import BundleError
from .config import ConfigError, Settings, load_settings
from .store import StoreError

app = typer.Typer(help="moviebot: an offline chatbot that answers film questions from an RDF knowledge graph.", no_args_is_help=True)
import_app = typer.Typer(help="Turn other KG layouts into moviebot bundles.", no_args_is_help=True)
app.add_typer(import_app, name="import")
err = Console(stderr=True)
out = Console()

KG_OPTION = typer.Option(None, "--kg", help="Bundle folder or SPARQL endpoint URL (default: the bundled demo KG in kg/).")
CONFIG_OPTION = typer.Option(None, "--config", help="TOML config file (also MOVIEBOT_CONFIG).")


class State:
    settings: Settings


state = State()


@app.callback()
def main(
    config: Optional[Path] = CONFIG_OPTION,
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", help="Where built stores and models are cached."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log more."),
):
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        state.settings = load_settings(config).with_overrides(cache_dir=str(cache_dir) if cache_dir else None)
    except ConfigError as exc:
        err.print(f"[red]config error:[/red] {exc}")
        raise typer.Exit(2)


def settings_for(kg: Optional[str], **overrides) -> Settings:
    settings = state.settings.with_overrides(kg=kg, **overrides)
    if settings.kg and not settings.kg.startswith(("http://", "https://")):
        settings = settings.with_overrides(kg=str(Path(settings.kg).resolve()))
    return settings


def fail(message: str, code: int = 1):
    err.print(f"[red]error:[/red] {message}")
    raise typer.Exit(code)


def make_agent(settings: Settings):
    from .agent import Agent

    try:
        return Agent.from_settings(settings)
    except (BundleError, StoreError, FileNotFoundError) as exc:
        fail(str(exc))


@import_app.command("metaqa")
def import_metaqa_cmd(kb: Path = typer.Argument(..., help="MetaQA kb.txt"), out_dir: Path = typer.Argument(..., help="Bundle folder to write")):
    """Import the WikiMovies/MetaQA KB (head|relation|tail lines)."""
    from .importers.metaqa import import_metaqa

    if not kb.is_file():
        fail(f"{kb} does not exist")
    report = import_metaqa(kb, out_dir)
    out.print(f"wrote {out_dir}/graph.nt: {report.triples:,} triples from {report.lines:,} lines; entities: {report.entities}")
    if report.skipped:
        err.print(f"[yellow]skipped {len(report.skipped)} malformed lines[/yellow], e.g. {report.skipped[:3]}")


@import_app.command("atai")
def import_atai_cmd(src: Path = typer.Argument(..., help="Folder in the course layout (14_graph.nt, ...)"), out_dir: Path = typer.Argument(...)):
    """Import the university course's Wikidata movie-graph layout."""
    from .importers.atai import import_atai

    try:
        report = import_atai(src, out_dir)
    except (FileNotFoundError, ValueError) as exc:
        fail(str(exc))
    out.print(report)


@app.command()
def build(
    bundle: Optional[str] = typer.Argument(None, help="Bundle folder (same as --kg)."),
    kg: Optional[str] = KG_OPTION,
    force: bool = typer.Option(False, "--force", help="Rebuild even if the cache is fresh."),
):
    """Build the persistent store, label index and models for a KG (cached by content hash)."""
    from .kg import build as build_kg

    settings = settings_for(bundle or kg)
    try:
        folder = build_kg(settings, force=force)
    except (BundleError, StoreError) as exc:
        fail(str(exc))
    out.print(f"built {settings.kg} into {folder}")


@app.command()
def ask(
    question: str = typer.Argument(..., help="The question."),
    kg: Optional[str] = KG_OPTION,
    as_json: bool = typer.Option(False, "--json", help="Print the whole reply as JSON."),
    no_llm: bool = typer.Option(False, "--no-llm", help="Use template sentences only."),
):
    """Answer one question."""
    agent = make_agent(settings_for(kg, llm=False if no_llm else None))
    reply = agent.answer(question)
    if as_json:
        out.print_json(json.dumps(reply.to_json(), ensure_ascii=False))
    else:
        print(reply.text)


@app.command()
def chat(kg: Optional[str] = KG_OPTION, no_llm: bool = typer.Option(False, "--no-llm")):
    """Chat in the terminal (Ctrl-D or 'quit' to leave)."""
    from .agent import Conversation

    settings = settings_for(kg, llm=False if no_llm else None)
    agent = make_agent(settings)
    conversation = Conversation(room="terminal")
    out.print(f"[bold]moviebot[/bold] on {agent.kg.bundle.name} ({agent.kg.graph.describe()}). Ask about films; 'quit' to leave.")
    while True:
        try:
            text = input("you> ")
        except (EOFError, KeyboardInterrupt):
            out.print()
            break
        if text.strip().lower() in {"quit", "exit"}:
            break
        reply = agent.answer(text, conversation)
        out.print(f"[bold green]bot>[/bold green] {reply.text}", highlight=False)


@app.command()
def replay(
    file: Path = typer.Argument(..., help="Questions: question<TAB>gold1|gold2 (MetaQA format)."),
    out_file: Path = typer.Option(Path("answers.jsonl"), "--out", help="Where to write one JSON object per question."),
    qtypes: Optional[Path] = typer.Option(None, "--qtypes", help="Question-type file, one type per line."),
    strip_brackets: bool = typer.Option(False, "--strip-brackets", help="Remove the [ ] around topic entities."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N questions."),
    kg: Optional[str] = KG_OPTION,
    no_llm: bool = typer.Option(True, "--no-llm/--llm", help="Phrase with the LLM (slower)."),
):
    """Replay a question file and score the answers (hits@1, P/R/F1, per type, latency)."""
    from .cache import progress
    from .replay import read_questions, replay as run_replay

    if not file.is_file():
        fail(f"{file} does not exist")
    questions = read_questions(file, limit)
    types = qtypes.read_text(encoding="utf-8").splitlines()[: len(questions)] if qtypes else None
    if types is not None and len(types) < len(questions):
        fail(f"{qtypes} has {len(types)} lines for {len(questions)} questions")
    agent = make_agent(settings_for(kg, llm=not no_llm))
    with open(out_file, "w", encoding="utf-8") as fh, progress(transient=True) as bar:
        task = bar.add_task("replaying", total=len(questions))
        result = run_replay(agent, questions, fh, types, strip_brackets, on_progress=lambda: bar.advance(task))
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


def run() -> None:
    try:
        app()
    except (BundleError, ConfigError, StoreError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        sys.exit(1)


if __name__ == "__main__":
    run()
