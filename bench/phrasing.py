"""LLM phrasing on MetaQA dev and the demo KG: which path each answer took, guard failures,
an independent audit of what users see, phrasing and end-to-end latency, and memory.

Three quarters of the answers come from MetaQA dev questions (half 1-hop, a quarter each
2- and 3-hop, evenly spaced, brackets stripped), one quarter from 1-hop questions composed
from the demo KG's phrasings about its films and people. Every reply is audited apart from
the guard: each number must occur in the facts, the question or the template sentence, and
each KG label the reply mentions (any class, any case) must occur there too.

    .venv/bin/python bench/phrasing.py                 # 200 answers (a few minutes)
    .venv/bin/python bench/phrasing.py --n 1000        # the issue's 1,000
    .venv/bin/python bench/phrasing.py --busy-neighbour  # with another program spinning on one core
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from metaqa_accuracy import SHARED, dev_questions, metaqa_settings  # noqa: E402
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS  # noqa: E402

from bot.agent import Agent  # noqa: E402
from bot.core.config import DEFAULT_KG, load_settings  # noqa: E402
from bot.core.contracts import Facts, Sentence  # noqa: E402
from bot.core.text import normalize  # noqa: E402
from bot.generation.phrasing.guard import FaithfulnessGuard  # noqa: E402
from bot.generation.phrasing.model import load_model  # noqa: E402
from bot.generation.phrasing.phraser import Phraser  # noqa: E402
from bot.generation.phrasing.prompt import PRIMER  # noqa: E402

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class Recorder:
    """Wraps the phraser to keep the facts and template of the last answer for the audit."""

    def __init__(self, inner: Phraser):
        self.inner = inner
        self.last: tuple[Facts, Sentence] | None = None
        self.cpu_ms = 0.0

    def phrase(self, facts: Facts, sentence: Sentence, detail: dict) -> Sentence:
        self.last = (facts, sentence)
        cpu0 = time.process_time()
        try:
            return self.inner.phrase(facts, sentence, detail)
        finally:
            self.cpu_ms = (time.process_time() - cpu0) * 1000


def numbers(text: str) -> set[str]:
    return {re.sub(r",(?=\d{3})", "", m.group()).rstrip(".,") for m in _NUMBER.finditer(text)}


def relation_words(bundle) -> set[str]:
    """Words that name a kind of value, not a value ('writer', 'film'): some KGs also have them as tags."""
    nouns = {"film", "films", "movie", "movies"}
    for rel in bundle.relations.values():
        nouns |= {normalize(rel.noun), normalize(rel.plural)}
        nouns |= {normalize(s) + plural for s in rel.synonyms for plural in ("", "s")}
    return nouns


def audit(text: str, facts: Facts, template: str, labels, generic: set[str]) -> list[str]:
    """Numbers and KG labels in `text` that the facts, the question and the template do not contain."""
    allowed_text = " ".join(
        [facts.question, template, *(a.label for a in facts.answers), *(e.label for e in facts.topic)]
        + [f"{f.subject_label} {f.value_label}" for f in facts.facts]
    )
    allowed_numbers = numbers(allowed_text) | {str(e.year) for e in facts.topic if e.year} | {str(len(facts.answers))}
    flags = [f"number {n}" for n in sorted(numbers(text) - allowed_numbers)]
    allowed = f" {normalize(allowed_text)} "
    shown = normalize(re.sub(r"'s\b", "", text)).split()  # a possessive is no tag "s"
    # words inside a mention of the facts' own names and titles are that mention, not another entity, and
    # words inside a relation's own noun ("cast" in "cast members", "original" in "original language") are that noun
    known = [normalize(x) for x in [*(a.label for a in facts.answers), *(e.label for e in facts.topic), *(f.value_label for f in facts.facts)]]
    known += [g for g in generic if " " in g]
    inside = [False] * len(shown)
    for name in filter(None, known):
        size = len(name.split())
        for i in range(len(shown) - size + 1):
            if " ".join(shown[i : i + size]) == name:
                inside[i : i + size] = [True] * size
    for n in range(1, min(labels.max_tokens, 8) + 1):
        for i in range(len(shown) - n + 1):
            gram = " ".join(shown[i : i + n])
            if any(inside[i : i + n]) or gram in generic or gram in allowed_numbers or set(shown[i : i + n]) <= ENGLISH_STOP_WORDS:
                continue  # "the other" is English before it is the title of a MetaQA film
            if labels.lookup(gram) and f" {gram} " not in allowed:
                flags.append(f"label {gram!r}")
    return flags


def problem_kind(problem: str) -> str:
    """Turns "unsupported name 'Milk'" into "unsupported name"."""
    return re.sub(r" ['\d].*", "", problem)


@dataclass
class Tally:
    paths: Counter = field(default_factory=Counter)
    policy: Counter = field(default_factory=Counter)
    phrase_wall: list[float] = field(default_factory=list)
    phrase_cpu: list[float] = field(default_factory=list)
    single_wall: list[float] = field(default_factory=list)
    single_cpu: list[float] = field(default_factory=list)
    flagged: list[tuple[str, str, list[str]]] = field(default_factory=list)
    llm_flagged_n: int = 0
    rejected: list[tuple[str, str, list[str]]] = field(default_factory=list)
    stopped: list[tuple[str, str]] = field(default_factory=list)  # (template, why the grammar stopped the model)
    examples: list[tuple[str, str]] = field(default_factory=list)
    threads: Counter = field(default_factory=Counter)  # threads each generation ran with
    problems: Counter = field(default_factory=Counter)  # why the guard rejected outputs, by kind
    tokens: int = 0  # tokens the model wrote in single-sentence answers
    forced: int = 0  # of them, those decoded in a batch (the rest of a name the model had begun)
    retried: Counter = field(default_factory=Counter)  # stopped paths tried again from their subject, by outcome
    judged: int = 0  # model outputs the guard judged (a multi-ask answer has one per part)
    rejections: int = 0
    answered: int = 0


def measure(agent: Agent, questions: list[str], tally: Tally, label: str) -> None:
    recorder = Recorder(agent.phraser)
    agent.phraser = recorder
    generic = relation_words(agent.kg.bundle)
    for question in questions:
        recorder.last = None
        wall0, cpu0 = time.perf_counter(), time.process_time()
        reply = agent.answer(question)
        wall, cpu = (time.perf_counter() - wall0) * 1000, (time.process_time() - cpu0) * 1000
        if recorder.last is None or reply.error:
            continue  # nothing to phrase (not understood, no answer, small talk)
        tally.answered += 1
        facts, template = recorder.last
        step = next(t for t in reply.trace if t.stage == "phrase")
        mode = str(step.detail.get("llm", ""))
        if mode == "parts":  # several asks: one model output per part
            parts = step.detail.get("llm_parts", [])
            tally.judged += sum(m in ("sentence", "lead-in", "rejected") for m in parts)
            tally.rejections += parts.count("rejected")
            for problems in step.detail.get("llm_problems", []):
                tally.problems.update({problem_kind(p) for p in problems})
            path = step.detail["path"]
            tally.paths["llm parts" if path == "llm" else "rejected by the guard" if path == "llm-rejected" else "template by policy"] += 1
            if path not in ("llm", "llm-rejected"):
                tally.policy["no part could be phrased"] += 1
        elif mode in ("sentence", "lead-in"):
            tally.judged += 1
            tally.paths[f"llm {mode}"] += 1
        elif mode == "rejected":
            tally.judged += 1
            tally.rejections += 1
            tally.paths["rejected by the guard"] += 1
            tally.rejected.append((question, step.detail.get("llm_output", ""), step.detail.get("llm_problems", [])))
            tally.problems.update({problem_kind(p) for p in step.detail.get("llm_problems", [])})
        elif mode.startswith(("timeout", "error")):
            tally.paths[mode.split(":")[0]] += 1
        elif mode.startswith("stopped"):
            tally.paths["stopped: left the grammar"] += 1
            tally.stopped.append((template.text, mode.removeprefix("stopped: ")))
        else:
            tally.paths["template by policy"] += 1
            tally.policy[mode] += 1
        if "llm_retry" in step.detail:
            tally.retried["LLM-worded" if step.detail["path"] == "llm" else mode.split(":")[0]] += 1
        if "llm_threads" in step.detail:
            tally.threads[step.detail["llm_threads"]] += 1
            tally.tokens += step.detail.get("llm_tokens", 0)
            tally.forced += step.detail.get("llm_forced", 0)
        if "llm_ms" in step.detail or mode.startswith("timeout"):
            tally.phrase_wall.append(step.ms)
            tally.phrase_cpu.append(recorder.cpu_ms)
        if len(facts.answers) == 1 and len(facts.chain) <= 1:
            tally.single_wall.append(wall)
            tally.single_cpu.append(cpu)
        flags = audit(reply.text, facts, template.text, agent.kg.labels, generic)
        if flags:
            tally.flagged.append((label, reply.text, flags))
            tally.llm_flagged_n += step.detail["path"] == "llm"
        if step.detail["path"] == "llm":
            tally.examples.append((template.text, reply.text))
    agent.phraser = recorder.inner


def demo_questions(agent: Agent, n: int, seed: int) -> list[str]:
    """1-hop questions composed from the demo bundle's phrasings about random films and people of the graph."""
    from bot.understanding.questions import QuestionGenerator, supported_chains

    rng = random.Random(seed)
    labels = agent.kg.labels
    by_group: dict[str, list[str]] = {}
    for label, group in zip(labels.labels, labels.groups):
        by_group.setdefault(group, []).append(label)
    generator = QuestionGenerator(agent.kg.bundle, seed)
    chains = [c for c in supported_chains(agent.kg.bundle) if len(c.hops) == 1 and by_group.get(c.start)]
    return [generator.question(chain, rng.choice(by_group[chain.start])) for chain in (rng.choice(chains) for _ in range(n))]


def report(tally: Tally, rss: dict, load: tuple[float, float], threads: int, shown_stops: int = 8, shown_examples: int = 12) -> None:
    attempted = sum(v for k, v in tally.paths.items() if k != "template by policy")
    judged = tally.judged
    worded = tally.paths["llm sentence"] + tally.paths["llm lead-in"] + tally.paths["llm parts"]
    print(f"\nanswers phrased or templated: {tally.answered}; LLM-worded: {worded} ({worded / max(tally.answered, 1):.1%})")
    for path, count in tally.paths.most_common():
        print(f"  {path:<26}{count:>6}  ({count / max(tally.answered, 1):.1%})")
    for reason, count in tally.policy.most_common():
        print(f"    {reason:<60}{count:>6}")
    if tally.retried:
        print(f"  of them, multi-hop answers the grammar stopped and the model wrote again from the path's subject: {sum(tally.retried.values())} ("
              + ", ".join(f"{k} {v}" for k, v in tally.retried.most_common()) + ")")
    print(f"guard failure rate: {tally.rejections}/{judged} = {tally.rejections / max(judged, 1):.1%} of the model's outputs")
    print("  rejections by problem: " + ", ".join(f"{k} {v}" for k, v in tally.problems.most_common()))
    print(f"model calls: {attempted}, over their time budget: {tally.paths['timeout']}, failed: {tally.paths['error']}")
    print("threads per generation: " + ", ".join(f"{k}: {v}" for k, v in sorted(tally.threads.items())))
    print(f"tokens written in finished single-sentence generations: {tally.tokens}, of them decoded in a batch as the rest of a name:"
          f" {tally.forced} ({tally.forced / max(tally.tokens, 1):.0%})")
    print(f"audit: replies with an unsupported number or KG label: {len(tally.flagged)} (LLM-worded: {tally.llm_flagged_n})")
    for label, text, flags in tally.flagged[:10]:
        print(f"    [{label}] {text[:150]!r}: {flags[:4]}")
    print(f"phrase stage per model call (llm_threads = {threads}{' (auto)' if threads == 0 else ''}): wall p50 {statistics.median(tally.phrase_wall or [0]):.0f} ms, p95 {pct(tally.phrase_wall, 0.95):.0f} ms;"
          f" CPU p50 {statistics.median(tally.phrase_cpu or [0]):.0f} ms, p95 {pct(tally.phrase_cpu, 0.95):.0f} ms")
    print(f"end to end, single-fact answers with phrasing on (n={len(tally.single_wall)}): wall p50 {statistics.median(tally.single_wall or [0]):.0f} ms,"
          f" p95 {pct(tally.single_wall, 0.95):.0f} ms; CPU p50 {statistics.median(tally.single_cpu or [0]):.0f} ms, p95 {pct(tally.single_cpu, 0.95):.0f} ms")
    print(f"memory (RSS): agents without the model {rss['before']:.0f} MB, with the model loaded and primed {rss['model']:.0f} MB"
          f" (+{rss['model'] - rss['before']:.0f} MB), after every answer {rss['after']:.0f} MB, peak {rss['peak']:.0f} MB")
    print(f"load average (1 min) at start / end: {load[0]:.1f} / {load[1]:.1f} on 2 cores — wall times include the neighbours, CPU times do not")
    if tally.stopped:
        print("\nstopped where the model wanted to leave the grammar, the first few (template: why):")
        for template, why in tally.stopped[:shown_stops]:
            print(f"  {template[:90]!r}: {why}")
    if tally.rejected:
        print("\nrejected by the guard, the first few of each problem (question: model output, problems):")
        shown: Counter = Counter()
        for question, output, problems in tally.rejected:
            kinds = {problem_kind(p) for p in problems}
            if any(shown[k] < 4 for k in kinds):
                shown.update(kinds)
                print(f"  {question!r}: {output!r} {problems[:3]}")
    print("\nexamples (template -> phrased):")
    for template, text in tally.examples[:shown_examples]:
        print(f"  {template}\n    -> {text}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=200, help="questions in all (3/4 MetaQA dev, 1/4 demo KG)")
    parser.add_argument("--budget", type=float, default=None, help="time budget per generation in seconds (default: Settings.llm_time_budget_s)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--busy-neighbour", action="store_true", help="keep one core busy with another process while measuring")
    parser.add_argument("--no-grammar", action="store_true", help="unconstrained decoding: the guard alone judges the outputs")
    parser.add_argument("--demo", default=str(DEFAULT_KG), help="demo bundle folder")
    parser.add_argument("--stops", type=int, default=8, help="how many generations the grammar stopped to print")
    parser.add_argument("--examples", type=int, default=12, help="how many LLM-worded replies to print beside their templates")
    args = parser.parse_args(argv)
    logging.getLogger("bot.generation.phrasing.phraser").setLevel(logging.ERROR)  # timeouts and failures are counted below
    load0 = os.getloadavg()[0]
    overrides = {"llm_time_budget_s": args.budget, "llm_grammar": not args.no_grammar}
    tally = Tally()
    n_metaqa, n_demo = args.n - args.n // 4, args.n // 4
    with metaqa_settings() as settings:
        settings = settings.with_overrides(**overrides)
        agent = Agent.from_settings(settings.without("phrasing"))
        demo = Agent.from_settings(load_settings().with_overrides(kg=args.demo).without("phrasing"))
        agent.wait_ready(), demo.wait_ready()
        rss = {"before": rss_mb()}
        model = load_model(settings, quiet=False)
        primed = time.process_time()
        model.prime(PRIMER)
        primed = time.process_time() - primed
        rss["model"] = rss_mb()
        for a in (agent, demo):
            a.phraser = Phraser(model, a.kg.bundle, FaithfulnessGuard(a.kg.labels, a.kg.bundle), settings)
        questions = []
        for hop, share in ((1, 2), (2, 1), (3, 1)):
            picked, _ = dev_questions(SHARED / "metaqa", hop, max(1, n_metaqa * share // 4))
            questions += [re.sub(r"\[([^\]]*)\]", r"\1", q) for q, _ in picked]
        started = time.perf_counter()
        neighbour = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if args.busy_neighbour else None
        try:
            measure(agent, questions, tally, "metaqa")
            measure(demo, demo_questions(demo, n_demo, args.seed), tally, "demo")
        finally:
            if neighbour is not None:
                neighbour.kill()
        rss.update(after=rss_mb(), peak=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    print(f"{len(questions)} MetaQA dev + {n_demo} demo KG questions in {time.perf_counter() - started:.0f} s"
          + (", another process keeping one core busy" if args.busy_neighbour else ""))
    print(f"priming the model (shared prompt prefix, once per process): {primed:.1f} s CPU; grammar-constrained decoding: {'off' if args.no_grammar else 'on'}")
    report(tally, rss, (load0, os.getloadavg()[0]), settings.llm_threads, args.stops, args.examples)
    return 0


if __name__ == "__main__":
    sys.exit(main())
