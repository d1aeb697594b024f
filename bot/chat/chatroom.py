"""The built-in chatroom as one unit: the web server plus the bot, connected by the Speakeasy connector.

The bot joins its own chatroom over loopback HTTP exactly as it joins the real Speakeasy
platform, so the connector that runs in production is the one every chatroom user exercises.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from pathlib import Path

from bot.core.config import Settings

from .runner import Respond, Runner
from .server import ChatroomConfig, ChatroomServer, is_loopback
from .speakeasy import SpeakeasyConnector

log = logging.getLogger(__name__)


class ChatroomSetupError(ValueError):
    """The chatroom cannot start with these settings."""


def parse_accounts(text: str) -> dict[str, str]:
    """'ann:pw1,bob:pw2' -> {'ann': 'pw1', 'bob': 'pw2'}."""
    accounts = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, password = item.partition(":")
        if not sep or not name.strip() or not password:
            raise ChatroomSetupError(f"chat account {item!r} is not of the form name:password")
        accounts[name.strip()] = password
    return accounts


def chatroom_config(settings: Settings, db_path: Path | None = None) -> ChatroomConfig:
    accounts = parse_accounts(settings.chat_accounts)
    accounts.update({str(k): str(v) for k, v in settings.extra.get("accounts", {}).items()})
    if not is_loopback(settings.host) and not settings.access_token and not accounts:
        raise ChatroomSetupError(
            f"the chatroom is bound to {settings.host}, reachable from other machines: set an access token "
            "(MOVIEBOT_ACCESS_TOKEN) or accounts (MOVIEBOT_CHAT_ACCOUNTS=name:password,...)"
        )
    return ChatroomConfig(
        db_path=str(db_path or Path(settings.data_dir).expanduser() / "chatroom.sqlite3"),
        host=settings.host,
        port=settings.port,
        bot_name=settings.chat_bot_name,
        bot_password=secrets.token_urlsafe(18),
        access_token=settings.access_token,
        accounts=accounts,
        bot_accounts=parse_accounts(settings.chat_bot_accounts),
        room_minutes=settings.chat_room_minutes,
        images_dir=settings.images_dir,
    )


class Chatroom:
    """Starts and stops the web chatroom with the bot in it."""

    def __init__(self, respond: Respond, config: ChatroomConfig, workers: int = 2):
        self.config = config
        self.server = ChatroomServer(config)
        self.runner = Runner(respond, workers)
        self.connector: SpeakeasyConnector | None = None
        self.connector_task: asyncio.Task | None = None

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.config.host in ("0.0.0.0", "::") else self.config.host
        return f"http://{host}:{self.server.port}"

    async def start(self) -> str:
        """Listen, let the bot log in, and return the page's URL."""
        await self.server.start()
        state = Path(self.config.db_path).with_name(Path(self.config.db_path).stem + "-bot.json")
        self.connector = SpeakeasyConnector(self.url, self.config.bot_name, self.config.bot_password, self.runner, state,
                                            poll_s=2.0)
        self.connector_task = asyncio.create_task(self.connector.run())
        return self.url

    async def stop(self) -> None:
        if self.connector is not None:
            await self.connector.stop()
        if self.connector_task is not None:
            await asyncio.gather(self.connector_task, return_exceptions=True)
        await self.runner.close()
        await self.server.stop()
