"""Surface cues for the question kinds that words give away: small talk, embeddings, pictures, recommendations.

Checked in the registry's order (bot.core.kinds.CUED_KINDS) on the question with its names
masked, so titles such as "The Big Picture" do not look like a picture request. A question
no cue claims is factual; the parser then finds its relation chain and entities.
"""

from __future__ import annotations

import re

from bot.core.kinds import CUED_KINDS, Kind

RECOMMEND = re.compile(
    r"\b(recommend\w*|suggest\w*|similar (to|films?|movies?)|(films?|movies?) like\b|something like|what (else )?should i (watch|see)|"
    r"(given|since|as) (that )?i (like|liked|love|loved|enjoy|enjoyed)|i (really )?(like|liked|love|loved|enjoyed) .*(watch|recommend|suggest|similar|like it|too|also)|"
    r"if i (like|liked|love|loved|enjoyed))",
    re.I,
)
MULTIMEDIA = re.compile(
    r"\b(picture|photo|photograph|image|poster|looks? like|look alike|what does .+ look|show me .+ (face|pic))\b|\bpics?\b|\bphotos?\b", re.I
)
EMBEDDING = re.compile(r"\bembeddings?\b", re.I)
SMALLTALK_MAX_CHARS = 80
SMALLTALK = {
    "greeting": re.compile(r"^\W*(hi|hello|hey|hallo|good (morning|afternoon|evening)|greetings|howdy|yo)\b[\w\s!.,]*$", re.I),
    "thanks": re.compile(r"^\W*(thanks?|thank you|thx|cheers|great|awesome|perfect|cool|nice|ok(ay)?)\b[\w\s!.,]*$", re.I),
    "bye": re.compile(r"^\W*(bye|goodbye|see you|ciao|good night)\b[\w\s!.,]*$", re.I),
    "help": re.compile(r"^\W*(help|what can (you|i) (do|ask)|who are you|what are you|how does this work)\b.*$", re.I),
}
CUES: dict[Kind, re.Pattern] = {Kind.EMBEDDING: EMBEDDING, Kind.MULTIMEDIA: MULTIMEDIA, Kind.RECOMMENDATION: RECOMMEND}


def smalltalk_intent(text: str) -> str:
    """The small-talk intent of the whole message ("greeting", "thanks", "bye", "help"), or ""."""
    if len(text) >= SMALLTALK_MAX_CHARS:
        return ""
    return next((intent for intent, pattern in SMALLTALK.items() if pattern.match(text)), "")


def question_kind(text: str) -> tuple[Kind, str]:
    """(kind, small-talk intent) decided by surface cues; FACTUAL when none fires."""
    for kind in CUED_KINDS:
        if kind is Kind.SMALLTALK:
            intent = smalltalk_intent(text)
            if intent:
                return kind, intent
        elif kind in CUES and CUES[kind].search(text):
            return kind, ""
    return Kind.FACTUAL, ""
