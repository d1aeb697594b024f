"""Pictures: "Show me a picture of Halle Berry", "What does Julia Roberts look like?", "the poster of Jaws"."""

from __future__ import annotations

import re

from bot.core.kinds import Kind
from bot.core.terms import Group
from bot.kg.graph import KG
from bot.understanding.constructions.base import Construction
from bot.understanding.lexicon import Lexicon
from bot.understanding.mentions import Span
from bot.understanding.vocabulary import FILM_WORDS

CONSTRUCTION = Construction(
    "multimedia", "a picture of a person or a film's poster",
    ("Show me a picture of Halle Berry", "What does Julia Roberts look like?", "show me Tom Hardy"),
    kind=Kind.MULTIMEDIA,
)
SEE_REQUEST = re.compile(r"\W*(?:(?:yo|hey|hi|hello|ok|okay|so|please|now)\W+)*(?:(?:can|could|may) i (?:please )?(?:see|have a look at)|"
                         r"let me see|show me|i want to see|i'?d like to see)\b", re.I)


def asks_to_see_someone(kg: KG, lexicon: Lexicon, text: str, toks, spans: list[Span]) -> bool:
    """'show me Tom Hardy', 'let me see Rob Reiner': a person and nothing else is a picture request."""
    starts = [0] + [m.end() for m in re.finditer(r"[.?!:;]\s*", text)]
    match = next((m for start in starts if (m := SEE_REQUEST.match(text, start))), None)
    if not match:
        return False
    rest = [(i, t) for i, (t, s, _) in enumerate(toks) if s >= match.end()]
    for span in spans:
        if any(kg.labels.groups[i] == Group.PERSON for i in span.ids):
            left = [t for i, t in rest if not span.tok_start <= i < span.tok_end]
            if all(t in lexicon.generic_or_stop for t in left) and not set(left) & FILM_WORDS:
                return True  # "show me Keith David" (but "show me Austin Butler films" asks for his films)
    return False
