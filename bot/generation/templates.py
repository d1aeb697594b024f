"""The generation layer: deterministic template sentences for every answer kind.

These sentences are always correct by construction (they only print verified values);
the optional LLM phraser rewrites them and is checked against them.
"""

from __future__ import annotations

from bot.core.contracts import Facts, Sentence
from bot.core.kinds import Kind
from bot.core.text import join_labels
from bot.kg.bundle import Bundle

LIST_LIMIT = 12


def display_name(entity) -> str:
    """The label, with the year added when other entities share the label (remakes)."""
    if entity.alternatives and entity.year:
        return f"{entity.label} ({entity.year})"
    return entity.label


def describe_chain(facts: Facts, bundle: Bundle) -> tuple[str, bool]:
    """A noun phrase for what was asked ('the director of Good Will Hunting') and whether it is plural."""
    topic = display_name(facts.topic[0]) if facts.topic else "it"
    rels = [bundle.relations[h.relation] for h in facts.chain]
    pattern = tuple(h.to_value for h in facts.chain)
    many = len(facts.answers) != 1
    if pattern == (True,):
        return f"the {rels[0].plural if many else rels[0].noun} of {topic}", many
    if pattern == (False,):
        return f"the films whose {rels[0].noun} is {topic}", True
    if pattern == (False, True):
        noun = rels[1].plural if many else rels[1].noun
        return f"the {noun} of the films whose {rels[0].noun} is {topic}", many
    if pattern == (True, False):
        return f"the other films that share a {rels[0].noun} with {topic}", True
    if pattern == (True, False, True):
        noun = rels[2].plural if many else rels[2].noun
        return f"the {noun} of the other films that share a {rels[0].noun} with {topic}", many
    return "the answer", many


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def template_sentence(facts: Facts, bundle: Bundle) -> Sentence:
    """The deterministic sentence for `facts` (a short paragraph, one sentence per ask, for several asks)."""
    if facts.parts:
        sentences = [template_sentence(part, bundle).text for part in facts.parts]
        if facts.extra.get("also"):
            sentences.append(facts.extra["also"])
        return Sentence(" ".join(s for s in sentences if s))
    if facts.message:
        return Sentence(facts.message)
    labels = [a.label for a in facts.answers]
    if facts.kind == Kind.FACTUAL and facts.chain:
        phrase, plural = describe_chain(facts, bundle)
        if not labels:
            return Sentence(f"I could not find {phrase} in the knowledge graph.")
        if len(labels) == 1:
            return Sentence(f"{_capitalise(phrase)} is {labels[0]}.")
        if len(labels) > LIST_LIMIT:
            return Sentence(f"{_capitalise(phrase)} ({len(labels)} in all): {join_labels(labels)}.")
        return Sentence(f"{_capitalise(phrase)} are {join_labels(labels)}.")
    return Sentence(join_labels(labels) + "." if labels else "I have nothing to say about that.")
