"""Reply text for chat platforms: safe to post, split to the platform's size, and as simple HTML."""

from __future__ import annotations

import html
import re

from bot.core.contracts import Reply

IMDB_ID = re.compile(r"\b((?:tt|nm)\d{7,8})\b")
WIKIDATA_ID = re.compile(r"\b(?:wd:)?(Q[1-9]\d{0,9})\b")
LIST_AFTER = 3  # answers beyond this count are shown as a list where the platform renders HTML


def without_mentions(text: str) -> str:
    """Speakeasy re-routes a message containing '@name'; a full-width at sign reads the same and does not."""
    return text.replace("@", "\uff20")


def split_text(text: str, limit: int) -> list[str]:
    """Pieces of at most `limit` characters, cut at paragraph, line, sentence or word ends where possible."""
    text = text.strip()
    parts = []
    while len(text) > limit:
        window = text[:limit]
        cut = max(window.rfind("\n\n"), window.rfind("\n"), window.rfind(". "), window.rfind(", "), window.rfind(" "))
        if cut < limit // 2:
            cut = limit - 1
        parts.append(text[: cut + 1].strip())
        text = text[cut + 1 :].strip()
    if text:
        parts.append(text)
    return parts


def linked_html(text: str) -> str:
    """Escaped text with IMDb and Wikidata ids as links."""
    escaped = html.escape(text)
    escaped = IMDB_ID.sub(lambda m: f'<a href="https://www.imdb.com/{"title" if m[1].startswith("tt") else "name"}/{m[1]}/">{m[1]}</a>', escaped)
    return WIKIDATA_ID.sub(lambda m: f'<a href="https://www.wikidata.org/wiki/{m[1]}">{m[0]}</a>', escaped)


def reply_html(reply: Reply) -> str:
    """The reply as HTML: the sentence, and the answers as a list when there are many."""
    body = linked_html(reply.text)
    if len(reply.answers) > LIST_AFTER:
        items = "".join(f"<li>{linked_html(a)}</li>" for a in reply.answers)
        body += f"<ul>{items}</ul>"
    return body
