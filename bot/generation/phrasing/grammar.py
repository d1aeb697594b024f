"""GBNF grammars built per answer: the model can only write the facts' names and numbers, and one sentence.

llama.cpp's grammar-constrained decoding masks every token that would leave the grammar, so what
the guard used to reject is never written in the first place:

* capitalised words occur only inside the names of the facts and the question (titles, people,
  dates as "16 July 2010") or as one of a few sentence openers ("The", "According", ...); such a name
  may open the sentence too;
* digits occur only as the numbers of the facts, the question and the template sentence;
* lower-case words are any word except those of another relation's wording ("directed" in a
  sentence about the cast), negations ("not", "never") and KG names the facts lack ("drama");
  the trie of excluded words becomes a grammar for its complement;
* capitalised words of the template count as names too ("IMDb"), and a short value may be written
  in lower case ("a comedy film");
* for a sentence: the topic (in one of its forms: "starring X" or "X starred in") and every value occur, the values as one list ("A, B and C"; in any
  order when there are at most three), and the claim the guard requires ("genre") somewhere; for a
  lead-in: the topic occurs, no value does, and it ends with a colon (or a full stop, which becomes one);
* the text ends at the first full stop (or colon), so there is exactly one sentence.

The guard still checks the result: the grammar narrows what can be written, the guard judges it.
bot.generation.phrasing.model.GrammarMask applies the grammar to the model's best candidates only.
"""

from __future__ import annotations

import itertools
import json
import string
from dataclasses import dataclass, field

LETTERS = string.ascii_lowercase
# words a sentence about facts can start with, besides the names
OPENERS = ("The", "A", "An", "This", "These", "It", "Its", "In", "On", "According", "Among", "Both", "All", "As", "With", "From", "For", "There", "Since", "If", "Here", "Films", "Movies")


def literal(text: str) -> str:
    """A GBNF string literal (JSON escaping is a subset of what GBNF reads)."""
    return json.dumps(text, ensure_ascii=False)


def alternatives(texts) -> str:
    """`texts` as alternatives, longest first (needs at least one)."""
    return " | ".join(literal(t) for t in sorted(dict.fromkeys(t for t in texts if t), key=lambda t: (-len(t), t)))


@dataclass
class _Node:
    children: dict[str, _Node] = field(default_factory=dict)
    end: bool = False


def word_rules(excluded: set[str], name: str = "word") -> list[str]:
    """Rules for any lower-case ASCII word except those in `excluded`: the complement of a trie.

    A node's rule matches the rest of a word whose prefix led there: stop (when the prefix is a
    word that is not excluded), a letter that leaves the trie followed by any letters, or a
    letter of the trie followed by that child's rule. Longer words stay allowed ("films" with
    "film" excluded); a model that wanted an excluded word and would glue it to the next one
    ("directedby") is stopped by GrammarMask, whose candidates then lose their probability."""
    root = _Node()
    for word in excluded:
        if word and all(c in LETTERS for c in word):
            node = root
            for c in word:
                node = node.children.setdefault(c, _Node())
            node.end = True
    rules: list[str] = []
    counter = [0]

    def rule(node: _Node, depth: int) -> str:
        rule_name = name if depth == 0 else f"{name}-{counter[0]}"
        counter[0] += 1
        options = []
        others = "".join(c for c in LETTERS if c not in node.children)
        if others:
            options.append(f"[{others}] [a-z]*")
        for c, child in sorted(node.children.items()):
            options.append(f'"{c}" {rule(child, depth + 1)}')
        body = " | ".join(options) if options else "[a-z]+"
        can_stop = depth > 0 and not node.end
        rules.append(f"{rule_name} ::= ({body}){'?' if can_stop else ''}")
        return rule_name

    rule(root, 0)
    return rules


@dataclass(frozen=True)
class SentenceShape:
    """What one phrased sentence must and may contain."""

    topic: str  # must occur ("" when the sentence has no topic to name)
    values: tuple[str, ...]  # must occur as one list, in this order (empty for a lead-in)
    names: tuple[str, ...] = ()  # may occur: other names of the facts and the question
    numbers: tuple[str, ...] = ()  # may occur
    excluded: frozenset[str] = frozenset()  # lower-case words that may not occur (negations, other relations' wording)
    lead_in: bool = False  # ends with a colon instead of a full stop
    opener: tuple[str, ...] = ()  # the sentence must start with one of these ("Yes", "According to the crowd")
    topic_first: bool = False  # nothing but the opener before the topic (a comparison's winner is its subject)
    max_items: int = 8  # words (or names, numbers) before the topic, between it and the values, and after them
    claim: tuple[str, ...] = ()  # one of these must occur ("genre" / "genres": what the values are; "longer")
    topic_forms: tuple[str, ...] = ()  # other ways to write the topic ("Jeremy Jordan starred in" for "starring Jeremy Jordan")


def topic_forms(topic: str) -> list[str]:
    """How the topic may be written: as the KG has it, and a lower-case tag with capitals ("Nick Frost" for "nick frost")."""
    return [topic, string.capwords(topic)] if topic.islower() else [topic]


def value_forms(value: str) -> list[str]:
    """How a value may be written: as the KG has it, a short one in lower case ("a comedy film"), a
    lower-case tag with capitals ("Woody Allen" for the tag "woody allen"). The guard compares folded words."""
    forms = [value]
    if len(value.split()) <= 2:
        forms.append(value.lower())
    if value.islower():
        forms.append(string.capwords(value))
    return forms


def whole_spans(shape: SentenceShape) -> tuple[str, ...]:
    """The strings the grammar of `shape` writes whole and that start with a capital or a digit: its names,
    numbers, values and openers. Lower-case ones are left out, since the grammar's free words can begin
    like them ("dramatic" for "drama"). Once the model has begun one of these, and no other one begins
    the same way, the rest of it is fixed (LocalModel.chat decodes it in one batch)."""
    spans = [*OPENERS, *shape.opener, *topic_forms(shape.topic), *shape.topic_forms, *shape.names, *shape.numbers]
    spans += [form for value in shape.values for form in value_forms(value)]
    return tuple(s for s in dict.fromkeys(spans) if s[:1].isupper() or s[:1].isdigit())


def sentence_grammar(shape: SentenceShape) -> str:
    """The GBNF grammar of the sentences `shape` allows."""
    names = [n for n in shape.names if n not in shape.values and n != shape.topic and n not in shape.topic_forms]
    items = ['word ("-" word)* possessive?']
    lines = []
    if names:
        items.append("name possessive?")
        lines.append(f"name ::= {alternatives(names)}")
    if shape.numbers:
        items.append("number")
        lines.append(f"number ::= {alternatives(shape.numbers)}")
    if shape.topic:
        lines.append(f"topic ::= ({alternatives((*topic_forms(shape.topic), *shape.topic_forms))}) possessive?")
    if shape.values:
        # a few values in any order ("a mystery and drama film"), a longer list in the order of the facts
        orders = itertools.permutations(range(len(shape.values))) if len(shape.values) <= 3 else [range(len(shape.values))]
        listed = ["(" + " join ".join(f"v{i}" for i in order) + ")" for order in orders]
        if len(shape.values) <= 3 and all(v.isalpha() for v in shape.values):  # one-word values side by side, in lower
            listed += ["(" + " \" \" ".join(literal(shape.values[i].lower()) for i in order) + ")"  # case: "an animated bear movie"
                       for order in itertools.permutations(range(len(shape.values)))]
        lines.append("values ::= " + " | ".join(listed))
        lines += [f"v{i} ::= {alternatives(value_forms(v))}" for i, v in enumerate(shape.values)]
        lines.append('join ::= ", " | " and " | ", and "')
    end = '(":" | ".")' if shape.lead_in else '")"? "."'  # a lead-in's full stop becomes the list's colon (PhrasingTask.assemble)

    def core(mid: str) -> str:
        if shape.topic_first:
            return f"topic {mid} values" if shape.values else "topic"
        if shape.values:
            return f"topic {mid} values | values {mid} topic" if shape.topic else "values"
        return "topic" if shape.topic else "item"

    def start(before: str, mid: str) -> str:
        """The sentence up to the tail; `before` = "leadc" puts the claim before the topic."""
        if shape.topic_first:
            return f"({alternatives(shape.opener)}) sp ({core(mid)})" if shape.opener else f"({core(mid)})"
        if shape.opener:
            words_before = "(item sp){0,4}" if before == "lead" else "(item sp){0,4} claim sp (item sp){0,4}"
            return f"({alternatives(shape.opener)}) sp {words_before} ({core(mid)})"
        return f"(lead)? ({core(mid)})" if before == "lead" else f"leadc ({core(mid)})"

    if shape.claim:  # the claim in the words before the topic, between the topic and the values, or after both
        forms = [f"({start('lead', 'mid')}) tailc"]
        if "mid" in core("mid"):
            forms.append(f"({start('lead', 'midc')}) tail")
        if not shape.topic_first:
            forms.append(f"({start('leadc', 'mid')}) tail")
        lines += [f"claim ::= {alternatives(shape.claim)}",
                  f"leadc ::= first (sp item){{0,{shape.max_items}}} sp claim (sp item){{0,{shape.max_items}}} sp",
                  f"midc ::= sp (item sp){{0,{shape.max_items}}} claim sp (item sp){{0,{shape.max_items}}}",
                  f"tailc ::= (sp item){{0,{shape.max_items}}} sp claim (sp item){{0,{shape.max_items}}}"]
        root = f"root ::= ({' | '.join(forms)}) {end}"
    else:
        root = f"root ::= ({start('lead', 'mid')}) tail {end}"
    rules = [
        root,
        f"lead ::= first (sp item){{0,{shape.max_items}}} sp",
        f"first ::= opener{' | name possessive?' if names else ''}",  # "The Color of Friendship's director Kevin Hooks also directed ..."
        f"opener ::= {alternatives(OPENERS)}",
        f"mid ::= sp (item sp){{0,{shape.max_items}}}",
        f"tail ::= (sp item){{0,{shape.max_items}}}",
        'sp ::= " " | ", " | "; " | ": " | " (" | ") " | "): " | " - "',
        f"item ::= {' | '.join(items)}",
        "possessive ::= \"'s\"",
        *lines,
        *word_rules(set(shape.excluded)),
    ]
    return "\n".join(rules) + "\n"
