"""The NER build step: train the tagger on sentences generated from the KG, or reuse the cached one."""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path

from bot.core.cache import progress, read_manifest, write_manifest
from bot.core.config import Settings
from bot.kg.bundle import Bundle
from bot.kg.labels import LabelIndex
from bot.understanding.ner.plan import batches, training_plan
from bot.understanding.ner.sentences import NerDataGenerator

MODEL_FILE = "tagger.pt"


def build_step(settings: Settings, bundle: Bundle, folder: Path, key: str, quiet: bool = False, force: bool = False) -> Path | None:
    """Train (or reuse) the NER model for this KG; returns the model file (None when a model file is configured)."""
    if settings.ner_model:
        return None
    labels = LabelIndex.load(folder / "labels.pkl")
    titles = [labels.labels[i] for i, group in enumerate(labels.groups) if group == "film"]
    persons = [labels.labels[i] for i, group in enumerate(labels.groups) if group == "person"]
    plan = training_plan(settings, len(titles) + len(persons))
    ner_dir = folder / "ner"
    model_file = ner_dir / MODEL_FILE
    plan_key = plan.key(key, bundle.schema_hash())
    if not force and model_file.is_file() and read_manifest(ner_dir).get("key") == plan_key:
        return model_file
    ner_dir.mkdir(parents=True, exist_ok=True)
    import torch

    from bot.understanding.ner.tagger import train_tagger

    torch.set_num_threads(max(1, settings.torch_threads))
    examples = NerDataGenerator(bundle, titles, persons, seed=plan.seed).examples(plan.sentences)
    started, cpu = time.perf_counter(), time.process_time()
    with progress() as bar:
        task = bar.add_task(f"NER tagger ({plan.backbone}, {plan.sentences} sentences)", total=batches(plan), visible=not quiet)
        tmp = ner_dir / f"{MODEL_FILE}.tmp"
        train_tagger(examples, plan, tmp, on_batch=lambda: bar.advance(task))
        tmp.replace(model_file)
    write_manifest(ner_dir, key=plan_key, train_seconds=round(time.perf_counter() - started),
                   train_cpu_seconds=round(time.process_time() - cpu), **asdict(plan))
    return model_file
