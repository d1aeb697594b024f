"""Recommendations across the turns of a conversation: their state, and the follow-ups that refine them.

The state (`RecommendationState`) is read from the conversation's typed turns: the last recommendation request as it
was answered (its seeds, seen and excluded films, conditions), its picks with the graph's reasons, and every film
recommended so far. A message is then one of:

* a **refinement** of the last request — "not animated", "nothing over two hours", "G or PG only", "ideally something
  British", "something older / newer / shorter", "we've already seen X and Y", "seen that one", "more like that",
  "but not Pixar": the request edited (the new conditions join or replace the old ones on the same relation) and
  answered again;
* a **question about a pick** — "why that one?", "why the second?" (the reasons from the graph, as the pick was
  explained), "tell me about the second one", "who directed the last one?" (the question about that film);
* a **new request** — it keeps what the person said they have seen or do not want earlier in the conversation, the
  films they said they like when it names none of its own (or says "also"), and never gets films recommended before
  unless it asks again; a request that names nothing to go by takes the conversation's last film or person;
* anything else, which the dialogue answers as usual.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field, replace

from bot.core.contracts import Constraint, Facts, LinkedEntity, RecommendationRequest, Reply, Seed, Understanding
from bot.core.kinds import Kind
from bot.core.text import join_labels
from bot.understanding.cues import RECOMMEND

Turn = tuple[Understanding, Facts]

LOOK_BACK = 6  # turns searched for the last recommendation (and for what a bare "recommend something" goes by)
PICK_ORDINALS = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3, "fifth": 4, "5th": 4,
                 "sixth": 5, "6th": 5, "last": -1, "final": -1}
# "the second one", "the last pick", "number 3", "why the first?" (not "the first Harry Potter film": a film of its own)
PICK = re.compile(r"\b(?:the\s+)?(?P<ord>" + "|".join(PICK_ORDINALS) + r")(?:\s+(?:one|pick|suggestion|recommendation)\b"
                  r"|\s+(?:film|movie)\b(?!\s+\w)|(?=\s*(?:[?.!,]|$)))"
                  r"|\b(?:number|no\.?|#)\s*(?P<num>[1-9])\b", re.I)
THAT_PICK = re.compile(r"\b(?:that|this|the) (?:one|pick|film|movie|suggestion)\b|\bit\b", re.I)
WHY = re.compile(r"^\W*(?:(?:and|but|so|ok|okay|hm+|hmm+|interesting|cool|wait)\W+)*(?:why|how come|what makes)\b", re.I)
QUESTION_START = re.compile(r"^\W*(?:(?:and|so|ok|okay|cool|great|thanks)\W+)*(?:who|whom|whose|when|where|how (?:long|old|many|much)|"
                            r"what(?! about)|which|is|was|did|does|do|has|have|tell me about)\b", re.I)
SEEN_PICKS = re.compile(r"\b(?:seen|watched|saw|done)\s+(?:(?:it|that|this)(?:\s+one)?|(?:them|those|these|all(?:\s+of)?(?:\s+(?:them|those|these))?))\b", re.I)
PLURAL_PICKS = re.compile(r"\b(?:them|those|these|all)\b", re.I)
RELATIVE = {"older": ("date", "<"), "earlier": ("date", "<"), "newer": ("date", ">"), "recent": ("date", ">"), "later": ("date", ">"),
            "modern": ("date", ">"), "shorter": ("duration", "<"), "longer": ("duration", ">")}
ACCUMULATE = re.compile(r"\b(also|too|as well|additionally|besides)\b", re.I)


@dataclass
class RecommendationState:
    """What a conversation's recommendations hold so far."""

    request: RecommendationRequest  # the last request, as it was answered
    picks: list[tuple[str, str]] = field(default_factory=list)  # its picks: (IRI, label), in the order shown
    reasons: dict[str, str] = field(default_factory=dict)  # pick IRI -> why it was picked (the graph's reasons)
    recommended: list[str] = field(default_factory=list)  # every film recommended in the conversation, oldest first
    active: bool = False  # no other list of films was given since: a follow-up refines it
    last: bool = False  # it was the conversation's last turn

    @classmethod
    def of(cls, turns: list[Turn]) -> RecommendationState | None:
        """The state the turns hold, or None when no recommendation was made in the last LOOK_BACK turns."""
        recent = turns[-LOOK_BACK:]
        at = next((n for n in range(len(recent) - 1, -1, -1) if recent[n][0].kind == Kind.RECOMMENDATION
                   and recent[n][0].recommendation is not None), None)
        if at is None:
            return None
        plan, facts = recent[at]
        recommended = [a.iri for u, f in turns if f.kind == Kind.RECOMMENDATION for a in f.answers if a.iri]
        reasons = {f.subject: f.detail.get("because", "") for f in facts.facts if f.detail.get("because")}
        # still the conversation's subject while no other list of films came after it ("tell me about the third one" does not end it)
        later = [f for _, f in recent[at + 1 :] if f.kind == Kind.RECOMMENDATION or len([a for a in f.answers if a.iri]) >= 2]
        return cls(plan.recommendation, [(a.iri, a.label) for a in facts.answers if a.iri], reasons, list(dict.fromkeys(recommended)),
                   active=not later, last=at == len(recent) - 1)

    def pick(self, text: str) -> tuple[str, str] | None:
        """The pick a message points at: "the second one", "number 3", "the last one", a pick's title, or "that one"
        when there is one pick."""
        if not self.picks:
            return None
        match = PICK.search(text)
        if match:
            n = PICK_ORDINALS[match.group("ord").lower()] if match.group("ord") else int(match.group("num")) - 1
            return self.picks[n] if -len(self.picks) <= n < len(self.picks) else None
        lowered = text.casefold()
        named = [p for p in self.picks if p[1].casefold() in lowered]
        if named:
            return max(named, key=lambda p: len(p[1]))
        if THAT_PICK.search(text) and len(self.picks) == 1:
            return self.picks[0]
        return None


class Recommendations:
    """The conversation's part of recommending (bot.dialogue.dialogue hands each message here first)."""

    def __init__(self, agent):
        self.agent = agent
        self.reader = agent.understander.recommendations
        kg = agent.kg
        self.labels = kg.labels
        self.table = kg.films
        bundle = kg.bundle
        self.date = bundle.date_relation.name if bundle.date_relation else ""
        self.duration = agent.understander.composer.duration

    def plan(self, text: str, turns: list[Turn], liked: list[str], read: Understanding | None = None) -> Understanding | Reply | str | None:
        """What the message is in the conversation's recommendations: a plan to answer (a request with the conversation's
        part in it), a reply (why a pick was made), a question rewritten about a pick (str), or None. `read`: the message's
        plan as the dialogue read it (read here when not given)."""
        state = RecommendationState.of(turns)
        if state is not None and state.active:
            if WHY.match(text) and (pick := state.pick(text) or (state.picks[0] if len(state.picks) == 1 else None)) is not None:
                return self._why(pick, state)
            if QUESTION_START.match(text) and (pick := state.pick(text)) is not None and PICK.search(text):
                match = PICK.search(text)
                return text[: match.start()] + pick[1] + text[match.end():]
        asked = read.kind == Kind.RECOMMENDATION if read is not None else RECOMMEND.search(text)
        if state is None and not asked:
            return None  # (cheap: no recommendation in sight, the message is read once, by the agent)
        plan = read if read is not None else self.agent.understander.understand(text)
        if plan.kind == Kind.RECOMMENDATION and plan.recommendation is not None:
            return self._request(plan, state, turns, liked)
        if state is not None and state.active:
            read = self.reader.understand(text, *self._tokens(text))
            if self._refines(plan, read.entities, text):
                return self._refined(read, state, text)
        return None

    # -- requests

    def _tokens(self, text: str):
        from bot.core.text import tokens

        understander = self.agent.understander
        toks = tokens(text)
        return [(understander.speller(t), s, e) for t, s, e in toks], understander.candidate_spans(text, toks)

    def _refines(self, plan: Understanding, names: list[LinkedEntity], text: str) -> bool:
        """Whether a message that is no request of its own only adds to the last one: conditions, films seen, "more",
        "older" -- not a question about something else ("who directed Heat?", "which of those is the longest?")."""
        if plan.kind in (Kind.SMALLTALK, Kind.DECLINE, Kind.MULTIMEDIA, Kind.EMBEDDING):
            return False
        if plan.kind == Kind.FACTUAL and (plan.asks or plan.aggregate or plan.comparison or plan.verification or plan.shared):
            return False
        if QUESTION_START.match(text) and not re.match(r"^\W*(?:what|how) about\b", text, re.I):
            return False
        # "what else did he direct?", "anything else by that composer?": about a person of the conversation, not the picks
        people = [e for e in names if e.group == "person"]
        unnamed = "".join(" " if any(e.start <= k < e.end for e in names) else c for k, c in enumerate(text))
        words = {w.lower() for w in re.findall(r"[^\W\d_]+", unnamed)}
        lexicon, composer = self.agent.understander.lexicon, self.agent.understander.composer
        role_words = {w for w in words if lexicon.relations_of(w) & set(composer.person_relations)}
        return not role_words or bool(people)

    def _refined(self, plan: Understanding, state: RecommendationState, text: str) -> Understanding | None:
        """The last request with this message's additions (`plan`: the message read as a request), or None when it adds
        nothing."""
        read = plan.recommendation
        relative = self._relative(text, state)
        seen = list(read.seen)
        if SEEN_PICKS.search(text) and state.picks:
            picks = state.picks if PLURAL_PICKS.search(SEEN_PICKS.search(text).group(0)) else state.picks[:1]
            seen += [Seed("film", (iri,), label, label) for iri, label in picks]
        seen += [s for s in read.seeds if s.kind in ("film", "films")] if seen or read.seen else []
        adds = bool(read.conditions or relative or seen or read.excluded or read.unchecked or read.count or read.more)
        if not adds:
            return None
        previous = state.request
        conditions = _replaced(list(previous.conditions), list(read.conditions) + relative)
        request = replace(previous, seen=_joined(previous.seen, tuple(seen)), excluded=_joined(previous.excluded, read.excluded),
                          conditions=tuple(conditions), count=read.count or previous.count, unknown=read.unknown, unchecked=read.unchecked,
                          more=True, again=False, recommended=tuple(state.recommended))
        entities = [e for e in plan.entities]
        return Understanding(text, Kind.RECOMMENDATION, entities=entities, confidence=1.0, constraints=list(request.conditions),
                             recommendation=request)

    def _request(self, plan: Understanding, state: RecommendationState | None, turns: list[Turn], liked: list[str]) -> Understanding:
        """A request with the conversation's part: what was seen or not wanted before, the liked films, the films already
        recommended; with nothing to go by, the last request ("more like that") or the last film or person talked about."""
        request = plan.recommendation
        if not any(e.group == "person" for e in plan.entities) and (person := self._last_person(turns)) is not None \
                and (said := self.reader.person_pronoun(plan.text, person)) is not None:
            request = replace(request, conditions=request.conditions + (said,))  # "something like X but without her"
        own = bool(request.seeds or request.conditions or request.seen or request.unknown)
        if state is not None:
            negative = tuple(c for c in state.request.conditions if c.op in ("not_in", "not_among") and c not in request.conditions)
            request = replace(request, seen=_joined(state.request.seen, request.seen), excluded=_joined(state.request.excluded, request.excluded),
                              conditions=request.conditions + negative, recommended=tuple(state.recommended))
        liked_seeds = tuple(Seed("film", (iri,), info[0], info[0]) for iri in liked if (info := self.labels.info(iri)) is not None
                            and (iri,) not in {s.iris for s in request.seeds})
        if liked_seeds and (not request.seeds or ACCUMULATE.search(plan.text)) and not (request.conditions and not request.seeds):
            request = replace(request, seeds=request.seeds + liked_seeds)
        elif not own and state is not None and (state.last or not (topic := self._topic(turns))):
            previous = state.request
            request = replace(previous, count=request.count or previous.count, more=True, excluded=_joined(previous.excluded, request.excluded),
                              unchecked=request.unchecked, recommended=tuple(state.recommended), again=request.again)
        elif not own and (topic := self._topic(turns)):  # "more like that" about what was said since: that
            request = replace(request, seeds=topic)
        if request.again:
            request = replace(request, recommended=())
        return replace(plan, constraints=list(request.conditions), recommendation=request)

    def _last_person(self, turns: list[Turn]) -> LinkedEntity | None:
        """The person the conversation was last about: a single answer, else a person it named."""
        for plan, facts in reversed(turns[-LOOK_BACK:]):
            if len(facts.answers) == 1 and facts.answers[0].iri and (info := self.labels.info(facts.answers[0].iri)) and info[1] == "person":
                return LinkedEntity(info[0], facts.answers[0].iri, info[0], 100.0, "person")
            people = [e for e in plan.entities if e.group == "person"]
            if people:
                return people[-1]
        return None

    def _topic(self, turns: list[Turn]) -> tuple[Seed, ...]:
        """The films or person the last turns were about ("any other films like it?", "can you recommend something?")."""
        composer = self.agent.understander.composer
        for plan, facts in reversed(turns[-LOOK_BACK:]):
            seeds = []
            for e in plan.entities:
                if e.group in ("film", "series"):
                    seeds.append(Seed(e.group, (e.iri,), e.label, e.text))
                elif e.group == "person":
                    seeds.append(Seed("person", (e.iri,), e.label, e.text, tuple(sorted(composer.main_roles(e, composer.roles_of(e))))))
            if not seeds and len(facts.answers) == 1 and facts.answers[0].iri and (info := self.labels.info(facts.answers[0].iri)):
                if info[1] == "film":
                    seeds.append(Seed("film", (facts.answers[0].iri,), info[0], info[0]))
            if seeds:
                return tuple(seeds)
        return ()

    # -- comparisons with the last picks

    def _relative(self, text: str, state: RecommendationState) -> list[Constraint]:
        """'something older', 'newer ones', 'shorter please': compared with the last picks (their median)."""
        words = {w.lower() for w in re.findall(r"[a-z]+", text, re.I)}
        out = []
        for word in sorted(words & set(RELATIVE)):
            kind, direction = RELATIVE[word]
            if re.search(rf"\b{word}\s+than\b", text, re.I):
                continue  # "shorter than 90 minutes" is said with its number (read as a condition)
            relation = self.date if kind == "date" else self.duration
            values = [v for iri, _ in state.picks if (v := self._value(iri, relation, kind)) is not None]
            if not relation or not values:
                continue
            middle = statistics.median(values)
            if kind == "date":
                op, bound = ("year<=", int(middle) - 1) if direction == "<" else ("year>=", int(middle) + 1)
                said = f"before {int(middle)}" if direction == "<" else f"after {int(middle)}"
            else:
                op, bound = ("<", int(middle)) if direction == "<" else (">", int(middle))
                said = f"shorter than {int(middle)} minutes" if direction == "<" else f"longer than {int(middle)} minutes"
            out.append(Constraint((relation,), op, (str(bound),), said))
        return out

    def _value(self, iri: str, relation: str, kind: str) -> float | None:
        if kind == "date":
            info = self.labels.info(iri)
            return float(info[3]) if info and info[3] else None
        column = self.table.literal.get(relation)
        idx = self.labels.by_iri.get(iri)
        if column is None or idx is None:
            return None
        import numpy as np

        at = int(np.searchsorted(self.table.films, idx))
        if at >= len(self.table.films) or self.table.films[at] != idx:
            return None
        value = float(column.low[at])
        return None if value != value else value  # NaN: no running time

    # -- why

    def _why(self, pick: tuple[str, str], state: RecommendationState) -> Reply:
        iri, label = pick
        because = state.reasons.get(iri)
        seeds = join_labels([s.label for s in state.request.seeds]) or "what you asked for"
        if because:
            text = f"I picked {label} because it {_as_clause(because)}. (Its place in the list comes from closeness to {seeds} in the KG embeddings.)"
        else:
            conditions = join_labels([c.said for c in state.request.conditions if c.said])
            text = f"{label} is one of the best-known films in my knowledge graph" + (f" for {conditions}." if conditions else ".")
        return Reply(text, Kind.RECOMMENDATION)


def _as_clause(because: str) -> str:
    """'same director as A (X)' -> 'has the same director as A (X)'; 'shares ... with B' stays; 'close to ...' -> 'is close to ...'."""
    if because.startswith("same "):
        return "has the " + because
    if because.startswith("close to"):
        return "is " + because
    return because


def _joined(first: tuple[Seed, ...], second: tuple[Seed, ...]) -> tuple[Seed, ...]:
    known = {s.iris for s in first}
    return first + tuple(s for s in second if s.iris not in known)


def _replaced(previous: list[Constraint], new: list[Constraint]) -> list[Constraint]:
    """The conditions after a refinement: a new one on a relation replaces the old ones on it that it contradicts (a new
    genre for an old one, a new running time for an old one); the others stay."""
    out = list(previous)
    for c in new:
        out = [o for o in out if not _clashes(o, c)] + [c]
    return out


def _clashes(old: Constraint, new: Constraint) -> bool:
    """Whether a new condition replaces an old one: another genre for a genre ("what about comedies" after "horror"),
    another bound on the same side ("nothing over 90 minutes" after "nothing over two hours"), the old value negated."""
    if old.relations != new.relations:
        return False
    if new.op == old.op == "in":
        return True
    if {new.op, old.op} <= {"<", "<=", ">", ">="} and new.op[0] == old.op[0]:
        return True
    if {new.op, old.op} <= {"year<=", "year>="} and new.op == old.op:
        return True
    return new.op == "not_in" and old.op == "in" and set(old.values) <= set(new.values)
