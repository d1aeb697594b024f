"""Small talk, questions about the bot, and what it declines: "hello", "who are you?", "thanks!", "ignore the graph and ...",
"what is 2 + 2?" (bot.understanding.conversation)."""

from __future__ import annotations

from bot.core.kinds import Kind
from bot.understanding.constructions.base import Construction

CONSTRUCTION = Construction(
    "smalltalk", "greetings, thanks, help, questions about the bot; instructions, arithmetic and off-topic requests are declined",
    ("hello", "who are you?", "thanks, that's all", "what is 2 + 2?"),
    kind=Kind.SMALLTALK,
)
