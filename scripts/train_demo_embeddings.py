#!/usr/bin/env python3
"""Train the demo KG's TransE embeddings into ``embeddings/``, so the bot need not train them at start.

Builds the store of the bundle in ``kg/`` and runs the bot's own embeddings build step
(bot/answering/embeddings/artefacts.py) on it, ignoring the vectors shipped so far, then
copies the result into ``embeddings/``: ``entity_ids.del``, ``relation_ids.del``,
``entity_embeds.npy``, ``relation_embeds.npy`` (the university course's layout) and the
``manifest.json`` the build step writes, which records the hash of the graph the vectors
were trained from. The bot uses the shipped vectors only while that hash matches the graph,
so re-run this script whenever ``scripts/compile_demo_kg.py`` changed ``kg/graph.ttl``
(``tests/test_demo_embeddings.py`` fails until then).

The default settings (128 dimensions, 12 epochs, seed 0) and one torch thread make the
output deterministic: the same graph and code give the same bytes.

Usage::

    .venv/bin/python scripts/train_demo_embeddings.py [--kg kg] [--out embeddings] [--seed 0]
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import sys
import tempfile
from pathlib import Path

from bot.answering.embeddings.artefacts import FOLDER, build_step
from bot.answering.embeddings.vectors import COURSE_FILES
from bot.core.cache import read_manifest
from bot.core.config import Settings
from bot.kg.bundle import load_bundle
from bot.kg.graph import cache_folder
from bot.kg.store import build_store

REPO = Path(__file__).resolve().parent.parent
MANIFEST = "manifest.json"


def train(kg: Path, out: Path, seed: int = 0) -> dict:
    """Train embeddings for the bundle in `kg` into `out`; return their manifest."""
    with tempfile.TemporaryDirectory(prefix="moviebot-demo-embeddings-") as scratch:
        settings = Settings(kg=str(kg), cache_dir=scratch, features=("embeddings",), embedding_seed=seed, torch_threads=1)
        # without the shipped vectors, so the build step trains instead of validating them
        bundle = dataclasses.replace(load_bundle(kg), embeddings=None)
        folder, key = cache_folder(bundle, settings)
        build_store(bundle, folder)
        build_step(settings, bundle, folder, key, force=True)
        built = folder / FOLDER
        manifest = read_manifest(built)
        if manifest.get("graph") != key or manifest.get("source") != "trained":
            raise RuntimeError(f"the build step wrote no trained embeddings into {built} (is torch installed?)")
        out.mkdir(parents=True, exist_ok=True)
        for name in (*COURSE_FILES, MANIFEST):
            shutil.copyfile(built / name, out / name)
    return manifest


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kg", type=Path, default=REPO / "kg", help="the bundle folder (default: kg/)")
    parser.add_argument("--out", type=Path, default=REPO / "embeddings", help="where the vectors go (default: embeddings/)")
    parser.add_argument("--seed", type=int, default=0, help="the TransE seed (default: 0)")
    args = parser.parse_args(argv)
    manifest = train(args.kg.resolve(), args.out.resolve(), args.seed)
    print(
        f"train_demo_embeddings: {manifest['entities']:,} entities, {manifest['triples']:,} triples, "
        f"{manifest['settings']['dim']} dimensions, graph {manifest['graph'][:12]} -> {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
