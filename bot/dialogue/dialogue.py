"""Conversation memory and clarification around the agent, one memory per room.

The agent answers one self-contained question at a time; this layer makes a chat feel
like a conversation by rewriting each message into such a question before the agent
sees it, and by asking back when the question is ambiguous:

* follow-ups: "And who wrote it?" -> "And who wrote Good Will Hunting?" (pronouns resolve to
  the entities of earlier turns), "What about Milk?" -> the previous question about Milk;
* follow-ups that stand for a question of the previous turn: "that director" / a singular "they" (the person
  just answered), "sorry, I meant X" (the question again, about X), "name them" (after "how many ..."), "any
  with X?" (the films just listed, narrowed), and "are you sure? wasn't it X?" (the question asked again, with
  whether X is among its answers -- the graph decides, never the insisting user);
* liked films accumulate across turns ("I also loved Heat") and are added to the next
  recommendation request;
* clarification: when films of the same title match about equally, or the best match is
  weak, the bot asks ("Do you mean Hamlet (1948), (1990) or (1996)?") and resolves the
  next message against the options.

Every rewrite is recorded as a "dialogue" step in the reply trace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.agent import Agent
from bot.core.contracts import Conversation, Facts, LinkedEntity, Message, Reply, TraceStep, Understanding
from bot.core.kinds import Kind, spec
from bot.core.text import YEAR, join_labels, join_or, normalize, tokens
from bot.dialogue.memory_store import MemoryStore, memory_store
from bot.dialogue.recommendations import Recommendations, answer_plan
from bot.understanding.compose import SUPERLATIVES
from bot.understanding.conversation import social_intent
from bot.understanding.cues import RECOMMEND, question_kind
from bot.understanding.sparql_message import sparql_message

Turn = tuple[Understanding, Facts]

MAX_OPTIONS = 4
MAX_LIKED = 12

PRONOUN = re.compile(r"\b(?:(?P<person>he|she|him|her|his|hers|(?:that|this|the same) (?:director|actor|actress|writer|screenwriter|"
                     r"composer|producer|person|guy|man|woman|filmmaker|author|star))|(?P<film>it|its|that (?:film|movie)|this (?:film|movie))|"
                     r"(?<!of )(?<!among )(?<!from )(?<!between )(?P<plural>they|them))\b", re.I)
MAX_PLURAL_REFERENTS = 5  # "did they act in it?" names at most this many earlier answers
WHAT_ABOUT = re.compile(r"^\W*(?:and|but|ok(?:ay)?,?|so)?\s*(?:(?:what|how) about|and|also|same for|now)\s+(?P<name>.+?)\W*$", re.I)
LIKE_STATEMENT = re.compile(r"\b(?:i|we)\s+(?:also\s+|really\s+|just\s+|do\s+|did\s+|totally\s+)*(?:like|liked|love|loved|enjoy|enjoyed|adore|adored)\b", re.I)
ACCUMULATE = re.compile(r"\b(also|too|as well|additionally|besides|more)\b", re.I)
# "sorry, i meant Harry Potter and the Prisoner of Azkaban": the previous question, about another name
CORRECTION = re.compile(r"^\W*(?:(?:sorry|oops|no|ah|oh|argh|my bad|typo)\W+)*i\s+(?:meant|mean|wanted|was asking about)\s+(?P<name>.+?)\W*$", re.I)
# "name them" after "how many films did X direct?": the films counted
LIST_THEM = re.compile(r"^\W*(?:(?:ok(?:ay)?|and|so|great|cool)\W+)*(?:(?:can you |could you |please )?(?:name|list|show|tell|give)"
                       r"(?: me)? (?:them|those|these|the (?:films|movies)|which)(?: (?:ones|all))?|which ones(?: are they)?|what are they)"
                       r"(?: please)?\W*$", re.I)
# "any with Neil Affleck?" after a list of films: those of them with the person
FILTER_FOLLOW_UP = re.compile(r"^\W*(?:and\s+)?(?:any|anything|which|what|which ones?|any ones?|any of them|which of them)\s+"
                              r"(?:ones?\s+)?(?P<how>with|starring|featuring|by)\s+(?P<name>.+?)\W*$", re.I)
# "are you sure? wasn't it Ennio Morricone?": the previous question checked against the name
CHALLENGE = re.compile(r"^\W*(?:(?:are you sure|really|hm+|hmm+|no|wait|huh)\W+)*(?:wasn'?t it|isn'?t it|was it not|is it not|"
                       r"i thought it was|i thought it'?s)\s+(?P<name>.+?)\W*$", re.I)  # not a bare "not ...": "not bad" is no challenge
# "who's in The Matrix?" - "which of them was also in John Wick?": the cast the two films share
ALSO_IN = re.compile(r"^\W*(?:and\s+)?(?:which|who)\s+of\s+(?:them|those|these)(?:\s+(?:people|actors|actresses))?\s+"
                     r"(?:(?:was|were|is|are|also|both|too|appeared|acted|starred|played)\s+)*in\s+(?P<name>.+?)\W*$", re.I)
OTHER_EXTREME = re.compile(r"^\W*(?:and|what about|how about|and what about)\s+(?:the\s+)?(?P<word>most recent|"
                           + "|".join(SUPERLATIVES) + r")(?:\s+(?:one|film|movie))?\W*$", re.I)
ELLIPTIC = re.compile(r"^\W*(?:and|also|plus|then)\b(?!.*\b(?:it|its|he|she|him|her|his|they|them|those|these)\b)", re.I)
RESET = re.compile(r"^\W*(forget (it|everything|that|what i (said|like[sd]?))|start over|reset|new topic)\W*$", re.I)
YES = re.compile(r"^\W*(yes|yeah|yep|yup|y|sure|correct|right|exactly|that one|indeed|of course|ja)\b", re.I)
NO = re.compile(r"^\W*(no|nope|nah|n|neither|none|wrong|not that)\b", re.I)
ORDINALS = {"first": 0, "1st": 0, "one": 0, "second": 1, "2nd": 1, "two": 1, "third": 2, "3rd": 2, "three": 2, "fourth": 3, "4th": 3, "four": 3}
NEWEST = re.compile(r"\b(newest|newer|latest|later|most recent|recent|last|new|modern|remake)\b", re.I)
OLDEST = re.compile(r"\b(oldest|older|original|earliest|earlier|first|old|classic)\b", re.I)


@dataclass
class Option:
    """One entity the user may have meant."""

    iri: str
    label: str
    year: int | None

    def display(self) -> str:
        return f"{self.label} ({self.year})" if self.year else self.label


@dataclass
class Clarification:
    """A question the bot asked back, waiting for the user's choice."""

    question: str  # the question as the agent saw it
    start: int  # the ambiguous mention in `question`
    end: int
    options: list[Option]
    reply: Reply  # the agent's answer for options[0], used as is when the user picks it
    turn: Turn | None  # the agent's turn for that answer


@dataclass
class RoomMemory:
    """What one room's conversation remembers beyond the agent's turns."""

    conversation: Conversation
    pending: Clarification | None = None
    liked: list[Option] = field(default_factory=list)  # films the user said they like, oldest first


class Dialogue:
    """Answers chat messages with conversation memory; `reply(message)` never raises for bad input.

    Rooms are independent: different rooms may be answered from different threads at once,
    one message per room at a time (the Runner guarantees that).
    """

    def __init__(self, agent: Agent, store: MemoryStore | None = None):
        self.agent = agent
        self.labels = agent.kg.labels
        self.store = store or memory_store(agent.settings, RoomMemory)  # shared by replicas when `memory_db` is set
        self.recommendations = Recommendations(agent)  # hook (issue 31)

    def memory(self, room: str) -> RoomMemory:
        return self.store.load(room) or RoomMemory(Conversation(room=room))

    def forget(self, room: str) -> None:
        """Drop a room's memory (a replayed question is a conversation of its own)."""
        self.store.forget(room)

    def reply(self, message: Message) -> Reply:
        memory = self.memory(message.room)
        reply = self._reply(message, memory)
        self.store.save(message.room, memory)
        return reply

    def _reply(self, message: Message, memory: RoomMemory) -> Reply:
        text = (message.text or "").strip()
        if sparql_message(text) is not None:  # a query runs as written: never rewritten, never taken as a clarification choice
            memory.pending = None
            return self.agent.answer(message.text, memory.conversation, sender=message.sender)
        notes: dict = {}
        if memory.pending is not None:
            pending, memory.pending = memory.pending, None
            resolved = self._resolve(pending, text, memory, notes)
            if resolved is not None:
                return _with_note(resolved, notes)
        if RESET.match(text):
            memory.liked.clear()
            memory.conversation.turns.clear()
            return Reply("Okay, let's start over. What would you like to know about films?", Kind.SMALLTALK)
        statement = self._like_statement(text, memory, notes)
        if statement is not None:
            return _with_note(statement, notes)
        challenged = self._challenge(text, memory, notes)
        if challenged is not None:
            return _with_note(challenged, notes)
        recommended = self._recommendations(text, memory, notes)  # hook (issue 31): requests and their follow-ups
        if recommended is not None:
            return _with_note(recommended, notes)
        question = self._rewrite(text, memory, notes)
        reply, turn = self._ask(question, memory)
        if question != text and reply.kind in (Kind.UNKNOWN, Kind.ERROR):
            # the rewrite was not understood: answer the message as it was written
            original, original_turn = self._ask(text, memory)
            if original.kind not in (Kind.UNKNOWN, Kind.ERROR):
                notes["rewrite"] = "not used"
                question, reply, turn = text, original, original_turn
        if reply.kind in (Kind.UNKNOWN, Kind.ERROR) and (unsaid := self._about_the_last_film(text, memory)) is not None:
            question, reply, turn = unsaid
            notes["rewrite"] = question
        clarification = self._clarification(question, reply, turn)
        if clarification is not None:
            memory.pending = clarification
            notes["clarify"] = [o.display() for o in clarification.options]
            asked = Reply(self._clarifying_question(clarification), Kind.CLARIFY, entities=reply.entities,
                          trace=reply.trace, latency_ms=reply.latency_ms)
            return _with_note(asked, notes)
        if turn is not None:
            memory.conversation.turns.append(turn)
        return _with_note(reply, notes)

    # --- answering ---------------------------------------------------------------------

    def _ask(self, question: str, memory: RoomMemory) -> tuple[Reply, Turn | None]:
        """The agent's reply and the turn it recorded, taken back out of the conversation.

        The caller decides whether the turn becomes part of the conversation (it does not
        when the bot asks back instead of answering, or when a rewrite is dropped).
        """
        turns = memory.conversation.turns
        before = len(turns)
        reply = self.agent.answer(question, memory.conversation)
        turn = turns.pop() if len(turns) > before else None
        return reply, turn

    # --- rewriting follow-ups --------------------------------------------------------------

    def _rewrite(self, text: str, memory: RoomMemory, notes: dict) -> str:
        """`text` as a self-contained question, using what earlier turns were about."""
        if social_intent(text, names_found=False):
            return text
        kind, _ = question_kind(text)
        rewritten = text
        follow_up = self._follow_up(text, memory) if memory.conversation.turns else None
        if follow_up is not None:
            rewritten = follow_up
        elif memory.conversation.turns:
            about = WHAT_ABOUT.match(text)
            named_only = bool(about) and not re.search(r"\babout\b", about.group(0), re.I)
            previous = self._previous_question(memory, about.group("name"), named_only) if about else None
            if previous is not None:
                question, start, end = previous
                rewritten = question[:start] + about.group("name") + question[end:]
            else:
                rewritten = self._resolve_pronouns(text, memory)
        if kind == Kind.RECOMMENDATION:
            rewritten = self._with_liked_films(rewritten, memory, notes)
        if rewritten != text:
            notes["rewrite"] = rewritten
        return rewritten

    def _about_the_last_film(self, text: str, memory: RoomMemory) -> tuple[str, Reply, Turn | None] | None:
        """"Who was in Pulp Fiction?" - "and who composed the music?": a follow-up that names nothing and was not
        understood on its own, asked about the film the conversation was last about. Kept only when that reading
        is understood and is about that film."""
        film = self._recent_entity(memory, "film") if memory.conversation.turns and ELLIPTIC.match(text) else None
        if film is None:
            return None
        question = f"{text.rstrip(' ?.!')} of {self._mention(film)}?"
        reply, turn = self._ask(question, memory)
        if reply.kind in (Kind.UNKNOWN, Kind.ERROR) or not any(e.iri == film.iri for e in reply.entities):
            return None
        return question, reply, turn

    def _follow_up(self, text: str, memory: RoomMemory) -> str | None:
        """A follow-up that only makes sense with the previous turn, as the question it stands for."""
        understanding, facts = memory.conversation.turns[-1]
        correction = CORRECTION.match(text)
        if correction:
            name = correction.group("name")
            if understanding.kind == Kind.UNKNOWN and understanding.not_found:
                missing = understanding.not_found[0]  # "who directed The Glass Harbour?" -> "sorry, i meant ..."
                at = understanding.text.lower().find(missing.lower())
                if at >= 0:
                    before = re.sub(r"\b(?:the|a|an)\s+$", "", understanding.text[:at], flags=re.I)  # "The Glass Harbour"
                    return before + name + understanding.text[at + len(missing) :]
            previous = self._previous_question(memory, name, named_only=True)
            if previous is not None:
                question, start, end = previous
                return question[:start] + name + question[end:]
            return None
        if LIST_THEM.match(text):
            counted = re.search(r"\bhow many\b", understanding.text, re.I)
            if counted:  # "how many films did Haneke direct?" -> "which films did Haneke direct?"
                return understanding.text[: counted.start()] + "which" + understanding.text[counted.end() :]
            return None
        also_in = ALSO_IN.match(text)
        if also_in and self._cast_of_one_film(understanding, facts):
            return f"who is in both {understanding.entities[0].label} and {also_in.group('name')}?"
        other_end = OTHER_EXTREME.match(text)
        if other_end and understanding.aggregate is not None and understanding.aggregate.op in ("max", "min"):
            # "Which of those is the longest?" - "and the shortest?": the same question, the other superlative
            said = re.search(r"\b(?:most recent|" + "|".join(SUPERLATIVES) + r")\b", understanding.text, re.I)
            if said:
                return understanding.text[: said.start()] + other_end.group("word").lower() + understanding.text[said.end() :]
        narrowed = FILTER_FOLLOW_UP.match(text)
        if narrowed and sum(self._group(a.iri) == "film" for a in facts.answers if a.iri) >= 2:
            how = narrowed.group("how").lower()
            verb = "were directed by" if how == "by" else "star" if how in ("starring", "featuring") else "have"
            return f"which of those {verb} {narrowed.group('name')}?"
        return None

    def _cast_of_one_film(self, understanding: Understanding, facts: Facts) -> bool:
        """Whether the previous answer was the cast of one film (people, two or more)."""
        cast = self.agent.understander.lexicon.relations_of("starred")
        return (len(understanding.asks) == 1 and len(understanding.chain) == 1 and understanding.chain[0].to_value
                and understanding.chain[0].relation in cast and bool(understanding.entities)
                and understanding.entities[0].group == "film" and sum(self._group(a.iri) == "person" for a in facts.answers if a.iri) >= 2)

    def _challenge(self, text: str, memory: RoomMemory, notes: dict) -> Reply | None:
        """"Are you sure? Wasn't it X?": the previous question asked again, and whether X is among its answers.

        The reply states the graph's answer either way; nothing is changed because the user insists."""
        match = CHALLENGE.match(text)
        if not match or not memory.conversation.turns:
            return None
        understanding, facts = memory.conversation.turns[-1]
        if understanding.kind != Kind.FACTUAL or not facts.answers:
            return None
        key = normalize(match.group("name"))
        ids = self.labels.lookup_any(key) or [i for k, _ in self.labels.fuzzy(key, self.agent.settings.fuzzy_threshold, 1)
                                              for i in self.labels.lookup_any(k)]
        if not ids:
            return None
        named = {self.labels.iris[i] for i in ids}
        again, turn = self._ask(understanding.text, memory)
        if again.kind != Kind.FACTUAL or not again.answers:
            return None
        if turn is not None:
            memory.conversation.turns.append(turn)
        notes["challenge"] = match.group("name")
        agrees = any(a.iri in named for a in turn[1].answers) if turn is not None else False
        label = self.labels.labels[ids[0]]
        lead = f"Yes — {label} is right. " if agrees else "No, not according to my knowledge graph. "
        return Reply(lead + again.text, again.kind, answers=again.answers, entities=again.entities, trace=again.trace,
                     latency_ms=again.latency_ms, facts=again.facts)

    def _resolve_pronouns(self, text: str, memory: RoomMemory) -> str:
        """Replace pronouns by the entity they most likely refer to (not inside a title such as "His Girl Friday")."""
        toks = tokens(text)
        titles = [(s.start, s.end) for s in self.agent.understander.mentions.exact(toks) if s.length > 1]
        referents = {"person": self._recent_entity(memory, "person"), "film": self._recent_entity(memory, "film")}
        pieces, last = [], 0
        for match in PRONOUN.finditer(text):
            word = match.group(0)
            if any(a <= match.start() < b for a, b in titles) or _title_case_inside(text, match):
                continue
            if match.group("plural"):
                together = self._recent_answers(memory)
                if not together:
                    continue
                name = join_labels([self._mention(o) for o in together], limit=MAX_PLURAL_REFERENTS)
                pieces += [text[last : match.start()], name]
                last = match.end()
                continue
            referent = referents["person" if match.group("person") else "film"]
            if referent is None:
                continue
            name = self._mention(referent)
            if word.lower() in {"his", "hers", "its"}:
                name += "'s"
            pieces += [text[last : match.start()], name]
            last = match.end()
        return "".join(pieces) + text[last:]

    def _mention(self, option: Option) -> str:
        """How to write the entity so the agent links exactly it: the label, plus the year for shared labels."""
        shared = len(self.labels.lookup(normalize(option.label))) > 1
        return f"{option.label} {option.year}" if shared and option.year else option.label

    def _previous_question(self, memory: RoomMemory, name: str, named_only: bool) -> tuple[str, int, int] | None:
        """The latest factual question whose topic is of the same kind as `name` (a film for a film).
        With `named_only` ("And Heat?"), `name` must be the name of an entity, not a question of its own."""
        ids = self.labels.lookup_any(normalize(name))
        if not ids and named_only:
            ids = [i for key, _ in self.labels.fuzzy(normalize(name), self.agent.settings.fuzzy_threshold, 1)
                   for i in self.labels.lookup_any(key)]
            if not ids:
                return None
        groups = {self.labels.groups[i] for i in ids}
        for understanding, _facts in reversed(memory.conversation.turns):
            if understanding.kind == Kind.FACTUAL and understanding.entities:
                topic = understanding.entities[0]
                if not groups or topic.group in groups:
                    return understanding.text, topic.start, topic.end
        return None

    def _recent_answers(self, memory: RoomMemory) -> list[Option]:
        """The previous turn's answers when "they" can mean them: two to a few entities of one kind
        ("Who wrote Central Station?" "Did they also act in it?")."""
        if not memory.conversation.turns:
            return []
        _understanding, facts = memory.conversation.turns[-1]
        options = [self._option(a.iri) for a in facts.answers if a.iri and self.labels.info(a.iri)]
        groups = {self._group(o.iri) for o in options}
        if len(options) == 1 and groups == {"person"}:
            return options  # a singular "they": "who wrote Child's Play?" "what else did they write?"
        return options if 2 <= len(options) <= MAX_PLURAL_REFERENTS and len(groups) == 1 else []

    def _recent_entity(self, memory: RoomMemory, group: str) -> Option | None:
        """The entity of `group` the conversation was last about: a single answer, else the topic."""
        for understanding, facts in reversed(memory.conversation.turns):
            if len(facts.answers) == 1 and facts.answers[0].iri and self._group(facts.answers[0].iri) == group:
                return self._option(facts.answers[0].iri)
            for entity in understanding.entities:
                if entity.group == group:
                    return Option(entity.iri, entity.label, entity.year)
        return None

    def _group(self, iri: str) -> str:
        info = self.labels.info(iri)
        return info[1] if info else ""

    def _option(self, iri: str) -> Option:
        label, _group, _degree, year = self.labels.info(iri) or (iri, "", 0, None)
        return Option(iri, label, year)

    # --- recommendations (bot.dialogue.recommendations) ----------------------------------

    def _recommendations(self, text: str, memory: RoomMemory, notes: dict) -> Reply | None:
        """A recommendation request or a follow-up of one, answered with the conversation's part in it; None otherwise."""
        edited = self.recommendations.plan(text, memory.conversation.turns, [o.iri for o in memory.liked])
        if edited is None or isinstance(edited, Reply):
            return edited
        if isinstance(edited, str):  # "who directed the second one?": the question about that pick
            notes["rewrite"] = edited
            reply, turn = self._ask(edited, memory)
        else:
            request = edited.recommendation
            named = [Option(e.iri, e.label, e.year) for e in edited.entities if e.group == "film" and any(e.iri in s.iris for s in request.seeds)]
            if named and not ACCUMULATE.search(text):
                memory.liked = []  # a fresh request that names its own films starts a new list
            self._remember_liked(named, memory)
            notes["liked"] = [o.display() for o in memory.liked]
            notes["recommendation"] = {"seeds": [s.label for s in request.seeds], "seen": [s.label for s in request.seen],
                                       "excluded": [s.label for s in request.excluded], "conditions": [c.said for c in request.conditions]}
            reply, turn = answer_plan(self.agent, edited, memory.conversation)
        if turn is not None:
            memory.conversation.turns.append(turn)
        return reply

    # --- liked films -------------------------------------------------------------------

    def _films_in(self, text: str) -> list[Option]:
        understander = self.agent.understander
        toks = tokens(text)
        entities = understander.all_entities(text, toks, understander.candidate_spans(text, toks))
        return [Option(e.iri, e.label, e.year) for e in entities if e.group == "film"]

    def _remember_liked(self, films: list[Option], memory: RoomMemory) -> None:
        known = {o.iri for o in films}
        memory.liked = [o for o in memory.liked if o.iri not in known] + films
        del memory.liked[:-MAX_LIKED]

    def _like_statement(self, text: str, memory: RoomMemory, notes: dict) -> Reply | None:
        """'I loved Heat.' is remembered for later recommendations, not answered as a question."""
        match = LIKE_STATEMENT.search(text)
        if not match or "?" in text or RECOMMEND.search(text):
            return None
        toks = tokens(text)
        titles = [(s.start, s.end) for s in self.agent.understander.mentions.exact(toks) if s.length > 1]
        if any(a <= match.start() < b for a, b in titles):
            return None  # "which films share the screenwriter of I Love You, Man": the words are a title
        films = self._films_in(text)
        if not films:
            return None
        self._remember_liked(films, memory)
        notes["liked"] = [o.display() for o in memory.liked]
        names = join_labels([o.display() for o in films])
        return Reply(
            f"Noted: you like {names}. Ask me for recommendations whenever you want, e.g. \"What should I watch?\"",
            Kind.MEMORY,
            entities=[LinkedEntity(o.label, o.iri, o.label, 100.0, "film", year=o.year) for o in films],
        )

    def _with_liked_films(self, text: str, memory: RoomMemory, notes: dict) -> str:
        """A recommendation request, extended by the films the user liked in earlier turns."""
        films = self._films_in(text)
        if films and not ACCUMULATE.search(text):
            memory.liked = []  # a fresh request that names its own films starts a new list
        self._remember_liked(films, memory)
        mentioned = {o.iri for o in films}
        earlier = [o for o in memory.liked if o.iri not in mentioned]
        notes["liked"] = [o.display() for o in memory.liked]
        if not earlier:
            return text
        rewritten = f"{text.rstrip()} I also like {join_labels([self._mention(o) for o in earlier], limit=MAX_LIKED)}."
        notes["rewrite"] = rewritten
        return rewritten

    # --- clarification -------------------------------------------------------------------

    def _clarification(self, question: str, reply: Reply, turn: Turn | None) -> Clarification | None:
        """Ask back when several films share the title and nothing in the question chose one (a year, a person,
        'the original'): the same policy in every chat and in replay."""
        kind = spec(reply.kind)
        if kind is None or not kind.clarifies or not reply.entities:
            return None
        topic = reply.entities[0]
        best = Option(topic.iri, topic.label, topic.year)
        if topic.year and topic.alternatives and not topic.selected_by and not YEAR.search(question):
            rivals = [
                Option(a["iri"], a["label"], a["year"])
                for a in topic.alternatives
                if a.get("year") and a["year"] != topic.year
            ]
            if rivals:
                return Clarification(question, topic.start, topic.end, [best] + rivals[: MAX_OPTIONS - 1], reply, turn)
        return None

    def _clarifying_question(self, clarification: Clarification) -> str:
        options = clarification.options
        if len(options) == 1:
            return f"Do you mean {options[0].display()}?"
        ordered = sorted(options, key=lambda o: o.year or 0)
        if len({o.label for o in ordered}) == 1:
            return f"Do you mean {ordered[0].label} {join_or([f'({o.year})' for o in ordered])}?"
        return f"Do you mean {join_or([o.display() for o in ordered])}?"

    def _resolve(self, pending: Clarification, text: str, memory: RoomMemory, notes: dict) -> Reply | None:
        """The answer for the option the user picked, or None when the message is something else."""
        choice = self._choose(pending.options, text)
        if choice is None:
            if NO.match(text) and len(text) < 40:
                notes["clarify"] = "declined"
                if len(pending.options) == 1:
                    return Reply("Okay. Please check the spelling of the title or name, or ask about another film.", Kind.CLARIFY)
                example = pending.question[: pending.start] + self._mention(pending.options[-1]) + pending.question[pending.end :]
                return Reply(f"Okay. Which one did you mean? You can add the year, e.g. \"{example}\"", Kind.CLARIFY)
            return None
        notes["clarify"] = f"chose {choice.display()}"
        if choice.iri == pending.options[0].iri:
            if pending.turn is not None:
                memory.conversation.turns.append(pending.turn)
            return pending.reply
        question = pending.question[: pending.start] + self._mention(choice) + pending.question[pending.end :]
        notes["rewrite"] = question
        reply, turn = self._ask(question, memory)
        if turn is not None:
            memory.conversation.turns.append(turn)
        return reply

    def _choose(self, options: list[Option], text: str) -> Option | None:
        if len(options) == 1:
            return options[0] if YES.match(text) else None
        years = {int(y) for y in YEAR.findall(text)}
        by_year = [o for o in options if o.year in years]
        if len(by_year) == 1:
            return by_year[0]
        words = [t for t, _, _ in tokens(text)]
        if len(words) <= 5:
            dated = [o for o in options if o.year]
            if dated and NEWEST.search(text):  # "no, the newer one"
                return max(dated, key=lambda o: o.year)
            if dated and OLDEST.search(text):
                return min(dated, key=lambda o: o.year)
            for word in words:
                if word == "one" and len(words) > 1:
                    continue  # "the other one", "that one": not a number
                if word in ORDINALS and ORDINALS[word] < len(options):
                    return sorted(options, key=lambda o: o.year or 0)[ORDINALS[word]]
                if word.isdigit() and 1 <= int(word) <= len(options):
                    return sorted(options, key=lambda o: o.year or 0)[int(word) - 1]
            if YES.match(text):
                return options[0]
        return None


def _title_case_inside(text: str, match: re.Match) -> bool:
    """A capitalised pronoun inside a sentence ("Who directed His Girl Friday?") is part of a title."""
    before = text[: match.start()].rstrip()
    return match.group(0)[0].isupper() and bool(before) and before[-1] not in ".!?"



def _with_note(reply: Reply, notes: dict) -> Reply:
    if notes:
        reply.trace.insert(0, TraceStep("dialogue", 0.0, dict(notes)))
    return reply
