"""Follow-ups as edits of the conversation's plans.

A message is read once, with what the conversation offers its pronouns and its unsaid topic
(bot.understanding.referents: "and who composed its music?", "and the runtime?"). What is left
for the dialogue is a plan that only makes sense with an earlier one, and each such case is an
edit of a typed plan, not a rewrite of text parsed again (only when the earlier question left no
plan to edit -- its name was not in the graph, its count was not understood -- is that question
read again with what the user says now):

* another topic, the same question ("And Heat?", "what about Nolan?"): the last plan of that
  kind of topic, with the new entity in the old one's place (a relation, or a condition's value);
* a correction ("sorry, I meant X", "no, the one with <actor>", "the 1996 one", "the other one"):
  the last plan with its topic replaced by the name, or by the namesake the words choose;
* "those", "them", "the others" in a composition: the films the conversation listed (a filter,
  superlative or count over the last list, never over the whole graph), and "what else" leaves
  out the films the conversation was about;
* "name them" after a count: the same plan, listing; "which of them was also in Y": what the last
  film and Y share; "any with X?" after a list: those of them with X; "what else did X do": X's films
  in their main role.
"""

from __future__ import annotations

import re
from dataclasses import replace

from bot.core.contracts import Ask, Constraint, Hop, LinkedEntity, Shared, Understanding
from bot.core.kinds import Kind
from bot.core.results import FilmsResult
from bot.core.terms import AggregateOp, Op
from bot.core.text import YEAR, normalize, tokens
from bot.dialogue.tracker import LOOK_BACK, Option, Tracker
from bot.kg import queries
from bot.understanding.compose import GLOBAL_SCOPE
from bot.understanding.vocabulary import ANY_ROLE_WORDS, GENERIC, OTHER_WORDS, STOP

# the words around a name that only move the conversation to it ("and Heat?", "ok, what about Nolan then?")
GLUE = frozenset("""and what about how ok okay so then also too now same for the question but well hmm oh ah please pls again
    regarding tho though yes yeah right""".split())
CORRECTION = re.compile(r"^\W*(?:(?:sorry|oops|no|nope|wait|ah|oh|argh|my bad|typo|actually|err?|um+)\W+)*"
                        r"i\s+(?:meant|mean|wanted|was asking about|was talking about|asked about)\b", re.I)
# "the Samuel Bayer one", "the version with X", "the other one", "the original": words that pick among namesakes
PICKING = frozenset({"one", "version", "other", "original", "remake"})
ORIGINAL = frozenset({"original", "first", "earliest", "oldest", "older", "classic", "earlier"})
NEWEST = frozenset({"newest", "newer", "latest", "later", "recent", "modern", "remake", "new", "last"})
# "and the first one?" after a question about a film of a series: that series' film (by date; -1: the last)
SERIES_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "last": -1, "latest": -1, "newest": -1}
# words that choose a version of a title by a person: "De Palma's version", "the remake with X" (and "the ... one")
VERSION_WORDS = frozenset({"version", "versions", "adaptation", "remake"})
DATED_TITLE = re.compile(r"\s*\(\d{4}\)\s*$")  # "Scarface (1932)": a title as the graph lacked it
# "name them" after "how many films did X direct?": the films counted
LIST_THEM = re.compile(r"^\W*(?:(?:ok(?:ay)?|and|so|great|cool)\W+)*(?:(?:can you |could you |please )?(?:name|list|show|tell|give)"
                       r"(?: me)? (?:them|those|these|the (?:films|movies)|which)(?: (?:ones|all))?|which ones(?: are they)?|what are they)"
                       r"(?: please)?\W*$", re.I)
HOW_MANY = re.compile(r"\bhow many\b", re.I)
# "who's in The Matrix?" - "which of them was also in John Wick?": the cast the two films share
ALSO_IN = re.compile(r"^\W*(?:and\s+)?(?:which|who)\s+of\s+(?:them|those|these)(?:\s+(?:people|actors|actresses))?\s+"
                     r"(?:(?:was|were|is|are|also|both|too|appeared|acted|starred|played)\s+)*in\b", re.I)
# "any with X?", "which ones have X?": what a filter of the last list may say besides the names
NARROWING = frozenset("with by starring featuring have has star stars starred in of them those these any anything anyone which ones one".split())
# the words of "what else did X do", "anything else by X", "X's other films": no role, no other question
ROLELESS = STOP | GENERIC | ANY_ROLE_WORDS | OTHER_WORDS
# words for a person's films said loosely ("his other stuff", "more things by her")
WORK_NOUNS = frozenset({"stuff", "things", "work", "works", "projects", "credits"})
MORE = frozenset({"more"})  # "more stuff by him": other films, as "else" says
# who a question about people asks for ("who else", "anyone else")
PERSON_QUESTION = frozenset({"who", "whom", "anyone", "anybody", "someone", "somebody", "people", "actors", "actresses"})
FILM_NOUNS = frozenset({"film", "films", "movie", "movies", "picture", "pictures"})
OPEN_SET = frozenset({"any", "anything", "anyone", "which", "ones"})  # "any with X?", "which ones have X?": of the last list


def glue_only(plan: Understanding) -> bool:
    """Whether the message only names its entities, with words that move the conversation to them."""
    spans = [(e.start, e.end) for e in plan.entities]
    rest = [t for t, s, e in tokens(plan.text) if not any(a <= s < b for a, b in spans)]
    return all(t in GLUE for t in rest)


def asks_nothing(plan: Understanding) -> bool:
    """Whether the plan only names its entity (on its own the reader takes "Heat?" for an overview of Heat; in a
    conversation it may be the last question again, or a correction of it)."""
    return not plan.asks and not plan.compositional or plan.overview is not None and len(plan.entities) == 1


def names_only(plan: Understanding) -> bool:
    """A message that names something and asks nothing else about it ("And Heat?", "what about Nolan?")."""
    return (plan.kind == Kind.FACTUAL and bool(plan.entities) and asks_nothing(plan) and not plan.missing and not plan.not_found
            and glue_only(plan))


def with_entity(plan: Understanding, at: int, entity: LinkedEntity) -> Understanding:
    """`plan` about `entity` instead of its entity number `at`: the same relations, the same conditions."""
    old = plan.entities[at]
    entities = [replace(entity, text=e.text, start=e.start, end=e.end) if e.iri == old.iri else e for e in plan.entities]
    constraints = [replace(c, values=tuple(entity.iri if v == old.iri else v for v in c.values),
                           said=c.said.replace(old.label, entity.label)) for c in plan.constraints]
    text = plan.text[: old.start] + entity.label + plan.text[old.end :] if old.end > old.start else plan.text
    return replace(plan, text=text, entities=entities, constraints=constraints, also=[], confidence=max(plan.confidence, 0.5))


def replaceable(plan: Understanding, group: str) -> int | None:
    """The entity of `plan` a new name of `group` would take the place of: the topic of a relation question, or the
    value of a condition of a films question; None for comparisons, yes/no checks and shared values (two names)."""
    if plan.kind != Kind.FACTUAL or plan.comparison or plan.shared:
        return None
    if plan.verification is not None:  # "Is Brad Dourif in Bride of Chucky?" "what about Fargo?": the same check of Fargo
        check = plan.verification
        return next((n for n in (check.topic, check.value) if n is not None and plan.entities[n].group == group), None)
    if plan.overview is not None:  # "tell me about Alien" "and Heat?"
        return plan.overview.topic if plan.entities[plan.overview.topic].group == group else None
    if plan.asks and not plan.compositional:
        ask = plan.asks[0]
        if ask.after is None and 0 <= ask.topic < len(plan.entities) and plan.entities[ask.topic].group == group:
            return ask.topic
        return None
    if plan.compositional:
        valued = {v for c in plan.constraints for v in c.values}
        return next((n for n, e in enumerate(plan.entities) if e.group == group and e.iri in valued), None)
    return None


class FollowUps:
    """Plan edits that need the graph's labels (one per dialogue)."""

    def __init__(self, agent):
        self.agent = agent
        self.labels = agent.kg.labels
        self.cast = agent.understander.lexicon.relations_of("starred")

    def group(self, iri: str | None) -> str:
        info = self.labels.info(iri) if iri else None
        return info[1] if info else ""

    def namesake(self, entity: LinkedEntity, group: str) -> LinkedEntity | None:
        """The best-known entity of `group` labelled as `entity` ("Coraline" the film for "Coraline" the novel)."""
        ids = [i for i in self.labels.lookup(normalize(entity.label)) if self.labels.groups[i] == group]
        if not ids:
            return None
        i = max(ids, key=lambda i: self.labels.degree[i])
        return LinkedEntity(self.labels.labels[i], self.labels.iris[i], self.labels.labels[i], 100.0, group, year=self.labels.years[i])

    def year(self, iri: str) -> int | None:
        info = self.labels.info(iri)
        return info[3] if info else None

    def option(self, iri: str) -> Option:
        label, _group, _degree, year = self.labels.info(iri) or (iri, "", 0, None)
        return Option(iri, label, year)

    # --- another topic, the same question ---------------------------------------------------

    def another_topic(self, plan: Understanding, tracker: Tracker) -> Understanding | str | None:
        """"And Heat?" / "what about Nolan?": the latest plan about the same kind of topic, about the new one. After a
        question whose name the graph did not have, that question again with this name (a string to read again)."""
        if not names_only(plan):
            return None
        missed, _facts = tracker.turns()[-1]
        if missed.kind == Kind.UNKNOWN and missed.not_found and len(plan.entities) == 1:
            return self._named_now(missed, plan.entities[0])
        group = plan.entities[0].group
        if any(e.group != group for e in plan.entities):
            return None
        for earlier, _facts in reversed(tracker.turns()):
            at = replaceable(earlier, group)
            if at is None:
                continue
            if len(plan.entities) == 1 or (earlier.asks and not earlier.compositional):
                return self._about_each(earlier, at, plan.entities)
        return None

    @staticmethod
    def _about_each(earlier: Understanding, at: int, entities: list[LinkedEntity]) -> Understanding:
        edited = with_entity(earlier, at, entities[0])
        if len(entities) == 1:
            return edited
        # "and Heat and Ronin?": the same asks about each of them
        more = [replace(a, topic=len(edited.entities) + k) for k in range(len(entities) - 1) for a in edited.asks if a.topic == at]
        return replace(edited, text=" / ".join(e.label for e in entities), entities=edited.entities + entities[1:], asks=edited.asks + more)

    # --- corrections ------------------------------------------------------------------------

    def correction(self, plan: Understanding, text: str, tracker: Tracker) -> Understanding | str | None:
        """"Sorry, I meant X", "no, the one with <actor>", "the 1996 one", "the other one": the last plan about what the
        user meant. A string when the last question named nothing the graph has: that question with the name said now,
        to read again (there was no plan to edit)."""
        turns = tracker.turns()
        if not turns or not asks_nothing(plan):
            return None  # (a message that asks something of its own is that question)
        earlier, _facts = turns[-1]
        said_so = bool(CORRECTION.search(text))
        words = [t for t, _, _ in tokens(text)]
        picking = said_so or bool(PICKING & set(words))
        if not picking:
            return None
        if earlier.kind == Kind.UNKNOWN and earlier.not_found and plan.entities and said_so:
            return self._named_now(earlier, plan.entities[0])
        topic = _topic_film(earlier)
        if topic is not None:
            at, film = topic
            options = [Option(film.iri, film.label, film.year)] + [Option(a["iri"], a["label"], a.get("year")) for a in film.alternatives
                                                                   if a.get("group", "film") == "film"]
            if len(options) >= 2:
                chosen = self.pick(options, text, plan, exclude=film.iri)
                if chosen is not None:
                    kept = [_described(o) for o in options if o.iri != chosen.iri]
                    return with_entity(earlier, at, replace(chosen.entity(), alternatives=kept, selected_by="correction"))
                others = [o for o in options if o.iri != film.iri]
                if "other" in words and len(others) > 1:  # "the other one" of several: which of the others (the dialogue asks)
                    return with_entity(earlier, at, replace(others[0].entity(), alternatives=[_described(o) for o in others[1:]]))
        if not said_so or not plan.entities:
            return None
        named = plan.entities[0]
        films = [e for e in plan.entities if e.group == "film"]
        telling = []
        if films and len(plan.entities) > 1:  # "I meant The Heat, the Sandra Bullock one": the film the person tells apart
            named = films[0]
            telling = [e for e in plan.entities if e.group == "person"]
        elif films and films[0].selected_by:  # the reader took the person as the film's description: named all the same
            telling = self.people_named(text)
        at = replaceable(earlier, named.group)
        if at is None:
            return None
        edited = with_entity(earlier, at, named)
        # the people who told the film apart are named by this turn too ("who else is in it?" leaves them out)
        return replace(edited, entities=[*edited.entities, *(p for p in telling if p.iri not in {e.iri for e in edited.entities})])

    def people_named(self, text: str) -> list[LinkedEntity]:
        """The people a message names, also those its plan holds only as a description of a film ("The Heat, the
        Sandra Bullock one")."""
        understander = self.agent.understander
        toks = tokens(text)
        return [e for e in understander.all_entities(text, toks, understander.candidate_spans(text, toks)) if e.group == "person"]

    def _named_now(self, earlier: Understanding, named: LinkedEntity) -> str | None:
        missing = earlier.not_found[0]
        at = earlier.text.lower().find(missing.lower())
        if at < 0:
            return None
        before = re.sub(r"\b(?:the|a|an)\s+$", "", earlier.text[:at], flags=re.I)  # "The Glass Harbour"
        return before + named.label + earlier.text[at + len(missing) :]

    def pick(self, options: list[Option], text: str, plan: Understanding | None, exclude: str = "") -> Option | None:
        """The option the words choose: a year, a person of one of the films, "the original" / "the newer one",
        "the other one" (of two)."""
        years = {int(y) for y in YEAR.findall(text)}
        by_year = [o for o in options if o.year in years]
        if len(by_year) == 1:
            return by_year[0]
        if plan is not None:
            for person in (e for e in plan.entities if e.group == "person"):
                linked = self.linked(options, person.iri)
                if len(linked) == 1:
                    return linked[0]
        words = {t for t, _, _ in tokens(text)}
        dated = [o for o in options if o.year]
        if dated and words & NEWEST:
            return max(dated, key=lambda o: o.year)
        if dated and words & ORIGINAL:
            return min(dated, key=lambda o: o.year)
        if "other" in words and exclude:
            others = [o for o in options if o.iri != exclude]
            if len(others) == 1:
                return others[0]
        return None

    def versions(self, title: str) -> list[Option]:
        """The films a title may stand for: the films of that name (with or without its article: "Heat", "The Heat"), and
        the films based on a work of that name ("Romeo and Juliet": the 1936 and 1968 films, and Romeo + Juliet, an
        adaptation of the play)."""
        bare = re.sub(r"^(?:the|a|an)\s+", "", normalize(title))
        ids = list(dict.fromkeys(i for said in (bare, f"the {bare}") for i in self.labels.lookup(said)))  # "Heat" / "The Heat"
        films = [self.labels.iris[i] for i in ids if self.labels.groups[i] == "film"]
        bundle = self.agent.kg.bundle
        sources = [name for name, r in bundle.relations.items() if r.value_class == "work"]
        for work in (self.labels.iris[i] for i in ids if self.labels.groups[i] == "work"):
            for relation in sources:
                films += [r["film"].value for r in self.agent.kg.graph.select(queries.films_with_value(bundle, relation, work)) if r.get("film")]
        return [self.option(iri) for iri in dict.fromkeys(films)]

    def version_with(self, title: str, person: LinkedEntity, options: list[Option] = ()) -> Option | None:
        """The one version of `title` (its films and adaptations, and `options`) `person` is credited on; None when
        none or several are."""
        known = {o.iri for o in options}
        candidates = list(options) + [o for o in self.versions(title) if o.iri not in known]
        linked = self.linked(candidates, person.iri) if len(candidates) >= 1 else []
        return linked[0] if len(linked) == 1 else None

    def version_meant(self, plan: Understanding, text: str, tracker: Tracker) -> tuple[Option, int | None] | None:
        """"De Palma's version then", "no, the one with Kenneth Branagh": the version of the last turn's title (a film of
        that name or an adaptation of a work of that name) the one person the message names is credited on, and where
        the last plan had that title (None when its name was not in the graph); None when the words choose no other
        version than the one talked about."""
        turns = tracker.turns()
        people = [e for e in plan.entities if e.group == "person"]
        words = [t for t, _, _ in tokens(text)]
        chooses = VERSION_WORDS & set(words) or any(w == "one" and k and words[k - 1] == "the" for k, w in enumerate(words)) or any(
            w == "one" and k > 1 and words[k - 2] == "the" for k, w in enumerate(words))
        if not turns or len(people) != 1 or not chooses or len(plan.entities) > 2:
            return None
        earlier, _facts = turns[-1]
        topic = _topic_film(earlier)
        if topic is not None:
            at, title = topic[0], topic[1].label
        elif earlier.kind == Kind.UNKNOWN and len(earlier.not_found) == 1:
            at, title = None, DATED_TITLE.sub("", earlier.not_found[0])
        else:
            return None
        version = self.version_with(title, people[0])
        if version is None or at is not None and earlier.entities[at].iri == version.iri:
            return None
        return version, at

    def linked(self, options: list[Option], person: str) -> list[Option]:
        rows = self.agent.kg.graph.select(queries.films_linked_to([o.iri for o in options], person))
        films = {r["film"].value for r in rows if r.get("film") is not None}
        return [o for o in options if o.iri in films]

    # --- the conversation's films -------------------------------------------------------------

    def over_the_list(self, plan: Understanding, text: str, tracker: Tracker) -> Understanding:
        """A superlative, count or filter said without its films right after a list of films ("which is longest",
        "and the shortest?", "any with X?") is about that list, unless it says it means all films ("... ever")."""
        if not plan.compositional or plan.comparison or plan.verification or plan.shared or plan.also:
            return plan
        if any(c.op in ("earlier", "not_earlier", "among") for c in plan.constraints) or GLOBAL_SCOPE.search(text):
            return plan
        turns = tracker.turns()
        words = [t for t, _, _ in tokens(text)]
        if not turns or FILM_NOUNS & set(words):
            return plan  # "what is the longest film?", "any films with X?": a question of its own
        last_plan, last_facts = turns[-1]
        # a list just given, or one a superlative or filter just answered one film of ("which is oldest?" "any from the 90s?")
        listed = (len([a for a in last_facts.answers if self.group(a.iri) == "film"]) >= 2
                  or len([v for c in last_plan.constraints if c.op == Op.AMONG for v in c.values]) >= 2)
        aggregated = plan.aggregate is not None and plan.aggregate.op in ("max", "min", "count") and not plan.asks
        # ("which is longest" with no list before: which films is asked back, never answered about all films)
        if not plan.constraints and aggregated or listed and plan.constraints and words and words[0] in OPEN_SET:
            return replace(plan, constraints=[*plan.constraints, Constraint((), "earlier", (), "of those films")])
        return plan

    def resolve_sets(self, plan: Understanding, tracker: Tracker) -> Understanding | str:
        """The plan with "of those" / "other" conditions turned into the films the conversation is about; a string
        (what to say instead) when it points at films the conversation never listed."""
        if not any(c.op in ("earlier", "not_earlier") for c in plan.constraints):
            return plan
        constraints = []
        for c in plan.constraints:
            if c.op == "earlier" and (whole := self._cut_list_conditions(tracker)):
                constraints += whole  # "which of those are from the 70s?" after 25 of 80 crime films: all 80, not the 25 shown
                continue
            if c.op == "earlier":
                films = tracker.last_films(self)
                turns = tracker.turns()
                if len(films) < 2 and turns and len(turns[-1][1].answers) >= 2:
                    return "I can only compare films that way, and my last answer was not a list of films."
                if len(films) < 2:
                    return ("Which films do you mean? Ask me for some first, for example \"Which films did Christopher Nolan direct?\", "
                            "then \"which of those is the longest?\"")
                constraints.append(replace(c, op="among", values=tuple(films)))
            elif c.op == "not_earlier":
                named = self._named_films(plan, tracker)
                if named:
                    constraints.append(replace(c, op="not_among", values=tuple(named)))
            else:
                constraints.append(c)
        return replace(plan, constraints=constraints)

    @staticmethod
    def _cut_list_conditions(tracker: Tracker) -> list[Constraint]:
        """The conditions of the last answer when it listed only part of the films that meet them (the best known 25 of
        80), or picked one of them by a measure (the longest): "those" are all of them. Empty when the last answer listed
        every film it found, or was no such list."""
        turns = tracker.turns()
        if not turns:
            return []
        plan, facts = turns[-1]
        if any(c.op.conversational for c in plan.constraints):
            return []  # a list that was itself drawn from earlier films: those films are what it listed
        if plan.aggregate is not None and plan.aggregate.op in (AggregateOp.MAX, AggregateOp.MIN) and plan.constraints:
            return list(plan.constraints)  # "and the shortest one?" after "Spielberg's longest film": all his films again
        if not isinstance(facts.result, FilmsResult) or facts.result.total <= len(facts.answers):
            return []
        return list(plan.constraints)

    def _named_films(self, plan: Understanding, tracker: Tracker) -> list[str]:
        """The films this message and the previous turn named or answered, and the film the conversation is about
        ("any other films together?", "what else did Ridley Scott direct?" after three questions about Alien)."""
        iris = [e.iri for e in plan.entities]
        turns = tracker.turns()
        if turns:
            earlier, facts = turns[-1]
            iris += [e.iri for e in earlier.entities] + [a.iri for a in facts.answers if a.iri]
        film = tracker.last_entity("film", self)
        if film is not None:
            iris.append(film.iri)
        iris += [f for iri in iris if self.group(iri) == "series" for f in self.films_of_series(iri)]  # a series talked about: its films
        return [iri for iri in dict.fromkeys(iris) if self.group(iri) == "film"]

    def series_film(self, plan: Understanding, text: str, tracker: Tracker) -> Understanding | None:
        """"And the first one?" right after a question about Terminator 2 (and no list): the same question about the
        first (second, last ...) film of its series in the graph, by release date."""
        words = [t for t, _, _ in tokens(text)]
        said = [SERIES_ORDINALS[w] for w in words if w in SERIES_ORDINALS]
        turns = tracker.turns()
        if len(said) != 1 or plan.entities or not turns or any(w not in GLUE | SERIES_ORDINALS.keys() | FILM_NOUNS | {"one"} for w in words):
            return None
        earlier, facts = turns[-1]
        topic = _topic_film(earlier)
        if topic is None or earlier.compositional or len([a for a in facts.answers if self.group(a.iri) == "film"]) >= 2:
            return None  # after a list, "the first one" is of that list
        at, film = topic
        films = sorted((f for s in self._series_of(film.iri) for f in self.films_of_series(s) if self.year(f)), key=lambda f: self.year(f))
        films = list(dict.fromkeys(films))
        if film.iri not in films or not -len(films) <= said[0] < len(films):
            return None
        chosen = self.option(films[said[0]])
        return None if chosen.iri == film.iri else with_entity(earlier, at, chosen.entity())

    def _series_of(self, film: str) -> list[str]:
        bundle = self.agent.kg.bundle
        return [str(r["value"].value) for relation in bundle.relations.values() if relation.value_class == "series"
                and relation.direction == "forward" and not relation.derived
                for r in self.agent.kg.graph.select(queries.values_of(film, relation.property)) if r.get("value") is not None]

    def films_of_series(self, series: str) -> list[str]:
        bundle = self.agent.kg.bundle
        relation = next((name for name, r in bundle.relations.items() if r.value_class == "series"), None)
        if relation is None:
            return []
        return [r["film"].value for r in self.agent.kg.graph.select(queries.films_with_value(bundle, relation, series)) if r.get("film")]

    def without_earlier(self, plan: Understanding, tracker: Tracker) -> Understanding:
        """'What else' / 'which other': the asks leave out the films the conversation was about (the agent leaves
        out those the message names itself)."""
        if not any(a.others for a in plan.asks) or plan.compositional:
            return plan
        named = tuple(self._named_films(plan, tracker))
        asks = [replace(a, excluded=tuple(dict.fromkeys(a.excluded + named))) if a.others else a for a in plan.asks]
        return replace(plan, asks=asks)

    def narrowed(self, plan: Understanding, text: str, tracker: Tracker) -> Understanding | None:
        """"Any with Neil Affleck?", "which ones have X?" right after a list of films: those of them with the person (in
        any role), a plan over the last list."""
        words = [t for t, _, _ in tokens(text)]
        if not words or words[0] not in OPEN_SET or plan.kind != Kind.FACTUAL or plan.asks or plan.compositional:
            return None
        people = [e for e in plan.entities if e.group == "person"]
        turns = tracker.turns()
        if not people or len(people) != len(plan.entities) or not turns:
            return None
        if len([a for a in turns[-1][1].answers if self.group(a.iri) == "film"]) < 2:
            return None
        spans = [(e.start, e.end) for e in plan.entities]
        if any(t not in GLUE | NARROWING for t, s, _ in tokens(plan.text) if not any(a <= s < b for a, b in spans)):
            return None
        composer = self.agent.understander.composer
        constraints = [Constraint(tuple(sorted(composer.roles_of(p))), "in", (p.iri,), p.label) for p in people]
        if not all(c.relations for c in constraints):
            return None
        constraints.append(Constraint((), "earlier", (), "of those films"))
        return replace(plan, constraints=constraints, unclear="", confidence=1.0)

    def what_else(self, plan: Understanding, text: str, tracker: Tracker | None = None) -> Understanding | None:
        """"What else did Jane Campion do?", "anything else by X?", "his other stuff?", "what was she in?": a person and
        words that name no role of theirs, with "else", "other" or "more" (or a stranded "in": the films they acted in):
        the person's films in the role the conversation gave them ("who shot Fargo?" "what else did he do?": films
        shot), else in the role most of their films have (the films the conversation was about are left out, as for
        any "what else")."""
        people = [e for e in plan.entities if e.group == "person"]
        if plan.kind != Kind.FACTUAL or plan.asks or plan.compositional or len(people) != 1 or len(plan.entities) != 1:
            return None
        person = people[0]
        words = [t for t, s, _ in tokens(plan.text) if not person.start <= s < person.end]
        lexicon = self.agent.understander.lexicon
        if any(lexicon.relations_of(w) or w not in ROLELESS | WORK_NOUNS | MORE | {"in"} for w in words):
            return None
        others = bool((OTHER_WORDS | MORE) & set(words))
        acted = "in" in words and not self.cast.isdisjoint(self.agent.understander.composer.roles_of(person))
        if not others and not acted:
            return None
        role = self._first(self.cast) if acted else self.role_in_conversation(person.iri, tracker) if tracker is not None else None
        if role is None:
            composer = self.agent.understander.composer
            roles = composer.main_roles(person, composer.roles_of(person))
            if not roles:
                return None
            role = self._first(roles)
        chain = (Hop(role, False),)
        return Understanding(plan.text, Kind.FACTUAL, chain, [person], 1.0, asks=[Ask(chain, 0, text=plan.text, confidence=1.0, others=others)])

    def _first(self, relations) -> str:
        """Of several relations, the one the bundle lists first."""
        order = list(self.agent.kg.bundle.relations)
        return min(relations, key=lambda r: order.index(r) if r in order else len(order))

    def role_in_conversation(self, person: str, tracker: Tracker) -> str | None:
        """The role the latest turn about `person` gave them: the relation of a question they answered ("who shot
        Fargo?": the cinematographer), or of their films a question asked for; None when no turn did."""
        for plan, facts in reversed(tracker.turns()):
            parts = facts.parts if len(facts.parts) == len(plan.asks) else [facts] * len(plan.asks)
            for ask, part in zip(plan.asks, parts):
                if not ask.chain:
                    continue
                if ask.chain[-1].to_value and any(a.iri == person for a in part.answers):
                    return ask.chain[-1].relation
                topic = plan.entities[ask.topic] if ask.after is None and 0 <= ask.topic < len(plan.entities) else None
                if topic is not None and topic.iri == person and not ask.chain[0].to_value:
                    return ask.chain[0].relation
            roles = {r for c in plan.constraints if c.op == Op.IN and person in c.values and c.named_role for r in c.relations}
            if len(roles) == 1:
                return roles.pop()
            if any(e.iri == person for e in plan.entities) or any(a.iri == person for a in facts.answers):
                return None  # the latest turn about them gave them no one role
        return None

    def who_else(self, plan: Understanding, text: str, tracker: Tracker) -> Understanding | None:
        """"Who else is in it?", "anyone else in the cast?": the people of the film in focus in that role (the cast when
        no role is said), without the people the last turns named or answered."""
        films = [e for e in plan.entities if e.group == "film"]
        # (a chain through a shared value is the reader taking "else" for "other films": "who else wrote it?" is no
        # question about the films that share the film's composer)
        through_others = all(len(a.chain) > 1 for a in plan.asks)
        if plan.kind != Kind.FACTUAL or not through_others or plan.compositional or len(films) > 1 or len(plan.entities) != len(films):
            return None
        film = films[0] if films else None
        words = [t for t, s, _ in tokens(plan.text) if film is None or not film.start <= s < film.end]
        if not OTHER_WORDS & set(words) or not PERSON_QUESTION & set(words):
            return None
        lexicon = self.agent.understander.lexicon
        named = {r for w in words for r in lexicon.relations_of(w)}
        if any(not lexicon.relations_of(w) and w not in ROLELESS | PERSON_QUESTION | {"in"} for w in words):
            return None
        people_relations = {name for name, r in self.agent.kg.bundle.relations.items() if r.value_class == "person"}
        asked = _asked_of_a_film(tracker.last_plan()) if film is None and not named and "in" not in words else None
        if asked is not None:  # "who starred in Gravity?" "who else?": the same question, without those answered
            film, roles = replace(asked[0], alternatives=[]), {asked[1]} & people_relations  # (chosen then: asked about again)
        elif film is None:
            return None
        else:
            roles = named & people_relations if named else set(self.cast) if "in" in words else set()
        if not roles or named - people_relations:
            return None
        chain = (Hop(self._first(roles), True),)
        mentioned = []
        for earlier, _facts in tracker.turns()[-LOOK_BACK:]:
            mentioned += [e.iri for e in earlier.entities if e.group == "person"]
        mentioned += [a.iri for a in tracker.turns()[-1][1].answers if a.iri and self.group(a.iri) == "person"]
        excluded = tuple(dict.fromkeys(mentioned))
        return Understanding(plan.text, Kind.FACTUAL, chain, [film], 1.0, asks=[Ask(chain, 0, text=plan.text, confidence=1.0, excluded=excluded)])

    # --- lists ------------------------------------------------------------------------------

    def list_them(self, text: str, tracker: Tracker) -> Understanding | str | None:
        """"Name them" after "how many films did Haneke direct?": the same plan, listing what it counted. A string when
        the count was not understood: the question asked for the list instead, to read again (there is no plan to edit)."""
        earlier = tracker.last_plan()
        if earlier is None or not LIST_THEM.match(text):
            return None
        if earlier.aggregate is not None and earlier.aggregate.op == "count":
            return replace(earlier, aggregate=None)
        counted = HOW_MANY.search(earlier.text)
        if counted and not earlier.asks and not earlier.compositional:
            return earlier.text[: counted.start()] + "which" + earlier.text[counted.end() :]
        return None

    def also_in(self, plan: Understanding, text: str, tracker: Tracker) -> Understanding | None:
        """"Which of them was also in John Wick?" after the cast of a film: the cast both films share."""
        turns = tracker.turns()
        if not turns or not ALSO_IN.match(text):
            return None
        earlier, facts = turns[-1]
        films = [e for e in plan.entities if e.group == "film"]
        cast = (len(earlier.asks) == 1 and len(earlier.chain) == 1 and earlier.chain[0].to_value and earlier.chain[0].relation in self.cast
                and earlier.entities and earlier.entities[0].group == "film"
                and sum(self.group(a.iri) == "person" for a in facts.answers) >= 2)
        if not films or not cast:
            return None
        chain = (Hop(earlier.chain[0].relation, True),)
        return Understanding(text, Kind.FACTUAL, chain, [earlier.entities[0], films[0]], 1.0, asks=[Ask(chain, 0), Ask(chain, 1)],
                             shared=Shared(chain, (0, 1)))


def _described(option: Option) -> dict:
    """An option as a linked entity lists its namesakes."""
    return {"iri": option.iri, "label": option.label, "year": option.year, "group": "film"}


def _asked_of_a_film(plan: Understanding | None) -> tuple[LinkedEntity, str] | None:
    """(film, relation) when `plan` asked one relation of one film ("who starred in Gravity?")."""
    if plan is None or plan.compositional or len(plan.asks) != 1 or len(plan.asks[0].chain) != 1 or not plan.asks[0].chain[0].to_value:
        return None
    topic = _topic_film(plan)
    return (topic[1], plan.asks[0].chain[0].relation) if topic is not None else None


def _topic_film(plan: Understanding) -> tuple[int, LinkedEntity] | None:
    """(index, entity) of the film `plan` was about, when it was about one."""
    if plan.asks and plan.asks[0].after is None and 0 <= plan.asks[0].topic < len(plan.entities):
        entity = plan.entities[plan.asks[0].topic]
        if entity.group == "film":
            return plan.asks[0].topic, entity
    films = [(n, e) for n, e in enumerate(plan.entities) if e.group == "film"]
    return films[0] if len(films) == 1 else None
