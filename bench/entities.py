"""Entity layer benchmark on MetaQA dev: span exact-match, linked IRI, typo robustness, latency, hits@1.

    .venv/bin/python bench/entities.py --kg /tmp/ner-mq --cache-dir /tmp/ner-cache [--n 600] [--seed 1]

MetaQA dev questions mark the topic entity with [brackets]. For a seeded sample of each
hop's questions (brackets stripped) it prints:
  * span exact-match: the linked entity's span starts where the bracket did and has its words;
  * linked IRI: the linked entity is the bracketed name in the question type's role;
  * typo robustness: the same, with 1-2 seeded character edits inside the entity name;
  * entity-layer latency (candidate spans: NER + validation + fallback), wall and thread CPU;
  * hits@1 of the whole agent with the NER layer and with the label-index search alone.
With --f1 it also trains a tagger on the KG minus 1,500 held-out titles and names and
prints its span F1 on sentences made with the held-out ones (a few minutes).
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.agent import Agent  # noqa: E402
from bot.core.config import load_settings  # noqa: E402
from bot.core.text import normalize, tokens  # noqa: E402
from bot.kg.importers.metaqa import BASE  # noqa: E402
from bot.kg.importers.rdfio import iri_for  # noqa: E402
from bot.replay import Score, _norm  # noqa: E402

BRACKET = re.compile(r"\[([^\]]*)\]")
ROLES = {"movie": "film", "actor": "person", "writer": "person", "director": "person", "tag": "tag"}


def sample(hop_dir: Path, n: int, seed: int) -> list[dict]:
    """`n` questions of one hop: stripped text, the entity's character span, gold IRI and answers."""
    lines = (hop_dir / "qa_dev.txt").read_text(encoding="utf-8").splitlines()
    qtypes = (hop_dir / "qa_dev_qtype.txt").read_text(encoding="utf-8").splitlines()
    picked = random.Random(seed).sample(range(len(lines)), min(n, len(lines)))
    items = []
    for k in picked:
        question, _, gold = lines[k].partition("\t")
        match = BRACKET.search(question)
        if match is None:
            continue
        start = match.start()
        name = match.group(1)
        text = question[:start] + name + question[match.end() :]
        text = BRACKET.sub(r"\1", text)
        role = ROLES[qtypes[k].split("_")[0]]
        items.append({"text": text, "start": start, "end": start + len(name), "name": name,
                      "iri": iri_for(BASE, role, name), "gold": {_norm(g) for g in gold.split("|") if g}})
    return items


def with_typos(item: dict, rng: random.Random) -> dict:
    from bot.understanding.ner.sentences import typo

    name = typo(rng, item["name"], rng.randint(1, 2))
    text = item["text"][: item["start"]] + name + item["text"][item["end"] :]
    return {**item, "text": text, "end": item["start"] + len(name), "name": name}


def linked(agent: Agent, item: dict, trace: dict | None = None):
    understanding = agent.understander.understand(item["text"], trace)
    return understanding.entities[0] if understanding.entities else None


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def entity_figures(agent: Agent, items: list[dict], rng: random.Random) -> dict:
    span_ok = iri_ok = typo_ok = from_ner = 0
    wall, cpu = [], []
    for item in items:
        trace: dict = {}
        entity = linked(agent, item, trace)
        from_ner += trace.get("spans_from") == "ner"
        # the tokens drop punctuation, so "Shall We Dance?" is extracted as "Shall We Dance"
        span_ok += entity is not None and entity.start == item["start"] and normalize(entity.text) == normalize(item["name"])
        iri_ok += entity is not None and entity.iri == item["iri"]
        typo_entity = linked(agent, with_typos(item, rng))
        typo_ok += typo_entity is not None and typo_entity.iri == item["iri"]
        toks = tokens(item["text"])
        w, c = time.perf_counter(), time.thread_time()
        agent.understander.candidate_spans(item["text"], toks)
        cpu.append((time.thread_time() - c) * 1000)
        wall.append((time.perf_counter() - w) * 1000)
    n = len(items)
    return {"span_em": span_ok / n, "iri": iri_ok / n, "typo_iri": typo_ok / n, "ner_used": from_ner / n,
            "p50_ms": statistics.median(wall), "p95_ms": percentile(wall, 0.95),
            "cpu_p50_ms": statistics.median(cpu), "cpu_p95_ms": percentile(cpu, 0.95)}


def hits_at_1(agent: Agent, items: list[dict]) -> float:
    score = Score()
    for item in items:
        score.add(agent.answer(item["text"]).answers, item["gold"])
    return score.summary()["hits@1"]


def heldout_f1(agent: Agent) -> None:
    from bot.understanding.ner.plan import TrainingPlan
    from bot.understanding.ner.sentences import NerDataGenerator
    from bot.understanding.ner.tagger import NerTagger, flair_sentence, train_tagger

    labels = agent.kg.labels
    titles = sorted(l for l, g in zip(labels.labels, labels.groups) if g == "film")
    persons = sorted(l for l, g in zip(labels.labels, labels.groups) if g == "person")
    rng = random.Random(5)
    rng.shuffle(titles)
    rng.shuffle(persons)
    settings = agent.settings
    from bot.understanding.ner.plan import training_plan

    plan: TrainingPlan = training_plan(settings, len(titles) + len(persons))
    train = NerDataGenerator(agent.kg.bundle, titles[1500:], persons[1500:], seed=plan.seed).examples(plan.sentences)
    test = NerDataGenerator(agent.kg.bundle, titles[:1500], persons[:1500], seed=99).examples(500)
    out = Path(settings.cache_dir) / "bench-ner-heldout.pt"
    w, c = time.perf_counter(), time.process_time()
    train_tagger(train, plan, out)
    print(f"held-out tagger: {plan.backbone}, {plan.sentences} sentences x {plan.epochs} epochs, "
          f"trained in {time.perf_counter() - w:.0f} s wall / {time.process_time() - c:.0f} s CPU, {out.stat().st_size / 1e6:.1f} MB")
    tagger = NerTagger.load(out)
    result = tagger.model.evaluate([flair_sentence(e) for e in test], gold_label_type="ner", mini_batch_size=32)
    print(f"span F1 on unseen titles and names: {result.main_score:.4f}")
    out.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kg", required=True, help="the MetaQA bundle (moviebot import metaqa)")
    parser.add_argument("--cache-dir", default=None)
    parser.add_argument("--metaqa", default=str(Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "metaqa"))
    parser.add_argument("--n", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hops", default="1,2,3", help="comma-separated hops; empty for none")
    parser.add_argument("--no-hits", action="store_true", help="skip the hits@1 comparison")
    parser.add_argument("--f1", action="store_true", help="also train a held-out tagger and print its span F1")
    args = parser.parse_args()
    settings = load_settings().with_overrides(kg=str(Path(args.kg).resolve()), cache_dir=args.cache_dir).without("phrasing")
    agent = Agent.from_settings(settings)
    agent.wait_ready()
    manifest = agent.kg.folder / "ner" / "manifest.json"
    if manifest.is_file():
        print(f"NER model: {manifest.read_text().strip()}")
    index_only = Agent.from_settings(settings.without("ner"))
    for hop in filter(None, args.hops.split(",")):
        items = sample(Path(args.metaqa) / f"{hop}-hop", args.n, args.seed)
        figures = entity_figures(agent, items, random.Random(args.seed))
        print(f"{hop}-hop n={len(items)}  span EM {figures['span_em']:.4f}  IRI {figures['iri']:.4f}  "
              f"typo IRI {figures['typo_iri']:.4f}  NER spans used {figures['ner_used']:.3f}  "
              f"entity layer p50 {figures['p50_ms']:.1f} ms p95 {figures['p95_ms']:.1f} ms "
              f"(thread CPU p50 {figures['cpu_p50_ms']:.1f} p95 {figures['cpu_p95_ms']:.1f})")
        if not args.no_hits:
            print(f"{hop}-hop hits@1  with NER {hits_at_1(agent, items):.4f}  label index only {hits_at_1(index_only, items):.4f}")
    if args.f1:
        heldout_f1(agent)


if __name__ == "__main__":
    main()
