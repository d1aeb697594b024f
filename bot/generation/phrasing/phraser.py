"""The LLM phraser: a local model words the final sentence from the verified facts, a guard keeps it honest.

The model sees only the structured result (the question kind, the question, what was asked,
the answer values, their source) and a short instruction; it is never asked for knowledge.
Whatever it writes passes `FaithfulnessGuard` first: every answer value must be there, and no
name, title or number that the facts or the question do not contain, nor a word of another
relation's wording ("directed" about a cast member). A rejected, late or failed generation
gives the deterministic template sentence instead, and the reply trace says which path won.
"""

import logging
import re

from bot.core.config import Settings
from bot.core.contracts import Facts, Sentence
from bot.core.text import join_labels
from bot.generation.phrasing.guard import FaithfulnessGuard, Verdict
from bot.generation.phrasing.model import GenerationTimeout, LocalModel
from bot.generation.phrasing.prompt import PRIMER, task_for
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

    def phrase(self, facts: Facts, sentence: Sentence, detail: dict) -> Sentence:
        task, why = task_for(facts, sentence, self.bundle)
        if task is None:
            detail["llm"] = why
            return sentence

        verdicts: dict[str, Verdict] = {}  # an output judged when it ended the generation is not judged again

        def judge(output: str) -> Verdict:
            if output not in verdicts:
                verdicts[output] = self.guard.check(
                    clean_output(output),
                    facts,
                    sentence.text,
                    task.required,
                    task.wording,
                    task.keeps_draft_numbers,
                    absent=list(task.values) if task.lead_in else [],
                    max_words=task.max_words,
                )
            return verdicts[output]

        def finished(output: str) -> bool:
            """A complete sentence the guard accepts: the model would only add the end token."""
            return output.rstrip().endswith(SENTENCE_ENDS) and judge(output).ok

        try:
            generation = self.model.chat(task.messages(), self.max_tokens, self.budget_s, self.wait_s, finished)
        except GenerationTimeout as exc:
            log.warning("phrasing fell back to the template: %s", exc)
            detail["llm"] = f"timeout: {exc}"
            return sentence
        except Exception as exc:  # noqa: BLE001 - out of memory, a broken model: the template still answers
            log.warning("phrasing fell back to the template: the model failed (%s)", exc)
            detail["llm"] = f"error: {exc}"
            return sentence
        detail.update(llm_ms=round(generation.ms, 1), llm_tokens=generation.tokens, llm_threads=generation.threads)
        text = clean_output(generation.text)
        candidate = text.rstrip(" .:;,") + ": " + join_labels(list(task.values)) + "." if task.lead_in else text
        verdict = judge(generation.text)
        detail["llm"] = "lead-in" if task.lead_in else "sentence"
        if not verdict.ok:
            detail.update(llm="rejected", llm_output=text, llm_problems=list(verdict.problems))
            return Sentence(sentence.text, "llm-rejected")
        return Sentence(candidate, "llm")


def clean_output(text: str) -> str:
    """The model's sentence without wrapping quotes or a 'Sentence:' style prefix."""
    text = text.strip()
    text = re.sub(r"^(?:answer|sentence|lead-in)\s*:\s*", "", text, flags=re.IGNORECASE)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        text = text[1:-1].strip()
    return text


def prime(model: LocalModel) -> None:
    """Evaluate the shared prompt prefix once (in the background; answers meanwhile keep their templates)."""
    try:
        model.prime(PRIMER)
    except Exception as exc:  # noqa: BLE001 - unprimed, the model still works, only recovers more slowly
        log.warning("could not prime the phrasing model: %s", exc)
