"""The generation layer: deterministic template sentences for every answer kind.

These sentences are always correct by construction (they only print verified values);
the optional LLM phraser rewrites them and is checked against them.
"""

from __future__ import annotations

import re
from dataclasses import replace

from bot.core.contracts import Facts, Sentence, parse_chain
from bot.core.kinds import Kind
from bot.core.text import join_labels
from bot.generation.sentences import LIST_INLINE, LIST_LIMIT, capitalise, films_phrase, forward, indefinite, inverse, sentences_for, shown
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
        if topic is not None and previous is not None and topic.iri == previous.iri and topic.group == "film":
            name = display_name(topic)
            if text.startswith(name + " ") and not text.startswith(name + " (") and "composition" not in part.extra:
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
    if "composition" in facts.extra:
        return Sentence(composed_sentence(facts, bundle))
    if facts.kind == Kind.FACTUAL and facts.chain and facts.extra.get("excluded"):
        return Sentence(besides_sentence(facts, bundle))
    if facts.kind == Kind.FACTUAL and facts.chain:
        return Sentence(chain_sentence(facts, bundle))
    labels = [a.label for a in facts.answers]
    return Sentence(join_labels(labels) + "." if labels else "I have nothing to say about that.")


# ---------------------------------------------------------------- compositional answers

def _films_phrase(relation, label: str) -> str:
    """'directed by Steven Spielberg': the relation's noun phrase for its films, without 'films'."""
    return films_phrase(relation, label).removeprefix("films ")


def describe_conditions(composition: dict, bundle: Bundle) -> str:
    """The conditions of a film set in words: 'directed by Billy Wilder, longer than 120 minutes'."""
    parts = []
    for c in composition.get("constraints", []):
        relations = [bundle.relations[r] for r in c["relations"] if r in bundle.relations]
        values = join_labels(c["values"], limit=4) if c["op"] in ("in", "not_in", "among", "not_among") else ""
        if c["op"] == "among":
            parts.append(f"among {values}" if len(c["values"]) <= 4 else f"among those {len(c['values'])} films")
        elif c["op"] == "not_among":
            parts.append(f"other than {values}")
        elif c["op"] == "not_in":
            kind = {"genre": "not in the genre ", "country": "not from ", "language": "not in ", "rating": "not rated "}
            parts.append(kind.get(c.get("group", ""), "without ") + values)
        elif c["op"] == "in" and len(relations) == 1 and relations[0].value_class == "person":
            parts.append(_films_phrase(relations[0], values))
        elif c["op"] == "in" and len(relations) > 1:
            parts.append(f"with {values}")
        elif c["op"] == "in":
            group = c["group"]
            if group == "genre":
                parts.append(f"in the genre {c['values'][0]}" + (" (or a kind of it)" if len(c["values"]) > 1 else ""))
            elif group == "country":
                parts.append(f"from {values}")
            elif group == "language":
                parts.append(f"in {values}")
            elif group == "award":
                parts.append(f"that won the {values}")
            elif group == "rating":
                parts.append(f"rated {values}")
            elif group == "series":
                parts.append(f"of the {values} series")
            else:
                parts.append(f"with {c['noun']} {values}")
        elif c["op"].startswith("year"):
            said = c["said"]
            if said and not re.match(r"(?i)(from|in|after|before|since|between|until|during|of|prior|pre|post)\b", said):
                said = f"from the {said}" if re.fullmatch(r"(?:\d\d)?\d0s", said) else f"from {said}"  # "90s films": from the 90s
            parts.append(said or ("from " if c["op"] == "year>=" else "until ") + c["values"][0])
        else:
            relation = relations[0] if relations else None
            more = c["op"].startswith(">")
            amount = _with_unit(relation, _number(c["values"][0])) if relation is not None else _number(c["values"][0])
            if relation is not None and measure(relation) == "duration":
                parts.append(f"{'longer' if more else 'shorter'} than {amount}")
            else:
                parts.append(f"with {indefinite(relation.noun if relation else 'value')} of {'more' if more else 'less'} than {amount}")
    merged = []
    for part in sorted(parts, key=lambda part: part.startswith("other than ")):  # what is left out comes last
        if part not in merged:  # "from the 90s" twice (from and until of one decade)
            merged.append(part)
    return ", ".join(merged)


def _number(text: str) -> str:
    value = float(text)
    return f"{int(value):,}" if value.is_integer() else f"{value:,.1f}"


SUPERLATIVE_WORDS = {("duration", "max"): "longest", ("duration", "min"): "shortest", ("date", "max"): "most recent",
                     ("date", "min"): "oldest", ("number", "max"): "highest", ("number", "min"): "lowest",
                     ("money", "max"): "highest-grossing", ("money", "min"): "lowest-grossing"}
COMPARATIVE_WORDS = {("duration", True): "longer", ("duration", False): "shorter", ("date", True): "more recent",
                     ("date", False): "older", ("number", True): "higher", ("number", False): "lower"}


def measure(relation) -> str:
    """'duration', 'date' or 'number': how a relation's values compare."""
    if relation.kind in ("date", "year"):
        return "date"
    if relation.kind == "number" and any("long" in a for a in relation.asks):
        return "duration"
    return "number"


def _with_unit(relation, value: str) -> str:
    return shown(relation, value)


def _continued(sentence: str, names: list[str]) -> str:
    """A sentence continuing after 'Yes — ': its first word in lower case unless it starts one of the `names`
    ("Yes — the director of Heat is ...", but "Yes — The Dark Knight runs 152 minutes.")."""
    first = sentence.split(" ", 1)[0]
    if first not in ("The", "On", "My") or any(sentence.startswith(name) for name in names if name):
        return sentence
    return first.lower() + sentence[len(first):]


def shared_sentence(c: dict, bundle: Bundle) -> str:
    """'The Godfather and Heat have 2 cast members in common: Al Pacino and Robert De Niro.', 'Yes — Alien and
    Blade Runner have the same director: Ridley Scott.', 'No — ... have no director in common (Alien: Ridley Scott;
    Heat: Michael Mann).' Items reached through films are said as those films ('the films directed by X')."""
    chain = parse_chain(c["chain"])
    rels = [bundle.relations[h.relation] for h in chain]
    to_value = chain[-1].to_value
    noun, plural = (rels[-1].noun, rels[-1].plural) if to_value else ("film", "films")
    labels = [item["label"] for item in c["items"]]
    through_films = len(chain) == 2 and not chain[0].to_value
    who = join_labels([f"the {films_phrase(rels[0], label)}" if through_films else label for label in labels])
    if c.get("missing"):
        return f"My knowledge graph has no {plural} for {join_labels(c['missing'])}, so I cannot say what {who} have in common."
    values = [shown(rels[-1], v) if to_value else v for v in c["values"]]
    if values:
        single = all(len(item["values"]) == 1 for item in c["items"])
        amount = f"the same {noun}" if single else f"{len(values)} {plural if len(values) > 1 else noun} in common"
        sentence = capitalise(f"{who} have {amount}: {join_labels(values, limit=LIST_LIMIT)}.")
        return f"Yes — {_continued(sentence, labels)}" if c["asked"] else sentence
    evidence = "; ".join(f"{item['label']}: {join_labels([shown(rels[-1], v) if to_value else v for v in item['values']], limit=4)}"
                         for item in c["items"])
    sentence = capitalise(f"{who} have no {noun} in common in my knowledge graph ({evidence}).")
    return f"No — {_continued(sentence, labels)}" if c["asked"] else sentence


def composed_sentence(facts: Facts, bundle: Bundle) -> str:
    c = facts.extra["composition"]
    form = c["form"]
    if form == "shared":
        return shared_sentence(c, bundle)
    conditions = describe_conditions(c, bundle)
    where = f" {conditions}" if conditions else ""
    if form == "verification":
        relation = bundle.relations[c["relations"][0]]
        noun = "part in" if len(c["relations"]) > 1 else f"{relation.noun} of"
        if c.get("missing"):
            return f"My knowledge graph has no {relation.noun} for {c['topic']}, so I cannot say."
        if c.get("any"):
            kind = "Academy Award" if c.get("values") or True else "award"
            if c["holds"]:
                return f"Yes — {c['topic']} won {join_labels(c['values'])}."
            return f"No — my knowledge graph lists no {kind if c.get('values') is not None else 'award'} for {c['topic']}."
        values = join_labels(c["values"])
        evidence = _continued(forward(relation, c["topic"], list(c["values"])), [c["topic"], *c["values"]]) \
            if len(c["relations"]) == 1 and c["values"] else ""
        if "value" in c and "op" in c and evidence:  # a literal: the film's own value is the evidence
            return f"{'Yes' if c['holds'] else 'No'} — {evidence}"
        if evidence and len(c["values"]) <= LIST_INLINE:
            return f"{'Yes' if c['holds'] else 'No'} — {evidence}"
        if "value" in c and "op" in c:
            return f"{'Yes' if c['holds'] else 'No'} — the {relation.noun} of {c['topic']} is {_with_unit(relation, values)}."
        if c["holds"]:
            return f"Yes — {c['value']} is {'among the ' + relation.plural if len(c['values']) > 1 else 'the ' + relation.noun} of {c['topic']}." \
                if len(c["relations"]) == 1 else f"Yes — {c['value']} took {noun} {c['topic']}."
        if len(c["relations"]) > 1:
            return f"No — my knowledge graph does not show {c['value']} in {c['topic']}."
        if len(c["values"]) > LIST_INLINE:
            return f"No — my knowledge graph lists {len(c['values'])} {relation.plural} of {c['topic']}, and {c['value']} is not one of them."
        return f"No — the {relation.plural if len(c['values']) > 1 else relation.noun} of {c['topic']} {'are' if len(c['values']) > 1 else 'is'} {values}."
    if form == "comparison":
        relation = bundle.relations[c["relation"]]
        if c.get("missing"):
            return f"My knowledge graph has no {relation.noun} for {join_labels(c['missing'])}, so I cannot compare them."
        parts = [f"{v['label']}: {_with_unit(relation, v['value']) if not c['count'] else v['value']}" for v in c["values"]]
        if c["count"]:
            what = "Academy Awards" if c.get("oscars") else relation.plural if relation.value_class != "person" else "films"
            evidence = f"({'; '.join(parts)} {what})"
        else:
            evidence = f"({'; '.join(parts)})"
        word = COMPARATIVE_WORDS.get((measure(relation), c["greater"]), "ahead") if not c["count"] else ("more" if c["greater"] else "fewer")
        if c.get("tie"):
            lead = f"They are level {evidence}."
            return f"No — {lead}" if c.get("asked") else lead
        winner = c["winners"][0]
        claim = f"{winner} is {word} {evidence}." if not c["count"] else f"{winner} has {word} {evidence}."  # "has more (...)"
        return f"{'Yes' if c['holds'] else 'No'} — {claim}" if c.get("asked") else claim
    if form == "count":
        if not c.get("films"):
            relation = bundle.relations[c["what"]]
            count = len(c["items"])
            what = ("Academy Award" if count == 1 else "Academy Awards") if c.get("oscars") else relation.noun if count == 1 else relation.plural
            items = f": {join_labels(c['items'])}" if c["items"] else ""
            return f"{c['topic']} has {count} {what} in my knowledge graph{items}."
        total = c["total"]
        strict = c.get("strict")
        extra = f" ({strict} counting only the genre itself)" if strict is not None and strict != total else ""
        examples = f", for example {join_labels(c['items'])}" if c["items"] and total else ""
        return f"My knowledge graph has {total} film{'s' if total != 1 else ''}{where}{extra}{examples}."
    if form == "ordered":
        relation = bundle.relations[c["relation"]]
        if c.get("counting"):
            what = "Academy Awards" if c.get("oscars") else relation.plural
            if c.get("empty"):
                return f"My knowledge graph has no {what} for the films{where}."
            films = join_labels([a.label for a in facts.answers])
            return f"The film{where} with the most {what} is {films} ({c['value']})." if len(facts.answers) == 1 else \
                f"The films{where} with the most {what} are {films} ({c['value']} each)."
        if c.get("empty"):
            return f"My knowledge graph has no {relation.noun} for the films{where}, so I cannot say which comes first."
        money = sentences_for(relation).format == "usd"  # "the highest-grossing film", not "the highest film"
        word = SUPERLATIVE_WORDS.get(("money" if money else measure(relation), c["op"]), "top")
        films = join_labels([a.label for a in facts.answers])
        value = _with_unit(relation, c["value"])
        scope = "" if any(x["op"] == "among" for x in c.get("constraints", [])) else " in my knowledge graph"
        lacking = f" My knowledge graph has no {relation.noun} for {join_labels(c['unknown'])}." if c.get("unknown") else ""
        listed = next((x["values"] for x in c.get("constraints", []) if x["op"] == "among"), [])
        if lacking and len(listed) - len(c["unknown"]) == 1:  # nothing to compare with: no "longest" is claimed
            return f"Of {join_labels(listed)}, only {films} has a {relation.noun} in my knowledge graph ({value}).{lacking}"
        if len(facts.answers) == 1:
            return f"The {word} film{where}{scope} is {films} ({value}).{lacking}"
        return f"The {word} films{where}{scope} are {films} ({value} each).{lacking}"
    if form == "most":
        relation = bundle.relations[c["relation"]]
        if c.get("empty"):
            return f"My knowledge graph has no films{where}."
        winners = join_labels(c["winners"])
        lead = f"The {relation.noun} of the most films{where} in my knowledge graph"
        return f"{lead} is {winners} ({c['count']} films)." if len(c["winners"]) == 1 else \
            f"{lead} are {winners} ({c['count']} films each)."
    if form == "any":
        if not c["total"]:
            return f"No — I found no film in my knowledge graph{where}."
        films = join_labels(c["items"], limit=len(c["items"]))
        more = f" ({c['total']} in all, the best known first)" if c["total"] > len(c["items"]) else ""
        return f"Yes — films{where}{more}: {films}."
    if form == "films":
        labels = [a.label for a in facts.answers]
        if not labels:
            return f"I found no film in my knowledge graph{where}." if where else "I found no such film in my knowledge graph."
        total = c["total"]
        lead = f"Films{where}" if where else "Films"
        if total > len(labels):
            return f"{lead} ({total} in all, the best known first): {join_labels(labels, limit=len(labels))}."
        return f"{lead}: {join_labels(labels, limit=len(labels))}."
    return join_labels([a.label for a in facts.answers]) + "."
