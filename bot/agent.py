"""The agent: one place where the pipeline stages are assembled.

    Message text -> Understanding -> Facts -> Sentence -> Reply

`Agent.answer` never raises: any failure becomes a friendly reply (and a log entry),
so a chat never shows a stack trace.
"""

from __future__ import annotations

import logging
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable

from .config import Settings
from .contracts import Facts, Reply, TraceStep, Understanding
from .generation import template_sentence
from .kg import KG, open_kg
from .retrieval import Retriever
from .store import StoreError
from .text import clean_message
from .understand import Understander

log = logging.getLogger(__name__)
MAX_MESSAGE_CHARS = 2000

SMALLTALK_REPLIES = {
    "greeting": "Hello! Ask me about films: who directed them, who starred in them, when they came out, and more.",
    "thanks": "You're welcome! Ask me anything else about films.",
    "bye": "Goodbye, and enjoy your next film!",
    "help": (
        "I answer questions about films from my knowledge graph, for example "
        "\"Who directed Good Will Hunting?\", \"What genres are the films written by Quentin Tarantino?\" "
        "or \"Which movies share the director of Jaws?\"."
    ),
}

# A handler answers one question kind: (understanding, conversation) -> Facts.
Handler = Callable[[Understanding, "Conversation"], Facts]
# A fallback may answer a factual question the graph has no triple for (crowd, embeddings); None = pass.
Fallback = Callable[[Understanding, Facts], "Facts | None"]
# An amender may correct graph facts (e.g. a triple the crowd voted incorrect); returns the facts to use.
Amender = Callable[[Understanding, Facts], Facts]


@dataclass
class Conversation:
    """What the agent remembers about one room."""

    room: str = ""
    turns: list[tuple[Understanding, Facts]] = field(default_factory=list)

    def remember(self, understanding: Understanding, facts: Facts) -> None:
        self.turns.append((understanding, facts))
        del self.turns[:-20]


class Timer:
    """Collects per-stage timings for the reply trace."""

    def __init__(self):
        self.steps: list[TraceStep] = []

    @contextmanager
    def stage(self, name: str):
        detail: dict = {}
        t0 = time.perf_counter()
        try:
            yield detail
        finally:
            self.steps.append(TraceStep(name, (time.perf_counter() - t0) * 1000, detail))


class Agent:
    """Answers one question at a time against one KG."""

    def __init__(self, kg: KG, settings: Settings | None = None):
        self.kg = kg
        self.settings = settings or Settings()
        self.understander = Understander(kg, self.settings.fuzzy_threshold)
        self.retriever = Retriever(kg, self.settings.max_answers)
        self.handlers: dict[str, Handler] = {"factual": self._factual}
        self.fallbacks: list[Fallback] = []
        self.amenders: list[Amender] = []
        self.phraser = None  # optional: object with phrase(facts, sentence, trace_detail) -> Sentence
        self.warmups: list[threading.Thread] = []  # features loading in the background (the agent answers meanwhile)

    def warm_up(self, name: str, load: Callable[[], None]) -> None:
        """Run `load` on a background thread: a slow feature must not hold up the first answer."""
        thread = threading.Thread(target=load, name=f"warm-up {name}", daemon=True)
        self.warmups.append(thread)
        thread.start()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait for the background loads (benchmarks and tests that need every feature in place)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for thread in self.warmups:
            thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return not any(thread.is_alive() for thread in self.warmups)

    @classmethod
    def from_settings(cls, settings: Settings) -> "Agent":
        """An agent with every installed feature (see bot/features.py)."""
        from .features import install_features

        agent = cls(open_kg(settings), settings)
        install_features(agent)
        return agent

    def answer(self, text: str, conversation: Conversation | None = None) -> Reply:
        started = time.perf_counter()
        timer = Timer()
        conversation = conversation if conversation is not None else Conversation()
        try:
            reply = self._answer(text, conversation, timer)
        except StoreError as exc:
            log.error("knowledge graph error: %s", exc)
            reply = Reply("Sorry, I cannot reach my knowledge graph right now. Please try again in a moment.", "error", error=True)
        except Exception:  # noqa: BLE001 - the chat must never see a traceback
            log.exception("failed to answer %r", text[:200])
            reply = Reply("Sorry, something went wrong while I was answering that. Could you rephrase the question?", "error", error=True)
        reply.trace = timer.steps
        reply.latency_ms = (time.perf_counter() - started) * 1000
        return reply

    def _answer(self, text: str, conversation: Conversation, timer: Timer) -> Reply:
        text = clean_message(text or "")
        if not text:
            return Reply("Your message was empty. Ask me something about films, for example \"Who directed Casablanca?\"", "empty")
        if len(text) > MAX_MESSAGE_CHARS:
            return Reply(
                f"That message is {len(text):,} characters long; I can read questions of up to {MAX_MESSAGE_CHARS:,}. "
                "Please ask one question at a time.",
                "too_long",
            )
        with timer.stage("understand") as detail:
            understanding = self.understander.understand(text, detail)
            detail.update(
                kind=understanding.kind,
                chain=",".join(h.code for h in understanding.chain),
                confidence=round(understanding.confidence, 3),
                entities=[e.to_json() for e in understanding.entities],
            )
        handler = self.handlers.get(understanding.kind)
        with timer.stage("retrieve") as detail:
            if understanding.kind == "smalltalk":
                facts = Facts("smalltalk", text, message=SMALLTALK_REPLIES[understanding.smalltalk])
            elif understanding.kind == "unknown":
                facts = Facts("unknown", text, message=self._not_understood(understanding))
            elif handler is None:
                facts = Facts(understanding.kind, text, message=f"I cannot answer {understanding.kind} questions with this knowledge graph yet.")
            else:
                facts = handler(understanding, conversation)
            detail.update(source=facts.source, answers=len(facts.answers), **{k: v for k, v in facts.extra.items() if k == "sparql"})
        with timer.stage("phrase") as detail:
            sentence = template_sentence(facts, self.kg.bundle)
            if self.phraser is not None and facts.answers:
                sentence = self.phraser.phrase(facts, sentence, detail)
            detail["path"] = sentence.path
        conversation.remember(understanding, facts)
        return Reply(
            text=sentence.text,
            kind=facts.kind,
            answers=[a.label for a in facts.answers],
            facts=facts.facts,
            entities=understanding.entities,
            image=facts.extra.get("image"),
        )

    def _factual(self, understanding: Understanding, conversation: Conversation) -> Facts:
        facts, query = self.retriever.answer(understanding)
        facts.extra["sparql"] = query
        for amend in self.amenders:
            facts = amend(understanding, facts)
        if not facts.answers:
            for fallback in self.fallbacks:
                alternative = fallback(understanding, facts)
                if alternative is not None:
                    return alternative
        return facts

    def _not_understood(self, understanding: Understanding) -> str:
        if understanding.not_found:
            names = ", ".join(f"\"{n}\"" for n in understanding.not_found[:3])
            return (
                f"I could not find {names} in my knowledge graph. "
                "Please check the spelling of the title or name, or ask about another film."
            )
        return "I did not understand which film or person you mean. Try for example \"Who directed The Matrix?\""
