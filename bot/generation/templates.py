"""The generation layer: deterministic template sentences for every answer kind.

These sentences are always correct by construction (they only print verified values);
the optional LLM phraser rewrites them and is checked against them.
"""

from __future__ import annotations

import re
from dataclasses import replace

from bot.core.contracts import Facts, Sentence
from bot.core.kinds import Kind
from bot.core.terms import Group
from bot.core.text import join_labels
from bot.generation.composed import result_sentence
from bot.generation.sentences import LIST_INLINE, LIST_LIMIT, capitalise, films_phrase, forward, inverse, shown
from bot.kg.bundle import Bundle


def display_name(entity) -> str:
    """The label, with the year added when other entities share the label (remakes)."""
    if entity.alternatives and entity.year:
        return f"{entity.label} ({entity.year})"
    return entity.label


def _named(labels: list[str], relation) -> str:
    """' (Steven Spielberg)' after the phrase for a path's middle values; their number when there are many."""
    if not labels:
        return ""
    if len(labels) > 3:
        return f" ({len(labels)} {relation.plural})"
    return f" ({join_labels(labels)})"


def path_phrase(facts: Facts, bundle: Bundle) -> str:
    """The films a multi-hop chain goes through, in plain words: 'films directed by the director of Jaws
    (Steven Spielberg)', 'the 4 films written by Quentin Tarantino'."""
    topic = display_name(facts.topic[0]) if facts.topic else "it"
    rels = [bundle.relations[h.relation] for h in facts.chain]
    path = list(facts.extra.get("path", []))
    pattern = tuple(h.to_value for h in facts.chain)
    if pattern[:1] == (False,):
        count = len(path) if path else 2
        phrase = films_phrase(rels[0], topic, count)
        return f"the {count} {phrase}" if len(path) > 1 else f"the {phrase}"
    hop1 = f"the {rels[0].plural if len(path) > 1 else rels[0].noun} of {topic}{_named(path, rels[0])}"
    return films_phrase(rels[1], hop1)


def describe_chain(facts: Facts, bundle: Bundle) -> tuple[str, bool]:
    """A noun phrase for what was asked ('the director of Good Will Hunting') and whether it is plural."""
    topic = display_name(facts.topic[0]) if facts.topic else "it"
    rels = [bundle.relations[h.relation] for h in facts.chain]
    pattern = tuple(h.to_value for h in facts.chain)
    many = len(facts.answers) != 1
    if pattern == (True,):
        return f"the {rels[0].plural if many else rels[0].noun} of {topic}", many
    if pattern == (False,):
        return f"the {films_phrase(rels[0], topic)}", True
    if pattern == (False, True):
        return f"the {rels[1].plural if many else rels[1].noun} of {path_phrase(facts, bundle)}", many
    if pattern == (True, False):
        return f"the other {path_phrase(facts, bundle)}", True
    if pattern == (True, False, True):
        return f"the {rels[2].plural if many else rels[2].noun} of the other {path_phrase(facts, bundle)}", many
    return "the answer", many


def chain_sentence(facts: Facts, bundle: Bundle) -> str:
    """The answer to a relation chain as a person would say it, with the path in plain words."""
    topic = display_name(facts.topic[0]) if facts.topic else "it"
    rels = [bundle.relations[h.relation] for h in facts.chain]
    pattern = tuple(h.to_value for h in facts.chain)
    last = rels[-1] if facts.chain[-1].to_value else None
    labels = [a.label for a in facts.answers]
    if not labels:
        return f"I could not find {describe_chain(facts, bundle)[0]} in the knowledge graph."
    if pattern == (True,):
        return forward(rels[0], topic, labels)
    if pattern == (False,):
        return inverse(rels[0], topic, labels)
    values = [shown(last, v) for v in labels]
    if pattern == (True, False):
        films = path_phrase(facts, bundle)
        if len(labels) == 1:
            return f"The other {re.sub(r'^films', 'film', films)} is {labels[0]}."
        if len(labels) > LIST_INLINE:
            return f"{capitalise(films)}, {len(labels)} in all: {join_labels(labels, limit=LIST_LIMIT)}."
        return f"Other {films}: {join_labels(labels)}."
    phrase, many = describe_chain(facts, bundle)
    if len(labels) > LIST_INLINE:
        films = phrase.split(" of ", 1)[1]
        return f"{capitalise(films)} have {len(labels)} {last.plural if last else 'answers'} in my knowledge graph: {join_labels(values, limit=LIST_LIMIT)}."
    return f"{capitalise(phrase)} {'are' if many else 'is'} {join_labels(values)}."


def besides_sentence(facts: Facts, bundle: Bundle) -> str:
    """'Besides Al Pacino and Robert De Niro, the cast members of Heat include Val Kilmer, ...': the answers left
    after the names the question set aside, which are not all of the chain's answers (no "has 6 people")."""
    phrase, _ = describe_chain(replace(facts, answers=facts.answers * 2), bundle)  # the plural noun phrase
    if not facts.answers:
        return f"My knowledge graph has no {phrase.removeprefix('the ')} besides {join_labels(facts.extra['excluded'])}."
    last = bundle.relations[facts.chain[-1].relation] if facts.chain[-1].to_value else None
    values = [shown(last, a.label) for a in facts.answers]
    return f"Besides {join_labels(facts.extra['excluded'])}, {phrase} include {join_labels(values, limit=LIST_LIMIT)}."


def paragraph(parts: list[Facts], bundle: Bundle) -> list[str]:
    """One sentence per ask; a sentence about the film the previous one named starts with 'It'."""
    sentences = []
    previous = None
    for part in parts:
        text = template_sentence(part, bundle).text
        topic = part.topic[0] if part.topic and not part.message else None
        if topic is not None and previous is not None and topic.iri == previous.iri and topic.group == Group.FILM:
            name = display_name(topic)
            if text.startswith(name + " ") and not text.startswith(name + " (") and part.result is None:
                text = "It" + text[len(name):]
        sentences.append(text)
        previous = topic
    return sentences


def template_sentence(facts: Facts, bundle: Bundle) -> Sentence:
    """The deterministic sentence for `facts` (a short paragraph, one sentence per ask, for several asks)."""
    if facts.parts:
        sentences = paragraph(facts.parts, bundle)
        if facts.extra.get("also"):
            sentences.append(facts.extra["also"])
        return Sentence(" ".join(s for s in sentences if s))
    if facts.message:
        return Sentence(facts.message)
    if facts.result is not None:
        return Sentence(result_sentence(facts, bundle))
    if facts.kind == Kind.FACTUAL and facts.chain and facts.extra.get("excluded"):
        return Sentence(besides_sentence(facts, bundle))
    if facts.kind == Kind.FACTUAL and facts.chain:
        return Sentence(chain_sentence(facts, bundle))
    labels = [a.label for a in facts.answers]
    return Sentence(join_labels(labels) + "." if labels else "I have nothing to say about that.")
