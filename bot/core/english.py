"""How common an English word is: the word counts pyspellchecker ships (from subtitles, so the words of talk), offline.

The understander knows its own wording (the bundle's phrasings, the shared vocabulary) and the KG's names; every other
word used to look the same to it, whether "usually" or "Tarantino". An ordinary English word the project never
foresaw is no unknown name: the label index does not glue it to a surname ("tarantino usually" is not one name), a
first name that is also a common word ("Grace", "Will") is no nickname of one person, and the reader's tagger sees
which unknown words are ordinary. Read at build time (about 0.2 s); what the running bot needs is kept in its
build artefacts.
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from importlib.resources import files

COMMON = 1_000  # a word seen this often in the subtitles is an ordinary word (about the 19,000 commonest)


@cache
def counts() -> dict[str, int]:
    """Word -> how often it occurs (lower case)."""
    with gzip.open(str(files("spellchecker") / "resources" / "en.json.gz"), "rt", encoding="utf-8") as fh:
        return json.load(fh)


def common_words(at_least: int = COMMON) -> frozenset[str]:
    """The ordinary English words: those that occur at least `at_least` times."""
    return frozenset(word for word, n in counts().items() if n >= at_least and word.isalpha())
