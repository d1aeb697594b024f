"""Pictures: "Show me a picture of Halle Berry", "What does Julia Roberts look like?", "the poster of Jaws"."""

from __future__ import annotations

from bot.core.kinds import Kind
from bot.understanding.constructions.base import Construction

CONSTRUCTION = Construction(
    "multimedia", "a picture of a person or a film's poster",
    ("Show me a picture of Halle Berry", "What does Julia Roberts look like?", "show me Tom Hardy"),
    kind=Kind.MULTIMEDIA,
)
