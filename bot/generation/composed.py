"""The sentences of compositional answers: one function per result form (bot.core.results), written from the typed
result alone, so a form the answerers produce and no sentence can say fails a test (tests/test_constructions.py),
never a person's question.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.core.contracts import Facts, parse_chain
from bot.core.results import (
    AnyResult,
    CollaborationCountsResult,
    CollaboratorsResult,
    ComparisonResult,
    Condition,
    FilmCountResult,
    FilmSetResult,
    FilmsResult,
    MostResult,
    OrderedResult,
    OverviewResult,
    Result,
    SharedResult,
    ValueCountResult,
    VerificationResult,
)
from bot.core.terms import AggregateOp, Form, Group, Measure, Op
from bot.core.text import join_labels, join_or
from bot.generation.sentences import LIST_INLINE, LIST_LIMIT, capitalise, films_phrase, forward, indefinite, sentences_for, shown
from bot.kg.bundle import Bundle

MAX, MIN = AggregateOp.MAX, AggregateOp.MIN
ORDINAL_WORDS = {2: "second", 3: "third", 4: "fourth", 5: "fifth"}
SUPERLATIVE_WORDS = {(Measure.DURATION, MAX): "longest", (Measure.DURATION, MIN): "shortest", (Measure.DATE, MAX): "most recent",
                     (Measure.DATE, MIN): "oldest", (Measure.NUMBER, MAX): "highest", (Measure.NUMBER, MIN): "lowest",
                     (Measure.MONEY, MAX): "highest-grossing", (Measure.MONEY, MIN): "lowest-grossing"}
COMPARATIVE_WORDS = {(Measure.DURATION, True): "longer", (Measure.DURATION, False): "shorter", (Measure.DATE, True): "more recent",
                     (Measure.DATE, False): "older", (Measure.NUMBER, True): "higher", (Measure.NUMBER, False): "lower"}
NOT_IN = {Group.GENRE: "not in the genre ", Group.COUNTRY: "not from ", Group.LANGUAGE: "not in ", Group.RATING: "not rated "}
VALUE_IN = {Group.COUNTRY: "from {}", Group.LANGUAGE: "in {}", Group.AWARD: "that won the {}", Group.RATING: "rated {}",
            Group.SERIES: "of the {} series"}


def measure(relation) -> Measure:
    """How a relation's values compare: a date, a duration or a number."""
    if relation.kind in ("date", "year"):
        return Measure.DATE
    if relation.kind == "number" and any("long" in a for a in relation.asks):
        return Measure.DURATION
    return Measure.NUMBER


def _films_phrase(relation, label: str) -> str:
    """'directed by Steven Spielberg': the relation's noun phrase for its films, without 'films'."""
    return films_phrase(relation, label).removeprefix("films ")


def _number(text: str) -> str:
    value = float(text)
    return f"{int(value):,}" if value.is_integer() else f"{value:,.1f}"


def describe_condition(c: Condition, bundle: Bundle) -> str:
    """One condition of a film set in words: 'directed by Billy Wilder', 'longer than 120 minutes'."""
    relations = [bundle.relations[r] for r in c.relations if r in bundle.relations]
    values = join_labels(list(c.values), limit=4) if c.op.on_set else ""
    if c.op is Op.AMONG:
        return f"among {values}" if len(c.values) <= 4 else f"among those {len(c.values)} films"
    if c.op is Op.NOT_AMONG:
        return f"other than {values}"
    if c.op is Op.NOT_IN:
        return NOT_IN.get(c.group, "without ") + values
    if c.op is Op.IN and len(relations) == 1 and relations[0].value_class == Group.PERSON:
        return _films_phrase(relations[0], values)
    if c.op is Op.IN and len(relations) > 1:
        return f"with {values}"
    if c.op is Op.IN and c.group == Group.GENRE:
        return f"in the genre {c.values[0]}" + (" (or a kind of it)" if len(c.values) > 1 else "")
    if c.op is Op.IN:
        return VALUE_IN[c.group].format(values) if c.group in VALUE_IN else f"with {c.noun} {values}"
    if c.op.on_year:
        said = c.said
        if said and not re.match(r"(?i)(from|in|after|before|since|between|until|during|of|prior|pre|post)\b", said):
            said = f"from the {said}" if re.fullmatch(r"(?:\d\d)?\d0s", said) else f"from {said}"  # "90s films": from the 90s
        return said or ("from " if c.op is Op.YEAR_FROM else "until ") + c.values[0]
    if c.op.on_number:
        relation = relations[0] if relations else None
        amount = shown(relation, _number(c.values[0])) if relation is not None else _number(c.values[0])
        if relation is not None and measure(relation) is Measure.DURATION:
            return f"{'longer' if c.op.greater else 'shorter'} than {amount}"
        return f"with {indefinite(relation.noun if relation else 'value')} of {'more' if c.op.greater else 'less'} than {amount}"
    raise ValueError(f"no wording for the condition operator {c.op!r}")  # the conversation's films are resolved before answering


def describe_conditions(conditions: tuple[Condition, ...], bundle: Bundle) -> str:
    """The conditions of a film set in words: 'directed by Billy Wilder, longer than 120 minutes'."""
    merged: list[str] = []
    parts = [describe_condition(c, bundle) for c in conditions]
    for part in sorted(parts, key=lambda part: part.startswith("other than ")):  # what is left out comes last
        if part not in merged:  # "from the 90s" twice (from and until of one decade)
            merged.append(part)
    return ", ".join(merged)


def _where(result: FilmSetResult, bundle: Bundle) -> str:
    conditions = describe_conditions(result.conditions, bundle)
    return f" {conditions}" if conditions else ""


def _continued(sentence: str, names: list[str]) -> str:
    """A sentence continuing after 'Yes — ': its first word in lower case unless it starts one of the `names`
    ("Yes — the director of Heat is ...", but "Yes — The Dark Knight runs 152 minutes.")."""
    first = sentence.split(" ", 1)[0]
    if first not in ("The", "On", "My") or any(sentence.startswith(name) for name in names if name):
        return sentence
    return first.lower() + sentence[len(first):]


def _yes(holds: bool) -> str:
    return "Yes" if holds else "No"


def shared_sentence(c: SharedResult, facts: Facts, bundle: Bundle) -> str:
    """'The Godfather and Heat have 2 cast members in common: Al Pacino and Robert De Niro.', 'Yes — Alien and
    Blade Runner have the same director: Ridley Scott.', 'No — ... have no director in common (Alien: Ridley Scott;
    Heat: Michael Mann).' Items reached through films are said as those films ('the films directed by X')."""
    chain = parse_chain(c.chain)
    rels = [bundle.relations[h.relation] for h in chain]
    to_value = chain[-1].to_value
    noun, plural = (rels[-1].noun, rels[-1].plural) if to_value else ("film", "films")
    labels = [item.label for item in c.items]
    through_films = len(chain) == 2 and not chain[0].to_value
    who = join_labels([f"the {films_phrase(rels[0], label)}" if through_films else label for label in labels])
    if c.missing:
        return f"My knowledge graph has no {plural} for {join_labels(list(c.missing))}, so I cannot say what {who} have in common."
    values = [shown(rels[-1], v) if to_value else v for v in c.values]
    if values:
        single = all(len(item.values) == 1 for item in c.items)
        amount = f"the same {noun}" if single else f"{len(values)} {plural if len(values) > 1 else noun} in common"
        sentence = capitalise(f"{who} have {amount}: {join_labels(values, limit=LIST_LIMIT)}.")
        return f"Yes — {_continued(sentence, labels)}" if c.asked else sentence
    evidence = "; ".join(f"{item.label}: {join_labels([shown(rels[-1], v) if to_value else v for v in item.values], limit=4)}"
                         for item in c.items)
    sentence = capitalise(f"{who} have no {noun} in common in my knowledge graph ({evidence}).")
    return f"No — {_continued(sentence, labels)}" if c.asked else sentence


def verification_sentence(c: VerificationResult, facts: Facts, bundle: Bundle) -> str:
    relation = bundle.relations[c.relations[0]]
    if c.missing:
        return f"My knowledge graph has no {relation.noun} for {c.topic}, so I cannot say."
    if c.any_value:
        return f"Yes — {_continued(forward(relation, c.topic, list(c.values)), [c.topic, *c.values])}" if c.holds else f"No — my knowledge graph lists no Academy Award for {c.topic}."
    values = join_labels(list(c.values))
    evidence = _continued(forward(relation, c.topic, list(c.values)), [c.topic, *c.values]) if len(c.relations) == 1 and c.values else ""
    if evidence and (c.literal is not None or len(c.values) <= LIST_INLINE):  # a literal: the film's own value is the evidence
        return f"{_yes(c.holds)} — {evidence}"
    if c.literal is not None:
        return f"{_yes(c.holds)} — the {relation.noun} of {c.topic} is {shown(relation, values)}."
    if c.holds and len(c.relations) == 1:
        return f"Yes — {c.value} is {'among the ' + relation.plural if len(c.values) > 1 else 'the ' + relation.noun} of {c.topic}."
    if c.holds:
        return f"Yes — {c.value} took part in {c.topic}."
    if len(c.relations) > 1:
        return f"No — my knowledge graph does not show {c.value} in {c.topic}."
    if len(c.values) > LIST_INLINE:
        return f"No — my knowledge graph lists {len(c.values)} {relation.plural} of {c.topic}, and {c.value} is not one of them."
    return f"No — the {relation.plural if len(c.values) > 1 else relation.noun} of {c.topic} {'are' if len(c.values) > 1 else 'is'} {values}."


def comparison_sentence(c: ComparisonResult, facts: Facts, bundle: Bundle) -> str:
    relation = bundle.relations[c.relation]
    if c.missing:
        return f"My knowledge graph has no {relation.noun} for {join_labels(list(c.missing))}, so I cannot compare them."
    parts = [f"{v.label}: {shown(relation, v.value) if not c.count else v.value}" for v in c.values]
    if c.count:
        what = "Academy Awards" if c.oscars else relation.plural if relation.value_class != Group.PERSON else "films"
        evidence = f"({'; '.join(parts)} {what})"
        word = "more" if c.greater else "fewer"
    else:
        evidence = f"({'; '.join(parts)})"
        word = COMPARATIVE_WORDS.get((measure(relation), c.greater), "ahead")
    if c.undecided:
        return f"I cannot tell: my knowledge graph dates {join_labels(list(c.undecided))} only to the {c.precision} {evidence}."
    if c.tie:
        lead = f"They are level {evidence}."
        return f"No — {lead}" if c.asked else lead
    claim = f"{c.winners[0]} {'has' if c.count else 'is'} {word} {evidence}."  # "has more (...)"
    return f"{_yes(c.holds)} — {claim}" if c.asked else claim


def value_count_sentence(c: ValueCountResult, facts: Facts, bundle: Bundle) -> str:
    relation = bundle.relations[c.relation]
    count = len(c.items)
    what = ("Academy Award" if count == 1 else "Academy Awards") if c.oscars else relation.noun if count == 1 else relation.plural
    items = f": {join_labels(list(c.items))}" if c.items else ""
    return f"{c.topic} has {count} {what} in my knowledge graph{items}."


def film_count_sentence(c: FilmCountResult, facts: Facts, bundle: Bundle) -> str:
    extra = f" ({c.strict} counting only the genre itself)" if c.strict is not None and c.strict != c.total else ""
    examples = f", for example {join_labels(list(c.items))}" if c.items and c.total else ""
    return f"My knowledge graph has {c.total} film{'s' if c.total != 1 else ''}{_where(c, bundle)}{extra}{examples}."


def ordered_sentence(c: OrderedResult, facts: Facts, bundle: Bundle) -> str:
    relation = bundle.relations[c.relation]
    where = _where(c, bundle)
    films = join_labels([a.label for a in facts.answers])
    if c.counting:
        what = "Academy Awards" if c.oscars else relation.plural
        if c.empty:
            return f"My knowledge graph has no {what} for the films{where}."
        return f"The film{where} with the most {what} is {films} ({c.value})." if len(facts.answers) == 1 else \
            f"The films{where} with the most {what} are {films} ({c.value} each)."
    if c.empty and c.rank > 1:
        return f"My knowledge graph does not have {c.rank} films{where} with a {relation.noun}, so I cannot say which is {ORDINAL_WORDS.get(c.rank, f'{c.rank}th')}."
    if c.empty:
        return f"My knowledge graph has no {relation.noun} for the films{where}, so I cannot say which comes first."
    money = sentences_for(relation).format == "usd"  # "the highest-grossing film", not "the highest film"
    word = SUPERLATIVE_WORDS.get((Measure.MONEY if money else measure(relation), c.op), "top")
    if c.rank > 1:  # "the second oldest film directed by ...": her second film
        word = f"{ORDINAL_WORDS.get(c.rank, f'{c.rank}th')} {word}"
    value = shown(relation, c.value)
    listed = next((x.values for x in c.conditions if x.op is Op.AMONG), ())
    scope = "" if listed else " in my knowledge graph"
    lacking = f" My knowledge graph has no {relation.noun} for {join_labels(list(c.unknown))}." if c.unknown else ""
    if lacking and len(listed) - len(c.unknown) == 1:  # nothing to compare with: no "longest" is claimed
        return f"Of {join_labels(list(listed))}, only {films} has a {relation.noun} in my knowledge graph ({value}).{lacking}"
    if len(facts.answers) == 1:
        return f"The {word} film{where}{scope} is {films} ({value}).{lacking}"
    return f"The {word} films{where}{scope} are {films} ({value} each).{lacking}"


def most_sentence(c: MostResult, facts: Facts, bundle: Bundle) -> str:
    relation = bundle.relations[c.relation]
    where = _where(c, bundle)
    if c.empty and c.left_out:  # the films may exist: only the values the question named were found on them
        return f"My knowledge graph names no {relation.noun} of the films{where} besides {join_labels(list(c.left_out))}."
    if c.empty:
        return f"My knowledge graph has no films{where}."
    winners = join_labels(list(c.winners))
    lead = f"The {relation.noun} of the most films{where} in my knowledge graph"
    return f"{lead} is {winners} ({c.count} films)." if len(c.winners) == 1 else f"{lead} are {winners} ({c.count} films each)."


def any_sentence(c: AnyResult, facts: Facts, bundle: Bundle) -> str:
    where = _where(c, bundle)
    if not c.total:
        return f"No — I found no film in my knowledge graph{where}."
    films = join_labels(list(c.items), limit=len(c.items))
    more = f" ({c.total} in all, the best known first)" if c.total > len(c.items) else ""
    return f"Yes — films{where}{more}: {films}."


def films_sentence(c: FilmsResult, facts: Facts, bundle: Bundle) -> str:
    where = _where(c, bundle)
    labels = [a.label for a in facts.answers]
    if not labels:
        return f"I found no film in my knowledge graph{where}." if where else "I found no such film in my knowledge graph."
    lead = f"Films{where}" if where else "Films"
    if c.total > len(labels):
        return f"{lead} ({c.total} in all, the best known first): {join_labels(labels, limit=len(labels))}."
    return f"{lead}: {join_labels(labels, limit=len(labels))}."


def overview_sentence(c: OverviewResult, facts: Facts, bundle: Bundle) -> str:
    """'Heat (1995) was directed by Michael Mann. The genres of Heat are crime film and drama film. It stars Al Pacino, ...';
    'In my knowledge graph, Jane Campion is the director of 8 films and the screenwriter of 7 films. Her best-known films
    are ...' (a person's films are said with their roles' nouns, which every bundle has)."""
    if c.group == Group.PERSON:
        if not c.roles:
            return f"My knowledge graph has {c.topic}, but no films of theirs."
        roles = join_labels([f"the {bundle.relations[r.relation].noun} of {r.films} film{'s' if r.films != 1 else ''}" for r in c.roles])
        known = f" The best known of them: {join_labels(list(c.known_for))}." if c.known_for else ""
        return f"In my knowledge graph, {c.topic} is {roles}.{known}"
    named = f"{c.topic} ({c.year})" if c.year else c.topic
    sentences = []
    for relation, values in c.facts:
        subject = named if not sentences else c.topic
        sentence = forward(bundle.relations[relation], subject, list(values))
        if sentences and sentence.startswith(c.topic + " "):
            sentence = "It" + sentence[len(c.topic):]
        sentences.append(sentence)
    if not sentences:
        return f"{named} is a film in my knowledge graph, which holds little more about it." if c.year else \
            f"My knowledge graph has {c.topic}, but little about it."
    return " ".join(sentences)


def _persons_films(label: str, roles: tuple[str, ...], films: int, bundle: Bundle) -> str:
    """'films directed by Steven Spielberg'; 'films with Clint Eastwood as director or cast member' for several roles."""
    if len(roles) == 1:
        return films_phrase(bundle.relations[roles[0]], label, films)
    return f"film{'s' if films != 1 else ''} with {label} as {join_or([bundle.relations[r].noun for r in roles])}"


def _partner_part(partner_roles: tuple[str, ...], any_role: bool, bundle: Bundle, many: bool = False) -> str:
    """How a partner took part: 'worked on', 'is credited as composer on' ('are credited as composers on')."""
    if any_role or len(partner_roles) != 1:
        return "worked on"
    relation = bundle.relations[partner_roles[0]]
    return f"are credited as {relation.plural} on" if many else f"is credited as {relation.noun} on"


def collaborators_sentence(c: CollaboratorsResult, facts: Facts, bundle: Bundle) -> str:
    """'Janusz Kamiński is credited as director of photography on 6 of the 12 films directed by Steven Spielberg in my knowledge
    graph, more than anyone else.'"""
    films = _persons_films(c.person, c.roles, c.films, bundle)
    if not c.films:
        return f"My knowledge graph has no {films}."
    if not c.count:
        who = "one else" if c.any_role else join_or([bundle.relations[r].noun for r in c.partner_roles])
        return f"My knowledge graph names no {who} for the {c.films} {films}."
    several = len(c.winners) > 1
    part = _partner_part(c.partner_roles, c.any_role, bundle, several)
    if several:  # "X and Y each worked on", "X and Y are each credited as ..."
        part = part.replace("are ", "are each ") if part.startswith("are ") else f"each {part}"
    ending = "more than anyone else" if not several else "and nobody on more"
    return f"{join_labels(list(c.winners))} {part} {c.count} of the {c.films} {films} in my knowledge graph, {ending}."


def collaboration_counts_sentence(c: CollaborationCountsResult, facts: Facts, bundle: Bundle) -> str:
    """'Yes — of the 25 films directed by Martin Scorsese in my knowledge graph, Robert De Niro worked on 9 and Leonardo
    DiCaprio on 6.'"""
    films = _persons_films(c.person, c.roles, c.films, bundle)
    if not c.films:
        return f"My knowledge graph has no {films}, so I cannot compare who worked on more of them."
    part = _partner_part(c.partner_roles, c.any_role, bundle)
    first, *rest = c.counts
    tail = join_labels([f"{v.label} {part.split()[-1]} {v.value}" for v in rest])
    body = f"of the {c.films} {films} in my knowledge graph, {first.label} {part} {first.value} and {tail}"
    if c.asked:
        return f"{_yes(c.holds)} — {body}."
    if c.tie:
        return f"Neither shares more — {body}."
    return f"{join_labels(list(c.winners))} — {body}."


RENDERERS: dict[Form, Callable[..., str]] = {
    Form.VERIFICATION: verification_sentence, Form.COMPARISON: comparison_sentence, Form.SHARED: shared_sentence,
    Form.VALUE_COUNT: value_count_sentence, Form.FILM_COUNT: film_count_sentence, Form.ORDERED: ordered_sentence,
    Form.MOST: most_sentence, Form.ANY: any_sentence, Form.FILMS: films_sentence, Form.OVERVIEW: overview_sentence,
    Form.COLLABORATORS: collaborators_sentence, Form.COLLABORATION_COUNTS: collaboration_counts_sentence,
}


def result_sentence(facts: Facts, bundle: Bundle) -> str:
    """The sentence of a compositional answer, from its typed result."""
    result: Result = facts.result
    return RENDERERS[result.form](result, facts, bundle)
