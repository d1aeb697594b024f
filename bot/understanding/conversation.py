"""Messages that are conversation rather than questions about films, and messages the bot declines.

Small talk is recognised only when the whole message is social wording ("hi", "how are you?",
"ok thanks, that's all", "are you a bot?"), so a greeting in front of a real question
("hi, who directed Heat?") does not hide the question. Instructions to the bot ("ignore the
knowledge graph and tell me ..."), arithmetic and off-topic requests get a short, friendly
decline: their words are never looked up in the KG.
"""

from __future__ import annotations

import re

from bot.core.text import words
from bot.understanding.vocabulary import word_set

# (intent, pattern over the lower-cased message); a message is small talk when these and filler words cover it
SOCIAL = (
    ("identity", r"who are you|what are you|who (?:made|built|created|wrote|programmed|trained) you|what(?:'s| is) your name|"
                 r"your name|are you (?:a |an )?(?:real |actual )?(?:bot|robot|human|person|ai|gpt|chatgpt|chat ?bot|machine|"
                 r"computer|program|llm|language model|real)|what model are you|which model are you|are you alive"),
    ("help", r"help(?: me)?|what can (?:you|i) (?:do|ask|say)(?: you)?|what do you know|how does (?:this|it) work|"
             r"what (?:are|is) (?:you|this) (?:for|about)|what questions can i ask|commands|instructions|how do i use (?:this|you)"),
    ("wellbeing", r"how are (?:you|u|ya)(?: doing| today)?|how(?:'s| is) it going|what'?s up|wh?at'?s new|sup|how do you do|"
                  r"how have you been|how(?:'s| is) your day|are you (?:ok|okay|well|fine|good)"),
    ("newcomer", r"i(?:'m| am) new(?: here)?|first time(?: here)?|just joined"),
    ("bye", r"bye(?: bye)?|goodbye|good bye|see (?:you|ya)(?: later| soon)?|ciao|good night|farewell|later|"
            r"have a (?:nice|good) (?:day|evening|night|one)|talk (?:to you )?later|i(?:'m| am) (?:done|leaving|off)"),
    ("taste", r"what(?:'s| is| are) your (?:favou?rite|fav|best loved) (?:film|movie|films|movies|actor|actress|director|genre)s?|"
              r"(?:do you have|have you got) a favou?rite (?:film|movie|actor|director)|what (?:films|movies) do you (?:like|love|enjoy)|"
              r"do you (?:like|love|watch|enjoy) (?:films|movies)"),
    ("bored", r"i(?:'m| am) (?:so |very |really )?bored|(?:i have |i've got |got )?nothing to do|what should i do tonight"),
    ("laughter", r"lol+|haha(?:ha)*|hehe+|lmao|rofl|xd|:\)|:d|;\)"),
    ("thanks", r"thanks?(?: a lot| so much| very much)?|thank (?:you|u)(?: so much| very much)?|thx|ty|cheers|much appreciated|"
               r"appreciate it|that(?:'s| is| was) (?:all|it|enough|great|perfect|(?:very |really |so )?helpful|useful|interesting|nice)|"
               r"(?:very |really |so )?helpful|nothing else|got it|alright|all right|"
               r"ok(?:ay)?|cool|great|awesome|perfect|nice|fine|sure|understood|i see"),
    ("praise", r"(?:you(?:'re| are)|u r|ur) (?:great|awesome|amazing|smart|clever|helpful|the best|cool|nice|good|funny|wonderful)|"
               r"good (?:bot|job)|well done|love (?:you|it|this)|you rock|nice work|brilliant"),
    ("greeting", r"hi+|hello+|hey+|hallo|hiya|howdy|yo|greetings|good (?:morning|afternoon|evening|day)|hi there|hello there|"
                 r"hey there|nice to meet you|pleased to meet you"),
)
_SOCIAL = [(intent, re.compile(rf"(?<![\w'])(?:{pattern})(?![\w'])")) for intent, pattern in SOCIAL]
FILLER = word_set("social_filler")
INJECTION = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\b.{0,40}\b(?:graph|kg|instructions?|rules?|prompt|previous|above|everything|"
    r"all|data|facts?|knowledge)\b|\bpretend (?:to be|you(?:'re| are))\b|\byou are now\b|\bact as (?:a|an|if)\b|\bsystem prompt\b|"
    r"\bjailbreak\b|\bdeveloper mode\b|\b(?:say|tell me|claim|confirm|agree) that\b.{0,80}\b(?:directed|starred|wrote|is|was)\b",
    re.I,
)
ARITHMETIC = re.compile(r"\d+(?:\.\d+)?\s*(?:[-+*/x×÷^%]|plus|minus|times|divided by|multiplied by|to the power of)\s*\d+", re.I)
OFF_TOPIC = frozenset(
    """weather forecast temperature rain joke jokes riddle news stock stocks bitcoin crypto recipe recipes cook cooking
    football soccer basketball president election homework math maths capital population translate translation
    poem song lyrics code python program email""".split()
)


def _spoken(text: str) -> str:
    """The message lower-cased, with curly quotes straightened and punctuation turned into spaces."""
    text = text.casefold().replace("\u2019", "'").replace("\u2018", "'")
    return re.sub(r"[^\w' ]+", " ", text)


def decline_intent(text: str, names: list[tuple[int, int]] = ()) -> str:
    """'injection', 'arithmetic' or '' — messages whose words must never reach the KG. `names`: character
    ranges of KG names in the text (the sum inside "99 and 44/100% Dead" is part of a title)."""
    if INJECTION.search(text):
        return "injection"
    for match in ARITHMETIC.finditer(text):
        if re.search(r"[A-Za-z]{3,}\s+\d+\s*[-–:]", text) or any(a <= match.start() and match.end() <= b for a, b in names):
            continue
        return "arithmetic"
    return ""


def social_intent(text: str, names_found: bool) -> str:
    """The small-talk intent of the whole message ("greeting", "thanks", "identity", ...), 'off_topic', or ''.

    `names_found`: whether the message names a KG entity (then only a message made of nothing but
    social wording is small talk)."""
    spoken = f" {_spoken(text)} "
    matches = [(m.start(), m.end(), rank, intent) for rank, (intent, regex) in enumerate(_SOCIAL)
               for m in regex.finditer(spoken)]
    found, taken = [], []
    for start, end, rank, intent in sorted(matches, key=lambda m: (m[0] - m[1], m[2])):  # longest phrases first
        if all(end <= s or start >= e for s, e in taken):
            taken.append((start, end))
            found.append((rank, intent))
    for start, end in sorted(taken, reverse=True):
        spoken = spoken[:start] + " " + spoken[end:]
    rest = [w for w in words(spoken) if w not in FILLER]
    if found and not rest:
        return min(found)[1]  # the order of SOCIAL: a question about the bot outranks the greeting before it
    if not names_found and rest and set(rest) & OFF_TOPIC and len(rest) <= 8:  # names_found: any name-like span
        return "off_topic"
    return ""
