"""The Speakeasy platform's objects and events, field by field, written from the platform (not from our server).

`check(name, value)` returns the ways `value` differs from the named shape (empty when it
conforms): a missing field, a wrong type, or a wrong type inside a list or nested object.
Extra fields are allowed (the platform's clients ignore them). docs/speakeasy.md lists the
same shapes; tests/test_chat_protocol.py checks that both agree.
"""

from __future__ import annotations

# type names as docs/speakeasy.md writes them: "string", "integer", "boolean", "string or null",
# "list of T", or the name of another shape
SHAPES: dict[str, dict[str, str]] = {
    "LoginRequest": {"username": "string", "password": "string"},
    "UserSessionDetails": {"userDetails": "UserDetails", "sessionToken": "string", "sessionId": "string",
                           "startTime": "integer", "userSessionAlias": "string"},
    "UserDetails": {"id": "string", "username": "string", "role": "string"},
    "ChatRequest": {"username": "string"},
    "ChatRoomList": {"rooms": "list of ChatRoomInfo"},
    "ChatRoomInfo": {"assignment": "boolean", "formRef": "string", "uid": "string", "startTime": "integer",
                     "remainingTime": "integer", "userAliases": "list of string", "alias": "string or null",
                     "prompt": "string", "testerBotAlias": "string", "markAsNoFeedback": "boolean"},
    "ChatRoomState": {"info": "ChatRoomInfo", "messages": "list of RestChatMessage", "reactions": "list of ChatMessageReaction"},
    "RestChatMessage": {"timeStamp": "integer", "authorAlias": "string", "ordinal": "integer", "message": "string",
                        "recipients": "list of string", "read": "boolean"},
    "ChatMessageReaction": {"messageOrdinal": "integer", "type": "string"},
    "SuccessStatus": {"description": "string"},
    "ErrorStatus": {"description": "string"},
    "SseChatMessage": {"roomId": "string", "timeStamp": "integer", "authorAlias": "string", "ordinal": "integer",
                       "message": "string", "recipients": "list of string"},
    "SseChatReaction": {"roomId": "string", "messageOrdinal": "integer", "type": "string"},
}
REACTION_TYPES = {"THUMBS_UP", "THUMBS_DOWN", "STAR"}
EVENTS = {"ROOMS": "ChatRoomList", "MESSAGE": "SseChatMessage", "REACTION": "SseChatReaction"}


def check(type_name: str, value, where: str = "") -> list[str]:
    """Every way `value` is not of `type_name`."""
    where = where or type_name
    if type_name == "string":
        return [] if isinstance(value, str) else [f"{where}: {value!r} is not a string"]
    if type_name == "integer":
        return [] if type(value) is int else [f"{where}: {value!r} is not an integer"]
    if type_name == "boolean":
        return [] if type(value) is bool else [f"{where}: {value!r} is not a boolean"]
    if type_name == "string or null":
        return [] if value is None or isinstance(value, str) else [f"{where}: {value!r} is not a string or null"]
    if type_name.startswith("list of "):
        if not isinstance(value, list):
            return [f"{where}: {value!r} is not a list"]
        item = type_name[len("list of "):]
        return [problem for i, v in enumerate(value) for problem in check(item, v, f"{where}[{i}]")]
    shape = SHAPES[type_name]
    if not isinstance(value, dict):
        return [f"{where}: {value!r} is not an object"]
    problems = [f"{where}: no field {name!r}" for name in shape if name not in value]
    problems += [p for name, kind in shape.items() if name in value for p in check(kind, value[name], f"{where}.{name}")]
    if type_name in ("ChatMessageReaction", "SseChatReaction") and value.get("type") not in REACTION_TYPES:
        problems.append(f"{where}.type: {value.get('type')!r} is not a reaction type")
    return problems
