"""Question and reply kinds: every kind name, and what each kind means to the pipeline, in one place.

A kind decides which handler answers a question, whether the local model may reword the
answer, and whether an ambiguous or weakly matched topic makes the dialogue ask back.
Kinds are `str` enums, so they compare equal to (and serialise as) their names in replies,
traces and JSON. Everything else refers to the members, never to the bare strings.

Adding a kind: add a member and its `KindSpec` here, give it a cue (`bot/understanding/cues.py`)
if surface words detect it, and a handler from a feature (`Contribution.handlers`); see the
README's architecture section.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Kind(StrEnum):
    """What a question asks for, or what a reply is."""

    FACTUAL = "factual"  # facts from the graph along a relation chain
    RECOMMENDATION = "recommendation"
    MULTIMEDIA = "multimedia"  # pictures of people, posters of films
    EMBEDDING = "embedding"  # an explicit request for a KG-embedding prediction
    SMALLTALK = "smalltalk"
    DECLINE = "decline"  # instructions to the bot, arithmetic, off-topic requests: answered, never looked up
    SPARQL = "sparql"  # a SPARQL query typed into the chat, run read-only on the KG
    UNKNOWN = "unknown"  # nothing the bot could link or answer
    # kinds of replies only (no question is classified as these)
    CLARIFY = "clarify"  # the bot asks back which entity was meant
    MEMORY = "memory"  # the bot noted something the user said ("I loved Heat")
    EMPTY = "empty"
    TOO_LONG = "too_long"
    ERROR = "error"


@dataclass(frozen=True)
class KindSpec:
    """How the pipeline treats one kind."""

    kind: Kind
    asks: str  # what such a question or reply is, for people reading the registry
    detected_by: str  # "conversation" (whole-message wording), "cues" (surface words), "parser" (the default kind),
    # "agent" (before understanding; reply kinds) or "dialogue"
    answered_by: str  # the feature whose handler answers it, "agent" when built in, "" for reply kinds
    phrased: bool = False  # the LLM phraser may reword its answers
    clarifies: bool = False  # an ambiguous or weakly matched topic makes the dialogue ask back


REGISTRY: dict[Kind, KindSpec] = {
    spec.kind: spec
    for spec in (
        KindSpec(Kind.SPARQL, "a SPARQL query typed into the chat, run read-only", "agent", "agent"),
        KindSpec(Kind.SMALLTALK, "greetings, thanks, goodbyes, help, questions about the bot", "conversation", "agent"),
        KindSpec(Kind.DECLINE, "instructions to the bot, arithmetic, off-topic requests", "conversation", "agent"),
        KindSpec(Kind.EMBEDDING, "a prediction from the KG embeddings", "cues", "embeddings", phrased=True),
        KindSpec(Kind.MULTIMEDIA, "a picture of a person or a film poster", "cues", "images"),
        KindSpec(Kind.RECOMMENDATION, "films like the ones the user names", "cues", "recommend", phrased=True),
        KindSpec(Kind.FACTUAL, "facts along a relation chain of the graph", "parser", "agent", phrased=True, clarifies=True),
        KindSpec(Kind.UNKNOWN, "a question with no entity the graph knows", "parser", "agent"),
        KindSpec(Kind.CLARIFY, "the bot asks which entity the user meant", "dialogue", ""),
        KindSpec(Kind.MEMORY, "the bot noted films the user likes", "dialogue", ""),
        KindSpec(Kind.EMPTY, "an empty message", "agent", ""),
        KindSpec(Kind.TOO_LONG, "a message over the length limit", "agent", ""),
        KindSpec(Kind.ERROR, "an answer that failed", "agent", ""),
    )
}
CUED_KINDS: tuple[Kind, ...] = tuple(k for k, spec in REGISTRY.items() if spec.detected_by == "cues")  # in detection order


def spec(kind: str) -> KindSpec | None:
    """The spec of `kind` (a Kind or its name), None for a name that is not a kind."""
    try:
        return REGISTRY[Kind(kind)]
    except ValueError:
        return None
