"""The one interface every chat platform implements."""

from __future__ import annotations

from typing import Protocol

from bot.core.contracts import Message, Reply


class Connector(Protocol):
    """Turns platform events into `Message`s for a Runner and sends `Reply`s back.

    A connector never touches the KG. It submits each incoming message once
    (`Runner.submit(message, self.deliver)`) and remembers what it answered so a restart
    neither loses nor repeats a message.
    """

    async def run(self) -> None:
        """Connect and relay messages until `stop()` is called."""

    async def stop(self) -> None:
        """Stop receiving; replies already queued are still delivered."""

    async def deliver(self, message: Message, reply: Reply) -> None:
        """Send `reply` to the room `message` came from."""
