"""The reader's role tagger: how well it labels words of text written in styles it was not trained on.

    .venv/bin/python bench/reader.py [--kg BUNDLE] [--train 12000] [--test 1500] [--seed 7]

Generated questions of the demo KG (or BUNDLE) are augmented in named styles (bot.understanding.reader.augment).
For each held-out group of styles below, a tagger is trained on text made with the other styles only and tested on
text made with the held-out ones: per-role precision / recall / F1 and the share of messages whose every word got
its role. The last row trains on every style (the shipped model) and tests on fresh text of every style. Then the
tagging latency per message (features + CRF, median and p95), and the precision / recall curve of the calibrated
trust in readings that leave unknown words (bot.understanding.reader.trust) on generated questions it never saw,
beside the hand rule it replaced. Nothing here reads a question file: the text is generated, with a seed.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.agent import Agent  # noqa: E402
from bot.core.config import load_settings  # noqa: E402
from bot.understanding.reader.augment import STYLES, augmented  # noqa: E402
from bot.understanding.reader.build import exact_names, trust_examples  # noqa: E402
from bot.understanding.reader.corpus import Generator, KgFacts, Role  # noqa: E402
from bot.understanding.reader.tagger import Features, RoleTagger, train  # noqa: E402

HELD_OUT = {
    "stories and asides": ("story", "aside"),
    "politeness, hedges, fillers": ("polite", "hedge", "filler"),
    "descriptions": ("describe",),
    "chat, typos, confusions, case": ("chat", "typos", "confusions", "lower", "upper"),
    "non-native wording": ("non_native",),
    "several questions": ("several",),
}


def score(tagger: RoleTagger, names_of, examples) -> tuple[dict[Role, tuple[float, float, float, int]], float, list[float]]:
    confusion: Counter = Counter()
    whole, times = 0, []
    for example in examples:
        text, toks, gold = example.roles()
        if not toks:
            continue
        started = time.perf_counter()
        got = tagger.tag(text, toks, names_of(text, toks)).roles
        times.append((time.perf_counter() - started) * 1000)
        confusion.update(zip(gold, got))
        whole += all(g is p for g, p in zip(gold, got))
    per_role = {}
    for role in Role:
        tp = confusion[role, role]
        fp = sum(n for (g, p), n in confusion.items() if p is role and g is not role)
        fn = sum(n for (g, p), n in confusion.items() if g is role and p is not role)
        precision, recall = tp / max(1, tp + fp), tp / max(1, tp + fn)
        per_role[role] = (precision, recall, 2 * precision * recall / max(1e-9, precision + recall), tp + fn)
    return per_role, whole / max(1, len(times)), times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kg", default=None, help="a bundle folder (default: the demo KG)")
    parser.add_argument("--train", type=int, default=12_000, help="training messages per model")
    parser.add_argument("--test", type=int, default=1_500, help="test messages per held-out group")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--trust", type=int, default=20_000, help="generated questions for the trust curve")
    args = parser.parse_args()
    settings = load_settings(None, **({"kg": args.kg} if args.kg else {})).without("phrasing", "ner", "embeddings", "crowd", "images")
    agent = Agent.from_settings(settings)
    understander = agent.understander
    vocabulary = understander.reader_vocabulary
    names_of = exact_names(understander.mentions, vocabulary.wording)
    features = Features(vocabulary)
    facts = KgFacts(agent.kg)
    every = tuple(STYLES)
    print(f"{'held out':28} {'trained on':>10} | {'ctx P/R/F1':>17} | {'desc P/R/F1':>17} | {'name F1':>7} | {'ask F1':>6} | all words")
    rows = [(name, tuple(s for s in every if s not in held), held) for name, held in HELD_OUT.items()]
    rows.append(("(none: every style)", every, every))
    latency: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        for name, trained_on, tested_on in rows:
            path = Path(folder) / "reader.crfsuite"
            train(augmented(Generator(agent.kg.bundle, facts, seed=args.seed), args.train, trained_on), features, names_of, path)
            tagger = RoleTagger(path, features)
            test = augmented(Generator(agent.kg.bundle, facts, seed=args.seed + 1000), args.test, tested_on)
            test = [e for e in test if set(e.styles) & set(tested_on)]  # every test message shows a held-out style
            per_role, whole, times = score(tagger, names_of, test)
            latency = times
            ctx, desc = per_role[Role.CTX], per_role[Role.DESC]
            print(f"{name:28} {len(trained_on):>4} styles | {ctx[0]:.2f} {ctx[1]:.2f} {ctx[2]:.2f}  | {desc[0]:.2f} {desc[1]:.2f} {desc[2]:.2f}  | "
                  f"{per_role[Role.NAME][2]:>7.3f} | {per_role[Role.ASK][2]:>6.3f} | {whole:.1%} of {len(test)}")
    ordered = sorted(latency)
    print(f"\ntagging latency per message: median {statistics.median(ordered):.2f} ms, p95 {ordered[int(0.95 * (len(ordered) - 1))]:.2f} ms "
          f"(features + CRF, {len(ordered)} messages)")
    trust_curve(understander, agent.kg, args.trust, args.seed + 2000)


def trust_curve(understander, kg, count: int, seed: int) -> None:
    """Precision / recall of answering readings that leave unknown words, on generated questions the trust model never
    saw: by the model's probability, the hand rule (classifier probability >= 0.2) and the shipped threshold."""
    rows = trust_examples(understander, kg, count, seed=seed)
    model = understander.scorer.trust
    scored = [(model.probability(features), math.exp(features["log_probability"]), right) for features, right in rows]
    right_total = sum(r for _, _, r in scored)

    def line(name: str, taken: list[bool]) -> str:
        kept = [r for (_, _, r), t in zip(scored, taken) if t]
        precision = sum(kept) / len(kept) if kept else 1.0
        return f"  {name:34} answers {len(kept):4}  precision {precision:.3f}  recall {sum(kept) / max(1, right_total):.3f}"

    print(f"\ncalibrated trust: {len(rows)} readings that leave unknown words ({right_total} right) of {count} generated questions")
    for threshold in (0.0, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95):
        print(line(f"model >= {threshold:.2f}", [p >= threshold for p, _, _ in scored]))
    print(line(f"shipped threshold {model.threshold:.3f}", [p >= model.threshold for p, _, _ in scored]))
    print(line("hand rule (classifier >= 0.2)", [c >= 0.2 for _, c, _ in scored]))


if __name__ == "__main__":
    main()
