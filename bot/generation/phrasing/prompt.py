"""What the phrasing model is asked: a system prompt, worked examples and one task built from the facts only."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from bot.core.contracts import Facts, Hop, Sentence
from bot.core.kinds import Kind, spec
from bot.core.results import ComparisonResult, FilmsResult, VerificationResult
from bot.core.terms import Op
from bot.core.text import join_labels
from bot.generation.composed import COMPARATIVE_WORDS, measure
from bot.generation.phrasing.guard import FILM_SLOT, VALUE_SLOT, relation_cues, words
from bot.generation.sentences import LIST_INLINE, LIST_LIMIT, forward, inverse, shown
from bot.generation.templates import describe_chain, display_name, path_phrase

LEAD_IN_OVER = LIST_INLINE  # longer lists are printed by the template; the model writes only their lead-in
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
    {"role": "user", "content": f"Kind: {Kind.FACTUAL}\nQuestion: what films did Ingrid Bergman act in\nFacts (the films starring Ingrid Bergman): Casablanca; Gaslight\nName all 2 of them."},
    {"role": "assistant", "content": "Ingrid Bergman acted in Casablanca and Gaslight."},
    {"role": "user", "content": f"Kind: {Kind.FACTUAL}\nQuestion: who directed Casablanca\nFacts (the director of Casablanca): Michael Curtiz"},
    {"role": "assistant", "content": "Casablanca was directed by Michael Curtiz."},
    {"role": "user", "content": f"Kind: {Kind.FACTUAL}\nQuestion: what kind of film is Casablanca\nFacts (the genre of Casablanca): Romance"},
    {"role": "assistant", "content": "Casablanca is a romance film."},
    {"role": "user", "content": f"Kind: {Kind.FACTUAL}\nQuestion: which movies did Michael Curtiz direct\nFacts (the films directed by Michael Curtiz): 9 films, listed after your words.\nWrite only a short lead-in that ends with a colon. Do not list them."},
    {"role": "assistant", "content": "Michael Curtiz directed these 9 films:"},
    # the relations that failed most: genres and tags (lower-case values), and lists of one film
    {"role": "user", "content": f"Kind: {Kind.FACTUAL}\nQuestion: what type of film is Casablanca\nFacts (the genres of Casablanca): romance; drama\nName all 2 of them."},
    {"role": "assistant", "content": "Casablanca is a romance and drama film."},
    {"role": "user", "content": f"Kind: {Kind.FACTUAL}\nQuestion: what is Casablanca about\nFacts (the tags of Casablanca): world war ii"},
    {"role": "assistant", "content": "Casablanca is tagged world war ii."},
    {"role": "user", "content": f"Kind: {Kind.FACTUAL}\nQuestion: what movies did Dooley Wilson appear in\nFacts (the films starring Dooley Wilson): Casablanca"},
    {"role": "assistant", "content": "Dooley Wilson appeared in Casablanca."},
    {"role": "user", "content": f"Kind: {Kind.FACTUAL}\nQuestion: how long is Casablanca\nFacts (the duration of Casablanca): 102 minutes"},
    {"role": "assistant", "content": "Casablanca runs 102 minutes."},
    # multi-hop answers: the path said with the name it starts from as the subject, and what the values are
    {"role": "user", "content": f"Kind: {Kind.FACTUAL}\nQuestion: what genres are the movies starring Dooley Wilson\nFacts (the genres of the 2 films starring Dooley Wilson): Drama; Musical\nName all 2 of them."},
    {"role": "assistant", "content": "The films starring Dooley Wilson are in the genres Drama and Musical."},
    {"role": "user", "content": f"Kind: {Kind.FACTUAL}\nQuestion: who directed the films written by Julius Epstein\nFacts (the director of the 3 films written by Julius Epstein): Michael Curtiz"},
    {"role": "assistant", "content": "Michael Curtiz directed the 3 films written by Julius Epstein."},
    {"role": "user", "content": f"Kind: {Kind.FACTUAL}\nQuestion: when were the other films by the director of Casablanca released\nFacts (the release dates of the other films directed by the director of Casablanca (Michael Curtiz)): 9 release dates, listed after your words.\nWrite only a short lead-in that ends with a colon. Do not list them."},
    {"role": "assistant", "content": "Michael Curtiz also directed films released in these 9 years:"},
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
    values: tuple[str, ...]  # what the sentence must name, as one list, shown with units ("126 minutes")
    value_noun: str  # what the values are, in the plural ("films", "directors")
    sources: tuple[str, ...]
    draft: str
    listed: tuple[str, ...] = ()  # a long list the template prints after the model's lead-in
    names: tuple[str, ...] = ()  # other names the sentence may use (the path of a multi-hop answer, compared films)
    opener: tuple[str, ...] = ()  # how the sentence must start ("Yes", "No")
    topic_first: bool = False  # the topic is the sentence's subject (a comparison's winner)
    suffix: str = ""  # the template's words that follow the model's (a comparison's figures)
    replaces: str = ""  # the line of the draft the model's words replace (a recommendation's lead-in); "" = all of it
    lead: bool = False  # a lead-in that ends with a colon, whatever follows it
    instruction: str = ""  # what to write, when it is not the usual sentence
    claim: tuple[str, ...] = ()  # words the sentence must keep ("longer"): what it claims
    opposite: frozenset[str] = frozenset()  # words it may not use ("shorter")
    chain: tuple[Hop, ...] = ()  # the relations the sentence is about (whose wording it may use)
    topic_forms: tuple[str, ...] = ()  # other ways to say the topic ("Jeremy Jordan starred in" for "starring Jeremy Jordan")

    @property
    def lead_in(self) -> bool:
        return bool(self.listed) or self.lead

    @property
    def wording(self) -> tuple[tuple[str, ...], ...]:
        return tuple(w for s in self.sources for w in REQUIRED_WORDING.get(s, ())) + ((self.claim,) if self.claim else ())

    @property
    def required(self) -> list[str]:
        """What the sentence must name: the topic (when it has one form) and the values (a lead-in's list follows it)."""
        return [t for t in (self.topic,) if t and not self.topic_forms] + list(self.values)

    @property
    def said(self) -> tuple[tuple[str, ...], ...]:
        """The phrases the guard requires, each as its accepted alternatives: the wording, and a topic that has several forms."""
        return self.wording + (((self.topic, *self.topic_forms),) if self.topic_forms else ())

    @property
    def max_words(self) -> int:
        return LEAD_IN_MAX_WORDS if self.lead_in else 2 * len(words(self.replaces or self.draft)) + 5

    @property
    def keeps_draft_numbers(self) -> bool:
        return any(s != "kg" for s in self.sources)

    def assemble(self, text: str) -> str:
        """The sentence users see: the model's words, with what the template adds after them."""
        if self.replaces:
            return self.draft.replace(self.replaces, text.rstrip(" .:;,") + ":", 1)
        if self.listed:
            return text.rstrip(" .:;,") + ": " + join_labels(list(self.listed), limit=LIST_LIMIT) + "."
        if self.suffix:
            return text.rstrip(" .") + " " + self.suffix
        return text

    def messages(self) -> list[dict]:
        lines = [f"Kind: {self.kind}", f"Question: {self.question}"]
        about = f" ({self.asked})" if self.asked else ""
        if self.instruction:
            lines += [f"Draft: {self.replaces or self.draft}", self.instruction]
        elif self.listed:
            lines += [
                f"Facts{about}: {len(self.listed)} {self.value_noun}, listed after your words.",
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


OPPOSITES = {
    "longer": {"shorter"}, "shorter": {"longer"}, "higher": {"lower", "less"}, "lower": {"higher", "more"},
    "more": {"fewer", "less", "lower"}, "fewer": {"more", "higher"},
    "older": {"newer", "recent", "later", "younger"}, "recent": {"older", "earlier", "first"},
}


def task_for(facts: Facts, template: Sentence, bundle) -> tuple[PhrasingTask | None, str]:
    """(the task, "") or (None, why the template stays)."""
    kind = spec(facts.kind)
    if kind is None or not kind.phrased:
        return None, f"{facts.kind} answers keep their template"
    if facts.parts:
        return None, "several asks are phrased one by one"
    if facts.kind == Kind.RECOMMENDATION:
        return _recommendation(facts, template)
    sources = tuple(dict.fromkeys([facts.source] + [f.source for f in facts.facts]))
    if facts.message and sources == ("kg",):
        return None, "the handler's own sentence is kept"
    if facts.result is not None:
        return _composition(facts, template, bundle)
    if facts.extra.get("excluded"):
        return None, "answers with names set aside keep their template (the model would count them as all)"
    values = tuple(a.label for a in facts.answers)
    long_list = len(values) > LEAD_IN_OVER
    if long_list and any(s != "kg" for s in sources):
        return None, "long lists from the crowd or embeddings keep their template"
    asked, value_noun, last = "", "answers", None
    if facts.chain and all(h.relation in bundle.relations for h in facts.chain):
        asked = describe_chain(facts, bundle)[0]
        last = bundle.relations[facts.chain[-1].relation] if facts.chain[-1].to_value else None
        value_noun = last.plural if last else "films"
    if sources == ("kg",):  # the template's own forms: with units, as money, dates with their prepositions removed
        values = tuple(shown(last, v) for v in values)
    topic = facts.topic[0].label if facts.topic else ""
    names = tuple(dict.fromkeys([*facts.extra.get("path", []), *(display_name(e) for e in facts.topic)]))
    claim: tuple[str, ...] = ()
    if len(facts.chain) > 1:  # the sentence keeps the path as the template says it, and what the values are
        # the path without its head noun: "films written by X" and "the movie written by X" both keep "written by X"
        topic = re.sub(r"^(?:the )?(?:\d+ )?(?:films?|movies?) ", "", path_phrase(facts, bundle))
        # the relation's noun, or a word that says it ("starred" for the cast)
        claim = (last.noun, last.plural, *last.synonyms, *sorted(relation_cues(bundle).get(last.name, ()))) if last else ()
    elif len(facts.chain) == 1 and facts.chain[0].relation in bundle.relations:  # either way: "F is tagged V", "V's films are tagged V"
        relation = bundle.relations[facts.chain[0].relation]
        claim = (participle, relation.noun, relation.plural, *relation.synonyms) if (participle := _participle(relation)) else ()
    forms = active_topic(facts, bundle) if len(facts.chain) > 1 else ()
    if long_list:
        return PhrasingTask(facts.question, facts.kind, topic, asked, (), value_noun, sources, template.text, listed=values, names=names,
                            claim=claim, topic_forms=forms), ""
    return PhrasingTask(facts.question, facts.kind, topic, asked, values, value_noun, sources, template.text, names=names, claim=claim,
                        topic_forms=forms), ""


def _participle(relation) -> str:
    """The participle of a relation whose sentence is "F is tagged V" ("tagged", "rated", "based"), or "".

    Such a relation must be named in a phrased sentence: without its word, "Van Gogh is a painter" (for
    the tag "painter") and "The Clock is described as Vincente Minnelli" say something else."""
    said = forward(relation, FILM_SLOT, [VALUE_SLOT])
    found = re.search(rf"{FILM_SLOT} (?:is|are|was|were) ([a-z]+ed) (?:[a-z]+ )?{VALUE_SLOT}", said)
    return found.group(1) if found else ""


def active_topic(facts: Facts, bundle) -> tuple[str, ...]:
    """The films of a path said with the value they share as the subject, as the template says a value's films:
    "Jeremy Jordan starred in" for "films starring Jeremy Jordan"; for "the other films directed by the director
    of The Color of Friendship (Kevin Hooks)", "Kevin Hooks also directed", "Kevin Hooks directed" and "share
    directors with The Color of Friendship" (or () for other paths).

    Asked about the genres of the films starring Jeremy Jordan, the model mostly starts "Jeremy Jordan starred
    in 2 films ..."; with the path's noun phrase as the only form of the topic the grammar stopped it there."""
    hops, path = facts.chain, facts.extra.get("path", [])
    if not facts.topic or any(h.relation not in bundle.relations for h in hops[:2]):
        return ()
    if not hops[0].to_value:  # from the topic to its films
        return _films_of(bundle.relations[hops[0].relation], display_name(facts.topic[0]), ("",))
    if hops[1].to_value or not path:
        return ()
    # from the topic to its values, then to their other films: what those values did, or what the films share
    relation = bundle.relations[hops[1].relation]
    forms = _films_of(relation, join_labels(path), (" also", "")) if len(path) <= 3 else ()
    if hops[0].relation == hops[1].relation:
        film = display_name(facts.topic[0])
        nouns = dict.fromkeys([relation.plural, relation.noun, *(f"{s}s" for s in relation.synonyms)])
        forms += tuple(f"share {noun} with {the}{film}" for noun in nouns for the in ("", "the film ", "the movie "))
    return forms


def _films_of(relation, value: str, adverbs: tuple[str, ...]) -> tuple[str, ...]:
    """The template's sentence for the films of `value` up to the films ("Kevin Hooks directed"), with each of
    `adverbs` after the value ("Kevin Hooks also directed")."""
    said = inverse(relation, value, [FILM_SLOT])
    head = said.split(FILM_SLOT)[0].strip()
    if FILM_SLOT not in said or not head.startswith(value) or head == value:
        return ()
    return tuple(value + adverb + head[len(value) :] for adverb in adverbs)


def _recommendation(facts: Facts, template: Sentence) -> tuple[PhrasingTask | None, str]:
    """The lead-in of a recommendation list ("Since you like A and B, you might enjoy:"): the model may
    reword it; the numbered picks and their reasons stay as the template wrote them."""
    lines = template.text.split("\n")
    first = next((i for i, line in enumerate(lines) if re.match(r"^1\. ", line)), None)
    liked = tuple(e.label for e in facts.topic)
    if first is None or first == 0 or not lines[first - 1].endswith(":") or not 1 <= len(liked) <= 3 or "(" in lines[first - 1]:
        return None, "this recommendation keeps its template lead-in"
    intro = lines[first - 1]
    return PhrasingTask(facts.question, facts.kind, "", "", liked, "films", ("kg",), template.text, replaces=intro, lead=True,
                        instruction="Reword this lead-in of a list of recommended films. Name the films the user likes and end with a colon."), ""


def _composition(facts: Facts, template: Sentence, bundle) -> tuple[PhrasingTask | None, str]:
    """Yes/no answers and comparisons: the model words the claim; its polarity, its subject and the figures
    (which the template appends) are fixed."""
    c = facts.result
    if getattr(c, "missing", False) or getattr(c, "tie", False):
        return None, "this answer keeps its template"
    if isinstance(c, FilmsResult) and len(c.conditions) == 1 and c.total == len(facts.answers):
        only = c.conditions[0]  # films with one condition ("what movies are about hoodoo"): a value's films
        if only.op is Op.IN and len(only.relations) == 1 and only.relations[0] in bundle.relations \
                and tuple(e.label for e in facts.topic) == only.values:
            chain = (Hop(only.relations[0], False),)
            task, why = task_for(replace(facts, chain=chain, result=None), template, bundle)
            if task is not None and task.listed and ": " in template.text:  # the template's own list follows the lead-in
                task = replace(task, replaces=template.text[: template.text.index(": ") + 1])  # (years tell namesakes apart)
            return (replace(task, chain=chain) if task else None), why
    if isinstance(c, VerificationResult) and len(c.relations) == 1 and c.values and not c.any_value \
            and c.relations[0] in bundle.relations and len(c.values) <= LEAD_IN_OVER:
        relation = bundle.relations[c.relations[0]]
        values = tuple(shown(relation, v) for v in c.values)
        names = (c.value,) if c.value and c.literal is None else ()
        return PhrasingTask(facts.question, facts.kind, c.topic, f"the {relation.plural if len(values) > 1 else relation.noun} of {c.topic}",
                            values, relation.plural, ("kg",), template.text, names=names, opener=("Yes" if c.holds else "No",),
                            chain=(Hop(relation.name, True),),
                            instruction=f"Rewrite the draft as one sentence that starts with \"{'Yes' if c.holds else 'No'}\"."), ""
    if isinstance(c, ComparisonResult) and c.relation in bundle.relations and c.winners:
        relation = bundle.relations[c.relation]
        word = ("more" if c.greater else "fewer") if c.count else COMPARATIVE_WORDS.get((measure(relation), c.greater), "")
        evidence = template.text[template.text.rfind(" ("):].strip() if " (" in template.text else ""
        if not word or not evidence:
            return None, "this comparison keeps its template"
        key = word.split()[-1]
        winner = c.winners[0]
        names = tuple(v.label for v in c.values if v.label != winner)
        opener = ("Yes" if c.holds else "No",) if c.asked else ()
        return PhrasingTask(facts.question, facts.kind, winner, "", (), relation.plural, ("kg",), template.text, names=names, opener=opener,
                            topic_first=True, suffix=evidence, claim=(key,), opposite=frozenset(OPPOSITES.get(key, ())),
                            chain=(Hop(relation.name, True),),
                            instruction=f"Say in one short sentence that {winner} {'has' if c.count else 'is'} {word}, without the figures."
                                        + (f" Start with \"{opener[0]}\"." if opener else "")), ""
    return None, f"{c.form} answers keep their template"
