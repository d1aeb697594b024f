"""The errors moviebot expects, under one base class that knows what a chat user may be told.

A message to a developer (the exception's text: file, key, reason) and a message to a chat
user (`user_message`: friendly, no internals) are different things; the agent replies with
the second and logs the first, so no stack trace or file path ever reaches a chatroom.
"""

from __future__ import annotations

DEFAULT_USER_MESSAGE = "Sorry, something went wrong while I was answering that. Could you rephrase the question?"


class MoviebotError(Exception):
    """Base of every error moviebot raises on purpose."""

    user_message = DEFAULT_USER_MESSAGE


class ConfigError(MoviebotError, ValueError):
    """A configuration value is missing or malformed."""


class BundleError(MoviebotError, ValueError):
    """A bundle is missing, malformed or inconsistent; the message says where and why."""


class StoreError(MoviebotError, RuntimeError):
    """The graph cannot be read (store missing or locked, endpoint down, bad query)."""

    user_message = "Sorry, I cannot reach my knowledge graph right now. Please try again in a moment."


class TemplateError(MoviebotError, ValueError):
    """A query template is missing a slot value, or a value is not a safe IRI or literal."""


class CrowdFileError(MoviebotError, ValueError):
    """A crowd file cannot be read at all (missing, wrong columns)."""


class EmbeddingError(MoviebotError, ValueError):
    """Embedding files are missing, inconsistent or do not fit the graph."""


class ImageIndexError(MoviebotError, ValueError):
    """An images index file cannot be read."""


class ModelUnavailable(MoviebotError, RuntimeError):
    """The phrasing model (or llama-cpp-python) is missing, corrupt or cannot be loaded."""


class FeatureError(MoviebotError, RuntimeError):
    """A feature is unknown, or its packages are missing."""


class PlanError(MoviebotError, ValueError):
    """A question plan holds something the part answering it cannot serve (a condition no query can express).

    `what` names it in words for the reply ("the films you mean from earlier"), so the person is told what
    could not be answered instead of "something went wrong"."""

    def __init__(self, reason: str, what: str = "part of that question"):
        super().__init__(reason)
        self.what = what

    @property
    def user_message(self) -> str:  # type: ignore[override]
        return f"I understood the question, but I cannot answer {self.what} that way yet. Could you ask it differently?"
