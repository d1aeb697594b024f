"""Answers from the KG embeddings: the fallback for a missing triple, and the 'embedding' question kind.

A prediction for (film, relation) is the nearest entity of the relation's value group to
`film + relation`. It answers when neither the graph nor the crowd has the triple, and on
request ("what do the embeddings say about …"); its wording always says it is a prediction.
"""

from __future__ import annotations

import re

from bot.answering.embeddings.space import TOP_PREDICTIONS, EmbeddingSpace
from bot.core.contracts import Answer, Fact, Facts, Hop, Understanding
from bot.core.kinds import Kind
from bot.core.text import join_labels, normalize
from bot.kg.bundle import Bundle, Relation


def predictable(understanding: Understanding, bundle: Bundle) -> Relation | None:
    """The relation of a 1-hop film -> entity-value question, else None."""
    if len(understanding.chain) != 1 or not understanding.entities:
        return None
    hop = understanding.chain[0]
    relation = bundle.relations.get(hop.relation)
    if not hop.to_value or relation is None or not relation.is_entity or understanding.entities[0].group != "film":
        return None
    return relation


def prediction_facts(space: EmbeddingSpace, understanding: Understanding, relation: Relation, kind: str) -> Facts | None:
    """The top predictions for the question's (film, relation) as embedding-sourced Facts."""
    topic = understanding.entities[0]
    predictions = space.predict(topic.iri, relation)
    if not predictions:
        return None
    labels = space.labels
    answers, facts = [], []
    for rank, (entity, distance) in enumerate(predictions, 1):
        label = labels.label_of(entity) or entity
        answers.append(Answer(label, entity, support=0, score=round(distance, 4)))
        facts.append(
            Fact(topic.iri, topic.label, Hop(relation.name, True).code, entity, label, "embedding", {"rank": rank, "distance": round(distance, 4)})
        )
    return Facts(kind, understanding.text, answers, facts, understanding.entities, understanding.chain, source="embedding")


def _ranked(answers: list[Answer]) -> str:
    first, rest = answers[0], answers[1:]
    text = f"most likely {first.label}"
    if rest:
        text += f", then {join_labels([a.label for a in rest])}"
    return text


def fallback_sentence(facts: Facts, relation: Relation) -> str:
    topic = facts.topic[0].label
    return (
        f"The knowledge graph has no {relation.noun} for {topic}, so here is a prediction from the KG embeddings "
        f"(not a stored fact): {_ranked(facts.answers)}."
    )


class EmbeddingAnswers:
    """Link-prediction answers: the fallback for missing triples and the 'embedding' question kind."""

    # "what do the embeddings say about", "according to the embeddings", "(embeddings)", ...
    REQUEST = re.compile(
        r"\b(what (do|does|would) (the |your |my )?(kg |graph )?embeddings? (say|predict|think|suggest)( about)?|"
        r"according to (the |your )?(kg |graph )?embeddings?|"
        r"(using|with|from|by) (the |your )?(kg |graph )?embeddings?|"
        r"(kg |graph )?embeddings?( prediction)?)\b[\s:,]*",
        re.I,
    )
    WH_START = re.compile(r"^\s*(who|what|which|when|where|how|whom|whose|is|are|did|does|do|list|name|tell|give|show)\b", re.I)

    def __init__(self, agent, space: EmbeddingSpace | None):
        self.agent = agent
        self.space = space

    def fallback(self, understanding: Understanding, facts: Facts) -> Facts | None:
        relation = predictable(understanding, self.agent.kg.bundle)
        space = self.space
        if space is None or relation is None:
            return None
        predicted = prediction_facts(space, understanding, relation, Kind.FACTUAL)
        if predicted is None:
            return None
        predicted.message = fallback_sentence(predicted, relation)
        predicted.extra["graph_sparql"] = facts.extra.get("sparql", "")
        return predicted

    def handle(self, understanding: Understanding, conversation) -> Facts:
        """'What do the embeddings say about the director of X?' — predictions next to what the graph says."""
        space = self.space
        if space is None:
            return Facts(Kind.EMBEDDING, understanding.text, message="I have no KG embeddings for this knowledge graph, so I cannot make predictions.")
        rest = self.REQUEST.sub(" ", understanding.text).strip(" ?.!,:;")
        question = rest if not rest or self.WH_START.match(rest) else "what is " + rest
        inner = self.agent.understander.understand(question) if question else None
        named_only = inner is not None and inner.entities and normalize(inner.entities[0].text) == normalize(rest)
        relation = predictable(inner, self.agent.kg.bundle) if inner is not None and inner.kind == Kind.FACTUAL and not named_only else None
        if relation is not None:
            return self._predict(space, inner, relation)
        entities = inner.entities if inner is not None and inner.entities else understanding.entities
        if entities:
            return self._neighbours(space, understanding, entities[0])
        return Facts(
            Kind.EMBEDDING,
            understanding.text,
            message="Which film should I ask the embeddings about? For example: \"What do the embeddings say about the director of Inception?\"",
        )

    def _predict(self, space: EmbeddingSpace, inner: Understanding, relation: Relation) -> Facts:
        topic = inner.entities[0]
        predicted = prediction_facts(space, inner, relation, Kind.EMBEDDING)
        if predicted is None:
            return Facts(Kind.EMBEDDING, inner.text, topic=inner.entities, message=f"I have no embedding for {topic.label}, so I cannot predict its {relation.noun}.")
        graph_facts, _ = self.agent.retriever.answer(inner)
        stored = {a.iri for a in graph_facts.answers}
        for fact in predicted.facts:
            fact.detail["in_graph"] = fact.value in stored
        sentence = f"A prediction from the KG embeddings for the {relation.noun} of {topic.label}: {_ranked(predicted.answers)}."
        if graph_facts.answers:
            sentence += f" The knowledge graph itself says {join_labels([a.label for a in graph_facts.answers])}."
        else:
            sentence += f" The knowledge graph has no {relation.noun} for it."
        predicted.message = sentence
        return predicted

    def _neighbours(self, space: EmbeddingSpace, understanding: Understanding, entity) -> Facts:
        vector = space.vector(entity.iri)
        if vector is None:
            return Facts(Kind.EMBEDDING, understanding.text, topic=[entity], message=f"I have no embedding for {entity.label}.")
        group = entity.group or ""
        near = space.nearest(vector, group, TOP_PREDICTIONS, exclude={entity.iri})
        labels = space.labels
        answers = [Answer(labels.label_of(e) or e, e, support=0, score=round(d, 4)) for e, d in near]
        facts = [
            Fact(entity.iri, entity.label, "nearest", a.iri, a.label, "embedding", {"rank": i, "distance": a.score})
            for i, a in enumerate(answers, 1)
        ]
        kind = {"person": "people", "": "entities"}.get(group, f"{group.replace('_', ' ')}s")
        message = (
            f"In the KG embeddings, the {kind} closest to {entity.label} are {join_labels([a.label for a in answers])}."
            if answers
            else f"The KG embeddings have no other {kind} to compare {entity.label} with."
        )
        return Facts(Kind.EMBEDDING, understanding.text, answers, facts, [entity], source="embedding", message=message)
