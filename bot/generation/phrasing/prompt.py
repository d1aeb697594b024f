"""What the phrasing model is asked: a system prompt, worked examples and one task built from the facts only."""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.contracts import Facts, Sentence
from bot.core.kinds import Kind, spec
from bot.generation.phrasing.guard import words
from bot.generation.templates import describe_chain
from bot.kg.bundle import Bundle

LEAD_IN_OVER = 4  # longer lists are printed by the template; the model writes only their lead-in
LEAD_IN_MAX_WORDS = 20
# wording a phrased sentence must keep, per fact source: each entry lists accepted alternatives
REQUIRED_WORDING = {
    "crowd": (("according to the crowd",), ("inter-rater agreement",)),
    "embedding": (("predicted", "prediction", "predictions", "predicts"),),
}
SOURCE_NOTES = {
    "crowd": "crowd workers voted on these facts",
    "embedding": "these values are predicted by knowledge-graph embeddings, not stated in the graph",
}

SYSTEM_PROMPT = (
    "You write one short, natural English sentence from verified facts. "
    "Use only the names, titles, dates and numbers given in the facts and copy them exactly. "
    "Add no other information. Reply with the sentence only."
)
# worked examples; they stay in the model's cache, and the guard rejects any of its names that leak
EXAMPLES = [
    {"role": "user", "content": f"Kind: {Kind.FACTUAL}\nQuestion: who starred in Casablanca\nFacts (the cast members of Casablanca): Humphrey Bogart; Ingrid Bergman\nName all 2 of them."},
    {"role": "assistant", "content": "Humphrey Bogart and Ingrid Bergman starred in Casablanca."},
    {"role": "user", "content": f"Kind: {Kind.FACTUAL}\nQuestion: what films did Ingrid Bergman act in\nFacts (the films whose cast member is Ingrid Bergman): Casablanca; Gaslight\nName all 2 of them."},
    {"role": "assistant", "content": "Ingrid Bergman acted in Casablanca and Gaslight."},
    {"role": "user", "content": f"Kind: {Kind.FACTUAL}\nQuestion: who directed Casablanca\nFacts (the director of Casablanca): Michael Curtiz"},
    {"role": "assistant", "content": "Casablanca was directed by Michael Curtiz."},
    {"role": "user", "content": f"Kind: {Kind.FACTUAL}\nQuestion: what kind of film is Casablanca\nFacts (the genre of Casablanca): Romance"},
    {"role": "assistant", "content": "Casablanca is a romance film."},
    {"role": "user", "content": f"Kind: {Kind.FACTUAL}\nQuestion: which movies did Michael Curtiz direct\nFacts (the films whose director is Michael Curtiz): 9 films, listed after your words.\nWrite only a short lead-in that ends with a colon. Do not list them."},
    {"role": "assistant", "content": "Michael Curtiz directed these 9 films:"},
]

# the shared start of every prompt, evaluated once when the model loads; the kind comes first so that
# the most common one (factual) costs no prompt tokens: each one is ~19 ms of prompt evaluation on one core
PRIMER = [{"role": "system", "content": SYSTEM_PROMPT}, *EXAMPLES, {"role": "user", "content": f"Kind: {Kind.FACTUAL}\nQuestion:"}]


@dataclass(frozen=True)
class PhrasingTask:
    """What the model is asked to write, built from the structured result only."""

    question: str
    kind: str
    topic: str  # the entity asked about; the sentence must name it
    asked: str
    values: tuple[str, ...]
    value_noun: str  # what the values are, in the plural ("films", "directors")
    sources: tuple[str, ...]
    draft: str
    lead_in: bool  # write only the lead-in of a list the template prints

    @property
    def wording(self) -> tuple[tuple[str, ...], ...]:
        return tuple(w for s in self.sources for w in REQUIRED_WORDING.get(s, ()))

    @property
    def required(self) -> list[str]:
        """What the sentence must name: the topic, and every value unless the template prints the list."""
        return [t for t in (self.topic,) if t] + ([] if self.lead_in else list(self.values))

    @property
    def max_words(self) -> int:
        return LEAD_IN_MAX_WORDS if self.lead_in else 2 * len(words(self.draft)) + 5

    @property
    def keeps_draft_numbers(self) -> bool:
        return any(s != "kg" for s in self.sources)

    def messages(self) -> list[dict]:
        lines = [f"Kind: {self.kind}", f"Question: {self.question}"]
        about = f" ({self.asked})" if self.asked else ""
        if self.lead_in:
            lines += [
                f"Facts{about}: {len(self.values)} {self.value_noun}, listed after your words.",
                "Write only a short lead-in that ends with a colon. Do not list them.",
            ]
        else:
            lines.append(f"Facts{about}: " + "; ".join(self.values))
            if len(self.values) > 1:
                lines.append(f"Name all {len(self.values)} of them.")
        for source in self.sources:
            if source in SOURCE_NOTES:
                lines.append(f"Note: {SOURCE_NOTES[source]}.")
        if self.keeps_draft_numbers:
            keep = " and ".join(f'"{w[0]}"' for w in self.wording)
            lines += [f"Draft: {self.draft}", f"Keep the words {keep} and every number of the draft."]
        return [{"role": "system", "content": SYSTEM_PROMPT}, *EXAMPLES, {"role": "user", "content": "\n".join(lines)}]


def task_for(facts: Facts, template: Sentence, bundle: Bundle) -> tuple[PhrasingTask | None, str]:
    """(the task, "") or (None, why the template stays)."""
    kind = spec(facts.kind)
    if kind is None or not kind.phrased:
        return None, f"{facts.kind} answers keep their template"
    sources = tuple(dict.fromkeys([facts.source] + [f.source for f in facts.facts]))
    if facts.message and sources == ("kg",):
        return None, "the handler's own sentence is kept"
    if len(facts.chain) > 1:
        return None, "multi-hop answers keep their template wording"
    values = tuple(a.label for a in facts.answers)
    long_list = len(values) > LEAD_IN_OVER
    if long_list and any(s != "kg" for s in sources):
        return None, "long lists from the crowd or embeddings keep their template"
    asked, value_noun = "", "answers"
    if facts.chain and facts.chain[0].relation in bundle.relations:
        asked = describe_chain(facts, bundle)[0]
        value_noun = bundle.relations[facts.chain[0].relation].plural if facts.chain[0].to_value else "films"
    topic = facts.topic[0].label if facts.topic else ""
    task = PhrasingTask(facts.question, facts.kind, topic, asked, values, value_noun, sources, template.text, long_list)
    return task, ""
