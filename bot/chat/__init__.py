"""Chatrooms: connectors turn platform events into Messages and send Replies back.

    platform event -> Message -> Runner (worker thread, per-room order) -> Dialogue -> Agent -> Reply -> platform

Connectors never touch the KG; the Runner keeps the event loop free and guarantees
exactly one reply per message, in the order the questions came in each room.
"""
