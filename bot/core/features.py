"""The contract of an optional feature (NER, crowd answers, embeddings, recommendations, pictures, phrasing).

A feature is declared once, as data: its name, the packages it needs, the prefix of its
settings, an optional build step (train or index something, cached under the KG's build
folder) and a load step. Loading returns a `Contribution` — answer handlers per question
kind, fallbacks, amenders, mention sources, a phraser — instead of changing the agent, so
the agent is assembled from what its features declare and can list it.

A contribution may carry a `background` load: work too slow for the first answer (importing
Flair and torch, priming the model) runs on a thread, and its own contribution joins the
agent when it is done. Feature modules import heavy packages only inside their steps, so
declaring a feature costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from bot.core.contracts import Conversation, Facts, Sentence, Understanding
from bot.core.kinds import Kind

if TYPE_CHECKING:
    from bot.core.config import Settings

# A handler answers one question kind.
Handler = Callable[[Understanding, Conversation], Facts]
# A fallback may answer a factual question the graph has no triple for (crowd, embeddings); None = pass.
Fallback = Callable[[Understanding, Facts], "Facts | None"]
# An amender may correct graph facts (e.g. a triple the crowd voted incorrect); returns the facts to use.
Amender = Callable[[Understanding, Facts], Facts]
# A mention source proposes entity spans: (question text, its tokens) -> spans (bot.understanding.mentions.Span).
MentionSource = Callable[[str, list], list]


class Phraser(Protocol):
    def phrase(self, facts: Facts, sentence: Sentence, detail: dict) -> Sentence:
        """The sentence users see for `facts` (the template `sentence` when in doubt); notes go into `detail`."""


@dataclass
class Contribution:
    """What a loaded feature adds to the pipeline."""

    handlers: dict[Kind, Handler] = field(default_factory=dict)
    fallbacks: list[Fallback] = field(default_factory=list)
    amenders: list[Amender] = field(default_factory=list)
    mention_sources: list[MentionSource] = field(default_factory=list)
    phraser: Phraser | None = None
    background: Callable[[], Contribution | None] | None = None  # a slow load; its result joins when done
    # what people may be told the feature lets them ask, as it is loaded ("show pictures of people and film posters"):
    # help and small talk say exactly these, so a feature without its data (no images index) offers nothing
    offers: tuple[str, ...] = ()

    def describe(self) -> dict[str, Any]:
        return {
            "handlers": sorted(str(k) for k in self.handlers),
            "fallbacks": len(self.fallbacks),
            "amenders": len(self.amenders),
            "mention_sources": len(self.mention_sources),
            "phraser": self.phraser is not None,
            "background": self.background is not None,
            "offers": list(self.offers),
        }


# build(settings, bundle, build folder, graph key, quiet, force)
BuildStep = Callable[["Settings", Any, Path, str, bool, bool], None]


@dataclass(frozen=True)
class Feature:
    """One optional feature, declared as data (see the module docstring)."""

    name: str
    summary: str
    requires: tuple[str, ...]  # importable names of the optional packages it needs
    settings: str  # prefix of its settings (`ner` -> ner_epochs, ner_layers, ...; TOML section [ner])
    load: Callable[[Any], Contribution]  # load(agent) -> what it contributes
    build: BuildStep | None = None
