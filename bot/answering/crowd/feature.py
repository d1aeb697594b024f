"""The crowd feature: answers from the bundle's crowd files when the graph has no triple, and the crowd's fixes."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from bot.answering.crowd.aggregate import FilterRules, load_crowd
from bot.answering.crowd.answers import CrowdAnswerer
from bot.core.cache import code_digest, combine, file_digest, pickled
from bot.core.features import Contribution, Feature

log = logging.getLogger(__name__)


def load(agent) -> Contribution:
    bundle = agent.kg.bundle
    if not bundle.crowd_files:
        return Contribution()
    from bot.answering.crowd import aggregate, votes

    rules = FilterRules.from_settings(agent.settings)
    cache_dir = Path(agent.settings.cache_dir).expanduser()
    # cached by the files' contents, the rules and the code that aggregates: parsing and statsmodels cost seconds
    key = combine(code_digest(aggregate, votes), repr(rules), json.dumps(bundle.prefixes, sort_keys=True),
                  *(file_digest(Path(f), cache_dir) for f in bundle.crowd_files))
    data = pickled(agent.kg.folder, "crowd", key, lambda: load_crowd(bundle.crowd_files, bundle.prefixes, rules))
    if data.problems:
        log.warning("crowd files: %d problem(s), e.g. %s", len(data.problems), "; ".join(map(str, data.problems[:3])))
    answerer = CrowdAnswerer(agent.kg, data)
    return Contribution(fallbacks=[answerer.fallback], amenders=[answerer.amend],
                        offers=("fill in answers from crowd votes",))


FEATURE = Feature(
    name="crowd",
    summary="crowd-sourced answers with Fleiss' kappa, and the crowd's corrections of graph triples",
    requires=("statsmodels",),
    settings="crowd",
    load=load,
)
