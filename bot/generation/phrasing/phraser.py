"""The LLM phraser: a local model words the final sentence from the verified facts, a guard keeps it honest.

The model sees only the structured result (the question kind, the question, what was asked,
the answer values, their source) and a short instruction; it is never asked for knowledge.
Its decoding is constrained by a grammar built for the answer (`grammar.py`): it can only write
the facts' names and numbers, all of the values, one sentence. Whatever it writes then passes
`FaithfulnessGuard`: every answer value must be there, and no
name, title or number that the facts or the question do not contain, nor a word of another
relation's wording ("directed" about a cast member). A rejected, late or failed generation
gives the deterministic template sentence instead, and the reply trace says which path won.
"""

import logging
import re
import time
from dataclasses import replace
from pathlib import Path

from bot.core.config import Settings
from bot.core.contracts import Facts, Sentence
from bot.generation.phrasing.grammar import SentenceShape, sentence_grammar, whole_spans
from bot.generation.phrasing.guard import NEGATIONS, FaithfulnessGuard, Verdict, words
from bot.generation.phrasing.model import GenerationTimeout, LeftTheGrammar, LocalModel
from bot.generation.phrasing.prompt import PRIMER, PhrasingTask, task_for
from bot.generation.templates import paragraph
from bot.kg.bundle import Bundle

log = logging.getLogger(__name__)

SENTENCE_ENDS = (".", "!", "?", ":")  # a lead-in ends with a colon


class Phraser:
    """agent.phraser: phrase(facts, template sentence, trace detail) -> the sentence users see."""

    def __init__(self, model: LocalModel, bundle: Bundle, guard: FaithfulnessGuard, settings: Settings):
        self.model = model
        self.bundle = bundle
        self.guard = guard
        self.max_tokens = settings.llm_max_tokens
        self.budget_s = settings.llm_time_budget_s
        self.wait_s = settings.llm_wait_s
        self.grammar = settings.llm_grammar

    def phrase(self, facts: Facts, sentence: Sentence, detail: dict) -> Sentence:
        if facts.parts:
            return self._paragraph(facts, sentence, detail)
        return self._phrase(facts, sentence, detail, self.budget_s)

    def _paragraph(self, facts: Facts, sentence: Sentence, detail: dict) -> Sentence:
        """Several asks: each sentence of the paragraph is phrased on its own, within one time budget;
        a part the model cannot word (or words wrongly) keeps its template sentence."""
        started = time.monotonic()
        texts, modes, paths = [], [], []
        for part, text in zip(facts.parts, paragraph(facts.parts, self.bundle)):
            part_detail: dict = {}
            left = self.budget_s - (time.monotonic() - started)
            if part.answers and left > 0:
                phrased = self._phrase(part, Sentence(text), part_detail, left)
            else:
                phrased, part_detail["llm"] = Sentence(text), "no answer" if not part.answers else "timeout: no time left"
            texts.append(phrased.text)
            modes.append(part_detail.get("llm", ""))
            paths.append(phrased.path)
            for key in ("llm_output", "llm_problems"):
                if key in part_detail:
                    detail.setdefault(key, []).append(part_detail[key])
        if facts.extra.get("also"):
            texts.append(facts.extra["also"])
        detail.update(llm="parts", llm_parts=modes)
        path = "llm" if "llm" in paths else "llm-rejected" if "llm-rejected" in paths else "template"
        return Sentence(" ".join(t for t in texts if t), path) if path == "llm" else Sentence(sentence.text, path)

    def _phrase(self, facts: Facts, sentence: Sentence, detail: dict, budget_s: float) -> Sentence:
        task, why = task_for(facts, sentence, self.bundle)
        if task is None:
            detail["llm"] = why
            return sentence
        judged = replace(facts, chain=task.chain) if task.chain else facts  # the relations whose wording the sentence may use

        verdicts: dict[str, Verdict] = {}  # an output judged when it ended the generation is not judged again

        def judge(output: str) -> Verdict:
            if output not in verdicts:
                verdict = self.guard.check(
                    clean_output(output),
                    judged,
                    sentence.text,
                    task.required,
                    task.said,
                    task.keeps_draft_numbers,
                    absent=list(task.listed),
                    max_words=task.max_words,
                )
                opposite = [w for _, w in words(output) if w in task.opposite]
                if opposite or (task.opener and not clean_output(output).startswith(task.opener)):
                    problems = [f"contradicts the facts {w!r}" for w in opposite] or [f"does not start with {task.opener[0]!r}"]
                    verdict = Verdict(False, (*verdict.problems, *problems))
                verdicts[output] = verdict
            return verdicts[output]

        def doomed(output: str) -> str:
            """Why the words so far cannot end in a sentence the guard accepts ("Matt Lang released"), or ""."""
            return "; ".join(self.guard.wrong_subject(output, judged))

        def finished(output: str) -> bool:
            """A complete sentence the guard accepts: the model would only add the end token."""
            return output.rstrip().endswith(SENTENCE_ENDS) and judge(output).ok

        shape = self.shape(task, judged, sentence.text)
        started = time.monotonic()

        def generate(shape: SentenceShape, budget_s: float, prefix: str = ""):
            grammar = sentence_grammar(shape) if self.grammar else None
            return self.model.chat(task.messages(), self.max_tokens, budget_s, self.wait_s, finished, grammar=grammar,
                                   spans=whole_spans(shape), prefix=prefix, doomed=doomed)

        try:
            try:
                generation = generate(shape, budget_s)
            except LeftTheGrammar as exc:
                # a path said another way: once more, from the value the path starts from as the subject
                # ("Kevin Hooks also directed ..."); the model words the rest (its prompt is still cached)
                left = budget_s - (time.monotonic() - started)
                subject = next((form for form in task.topic_forms if form[:1].isupper()), "")
                if not (self.grammar and subject and left > 0):
                    raise
                detail["llm_retry"] = f"{subject!r} after: {exc}"
                generation = generate(replace(shape, topic=subject, topic_forms=(), topic_first=True), left, subject)
        except GenerationTimeout as exc:  # a busy or slow moment in a chat, not a fault: the trace says so
            log.info("phrasing fell back to the template: %s", exc)
            detail["llm"] = f"timeout: {exc}"
            return sentence
        except LeftTheGrammar as exc:
            detail["llm"] = f"stopped: {exc}"
            return sentence
        except Exception as exc:  # noqa: BLE001 - out of memory, a broken model: the template still answers
            log.warning("phrasing fell back to the template: the model failed (%s)", exc)
            detail["llm"] = f"error: {exc}"
            return sentence
        detail.update(llm_ms=round(generation.ms, 1), llm_tokens=generation.tokens, llm_forced=generation.forced, llm_threads=generation.threads)
        text = clean_output(generation.text)
        verdict = judge(generation.text)
        detail["llm"] = "lead-in" if task.lead_in else "sentence"
        if not verdict.ok:
            detail.update(llm="rejected", llm_output=text, llm_problems=list(verdict.problems))
            return Sentence(sentence.text, "llm-rejected")
        return Sentence(task.assemble(text), "llm")

    def shape(self, task: PhrasingTask, facts: Facts, template: str) -> SentenceShape:
        """What the grammar lets the model write for `task`: the names and numbers of the facts, the
        question and the template, none of the words the guard would reject."""
        names = {*task.names, *(a.label for a in facts.answers if a.label not in task.listed)}
        names |= {f.subject_label for f in facts.facts} | {f.value_label for f in facts.facts if f.value_label not in task.listed}
        known = set(names)
        for text in (facts.question, template):  # capitalised words of the question and the template ("IMDb"), but not
            for found in re.findall(r"\b[A-Z][\w'-]*(?: [A-Z][\w'-]*)*", text):  # a piece of a name ("Lucinda" of "Oscar and Lucinda")
                if not any(found != name and re.search(rf"(?<!\w){re.escape(found)}(?!\w)", name) for name in known):
                    names.add(found)
        names -= set(task.listed) | set(task.values) | {task.topic, *task.topic_forms}
        draft = task.replaces or template
        numbers = {m.group() for text in (draft, facts.question, task.suffix) for m in re.finditer(r"\d+(?:[.,]\d+)*", text)}
        numbers.add(str(len(task.listed or task.values)))
        numbers |= {str(e.year) for e in facts.topic if e.year}
        said = {f for _, f in words(template)}
        excluded = self.guard.forbidden_words(facts, template) | (NEGATIONS - said) | set(task.opposite)
        return SentenceShape(task.topic, task.values, tuple(sorted(n for n in names if n)), tuple(sorted(numbers)), frozenset(excluded),
                             lead_in=task.lead_in, opener=task.opener, topic_first=task.topic_first, claim=task.claim, topic_forms=task.topic_forms,
                             max_items=max(6, min(20, (task.max_words - len(words(" ".join([task.topic, *task.values])))) // 2)))


def clean_output(text: str) -> str:
    """The model's sentence without wrapping quotes or a 'Sentence:' style prefix."""
    text = text.strip()
    text = re.sub(r"^(?:answer|sentence|lead-in)\s*:\s*", "", text, flags=re.IGNORECASE)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        text = text[1:-1].strip()
    return text


def prime(model: LocalModel, cache_dir: Path | None = None, quiet: bool = True) -> None:
    """Evaluate the shared prompt prefix once, or restore it from `cache_dir` (in the background; answers meanwhile keep
    their templates)."""
    try:
        model.prime(PRIMER, cache_dir, quiet)
    except Exception as exc:  # noqa: BLE001 - unprimed, the model still works, only recovers more slowly
        log.warning("could not prime the phrasing model: %s", exc)
