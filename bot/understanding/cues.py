"""Surface cues for the question kinds that words give away: embeddings, pictures, recommendations.

Checked in the registry's order (bot.core.kinds.CUED_KINDS) on the question with its names
masked, so titles such as "The Big Picture" do not look like a picture request. A question
no cue claims is factual; the parser then finds its relation chain and entities.
"""

from __future__ import annotations

import re

from bot.core.kinds import CUED_KINDS, Kind
from bot.understanding.constructions.base import construction_data
from bot.understanding.recommendation_words import cue_pattern as request_cues

RECOMMEND = re.compile(
    r"\b(recommend\w*|suggest\w*|similar (to|films?|movies?)|(films?|movies?) like\b|something like|what (else )?should i (watch|see)|"
    r"any(thing| \w+)? like\b|more like (that|this|these|those|them|it)\b|any (good )?(ideas|tips|picks)\b|in the mood for|"
    r"i (want|would like|'d like) to (watch|see) (a|an|some)\b|i('m| am) an? (big |huge )?fan of\b|something (good )?to watch|what to watch|"
    r"(given|since|as) (that )?i (like|liked|love|loved|enjoy|enjoyed)|i (really )?(like|liked|love|loved|enjoyed) .*(watch|recommend|suggest|similar|like it|too|also)|"
    r"if i (like|liked|love|loved|enjoyed)|in the vein of|(are|were) (all )?my fav\w*|what'?s next\b|what(?:'s| is) a good\b|"
    r"looking for (a |an |some )?(good |great |nice |fun )?(films?|movies?|something)\b|something (good |fun |nice )?(with|starring)\b|"
    r"(a|some) (good |great |nice )?\w+ (films?|movies?) (for|to watch) (tonight|today|the weekend|kids|children|a date|date night)\b|"
    r"\b(scary|funny|sad|romantic|feel[- ]good|light|fun) (films?|movies?|something)\b|"
    r"^\W*(do you (know|have) |got |know )?any (good|great|decent|nice|fun|cool) \w+)"
    r"|" + request_cues(),  # hook (issue 31): the request reader's own cues
    re.I,
)
MULTIMEDIA = re.compile(
    r"\b((?<!best )(?<!best motion )picture|photo|photograph|image|poster|looks? like|look alike|what does .+ look|how does .+ look|show me .+ (face|pic)|"
    r"stills? (from|of)|a still|screenshots?|screen ?grabs?)\b|\bpics?\b|\bphotos?\b", re.I
)
# "picture" is also a film ("Spielberg's longest picture", "her second picture"): beside a word that orders films, only
# "a picture of / from" asks for one
ORDERING_WORDS = frozenset(construction_data("superlative")["superlatives"]) | frozenset(construction_data("superlative")["ordinals"])
FILM_PICTURE = re.compile(r"\bpictures?\b(?!\s+(?:of|from)\b)", re.I)
EMBEDDING = re.compile(r"\bembeddings?\b", re.I)
CUES: dict[Kind, re.Pattern] = {Kind.EMBEDDING: EMBEDDING, Kind.MULTIMEDIA: MULTIMEDIA, Kind.RECOMMENDATION: RECOMMEND}


def question_kind(text: str) -> tuple[Kind, str]:
    """(kind, "") decided by surface cues; FACTUAL when none fires. Small talk is read before this
    (bot.understanding.conversation), on the whole message."""
    for kind in CUED_KINDS:
        if CUES[kind].search(text) and not (kind is Kind.MULTIMEDIA and films_called_pictures(text)):
            return kind, ""
    return Kind.FACTUAL, ""


def films_called_pictures(text: str) -> bool:
    """Whether the only picture cue is "picture" said of films: beside a word that orders them, not "a picture of"."""
    if not set(re.findall(r"\w+", text.lower())) & ORDERING_WORDS:
        return False
    return not MULTIMEDIA.search(FILM_PICTURE.sub(" ", text))
