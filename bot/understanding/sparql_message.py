"""SPARQL queries typed into the chat: recognised before any natural-language understanding, then checked.

In the course this bot is built for, people paste SPARQL queries into the chatroom and expect
the results. `sparql_message` recognises such a message — a query form (SELECT, ASK, CONSTRUCT,
DESCRIBE) or an update, possibly after PREFIX/BASE lines, possibly in a code fence or quotes —
from its tokens, so "Describe The Matrix" or "Select a film for me" stay questions: a query
form counts only with the syntax that follows it in SPARQL (a variable, `{`, an IRI ...).

`check_query` then parses it with rdflib's SPARQL parser, with the usual prefixes pre-declared
(the course's tooling pre-declares them, so course queries use `rdfs:` without a PREFIX line),
and refuses what a chat message must not do: updates, federated `SERVICE` calls and `FROM`
datasets. A syntax error is reported with its line, column and offending token. What passes is
a `CheckedQuery`: the text to run (the missing PREFIX lines prepended) and the IRIs and string
literals it uses, which the answering layer needs to explain an empty result.

The small lexer here is also what rewrites a query for such an explanation (a label literal
with the language tag the KG uses, a Wikidata IRI replaced by the KG's own entity): it swaps
whole tokens, outside strings and comments, and the result is checked again.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache

from bot.core.errors import MoviebotError

STANDARD_PREFIXES = {  # what the course's tooling pre-declares; a bundle's own prefixes come on top
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "wd": "http://www.wikidata.org/entity/",
    "wdt": "http://www.wikidata.org/prop/direct/",
    "schema": "http://schema.org/",
    "ddis": "http://ddis.ch/atai/",
}
VOCABULARIES = tuple(STANDARD_PREFIXES[p] for p in ("rdf", "rdfs", "xsd", "owl"))  # never entity namespaces
QUERY_FORMS = ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE")
UPDATE_FORMS = ("INSERT", "DELETE", "LOAD", "CLEAR", "DROP", "CREATE", "ADD", "MOVE", "COPY", "WITH")
XSD_STRING = STANDARD_PREFIXES["xsd"] + "string"

# --------------------------------------------------------------------------- tokens

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>\#[^\r\n]*)
  | (?P<string>\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"|'''(?:[^'\\]|\\.|'(?!''))*'''|"(?:[^"\\\r\n]|\\.)*"|'(?:[^'\\\r\n]|\\.)*')
  | (?P<open_string>["'])
  | (?P<iri><[^<>"{}|^`\\\x00-\x20]*>)
  | (?P<var>[?$][^\W]+)
  | (?P<langtag>@[A-Za-z]+(?:-[A-Za-z0-9]+)*)
  | (?P<bnode>_:[^\W][\w.-]*)
  | (?P<pname>(?:[^\W\d_][\w.-]*)?:(?:(?:[\w:%-]|\\.)(?:(?:[\w.:%-]|\\.)*(?:[\w:%-]|\\.))?)?)
  | (?P<number>[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?)
  | (?P<word>[^\W\d][\w]*)
  | (?P<punct>\^\^|&&|\|\||!=|<=|>=|[{}()\[\];,.=!<>*/+|^\-])
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)
_ESCAPES = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
_UNICODE_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
_OPENERS = {"{": "}", "(": ")", "[": "]"}


@dataclass(frozen=True)
class Token:
    kind: str  # ws, comment, string, open_string, iri, var, langtag, bnode, pname, number, word, punct, other
    text: str
    start: int

    @property
    def keyword(self) -> str:
        return self.text.upper() if self.kind == "word" else ""


def lex(text: str) -> list[Token]:
    """Every token of `text`, whitespace and comments included (so the tokens join back to the text)."""
    return [Token(m.lastgroup, m.group(), m.start()) for m in _TOKEN.finditer(text)]


def significant(tokens: list[Token]) -> list[Token]:
    return [t for t in tokens if t.kind not in ("ws", "comment")]


def expand_codepoint_escapes(text: str) -> str:
    """SPARQL applies \\uXXXX and \\UXXXXXXXX escapes to the whole query before parsing it: so must every check."""
    return _UNICODE_ESCAPE.sub(lambda m: chr(int(m[1] or m[2], 16)) if int(m[1] or m[2], 16) <= 0x10FFFF else m[0], text)


def string_value(token: str) -> str:
    """The value of a SPARQL string token ('...', "...", '''...''', \"\"\"...\"\"\")."""
    quote = 3 if token[:3] in ('"""', "'''") else 1
    body = token[quote:-quote]
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m[1], m[0]), body, flags=re.DOTALL)


def position(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of `offset` in `text`."""
    before = text[:offset]
    line = before.count("\n") + 1
    return line, offset - (before.rfind("\n") + 1) + 1


# --------------------------------------------------------------------------- detection


@dataclass(frozen=True)
class SparqlMessage:
    """A chat message that is a SPARQL query (or update), unwrapped from fences and quotes."""

    query: str
    form: str  # SELECT | ASK | CONSTRUCT | DESCRIBE, an update keyword (INSERT ...), or "" when only a prologue was found

    @property
    def is_update(self) -> bool:
        return self.form in UPDATE_FORMS


_FENCE = re.compile(r"(?:```|~~~)[ \t]*([A-Za-z0-9_+-]*)[ \t]*\r?\n(.*?)(?:```|~~~)", re.DOTALL)
_QUOTE_PAIRS = {'"""': '"""', "'''": "'''", '"': '"', "'": "'", "`": "`", "\u201c": "\u201d", "\u201e": "\u201c",
                "\u2018": "\u2019", "\u00ab": "\u00bb"}


def _unwrapped(text: str) -> list[str]:
    """The ways `text` may hold a query: as it is, inside a code fence (with any lead-in), or inside quotes."""
    text = text.strip()
    found = [text]
    found += [m.group(2).strip() for m in _FENCE.finditer(text)]
    for opening, closing in _QUOTE_PAIRS.items():
        if len(text) > 2 * len(opening) and text.startswith(opening) and text.endswith(closing):
            found.append(text[len(opening) : -len(closing)].strip())
            break
    return found


def _form_after_prologue(tokens: list[Token]) -> tuple[str, int, bool]:
    """(the first keyword after PREFIX/BASE lines, its index, whether there was a prologue)."""
    i, prologue = 0, False
    while i < len(tokens):
        keyword = tokens[i].keyword
        if keyword == "PREFIX" and i + 2 < len(tokens) and tokens[i + 1].kind == "pname" and tokens[i + 1].text.endswith(":") \
                and tokens[i + 2].kind == "iri":
            i, prologue = i + 3, True
        elif keyword == "BASE" and i + 1 < len(tokens) and tokens[i + 1].kind == "iri":
            i, prologue = i + 2, True
        else:
            break
    return (tokens[i].keyword if i < len(tokens) else ""), i, prologue


def _shaped_like_sparql(form: str, rest: list[Token]) -> bool:
    """Whether the tokens after a bare query or update keyword are SPARQL syntax, not English."""
    if not rest:
        return False
    first = rest[0]
    nxt = rest[1] if len(rest) > 1 else None
    if form == "SELECT":
        return first.kind == "var" or first.text in ("*", "(") or (first.keyword in ("DISTINCT", "REDUCED") and nxt is not None
                                                                    and (nxt.kind == "var" or nxt.text in ("*", "(")))
    if form in ("ASK", "CONSTRUCT"):
        return first.text == "{" or (first.keyword in ("WHERE", "FROM") and nxt is not None and (nxt.text == "{" or nxt.kind == "iri"))
    if form == "DESCRIBE":
        return first.kind in ("var", "iri", "pname") or first.text == "*"
    if form in ("INSERT", "DELETE"):
        return first.text == "{" or (first.keyword in ("DATA", "WHERE") and nxt is not None and nxt.text == "{")
    if form == "WITH":
        return first.kind == "iri"
    words = [t.keyword for t in rest]
    if words and words[0] == "SILENT":
        rest, words = rest[1:], words[1:]
    if not rest:
        return False
    if form == "LOAD":
        return rest[0].kind == "iri"
    if form in ("CLEAR", "DROP"):  # the whole message is the operation: "DROP ALL", not "drop all the films"
        target = [t for t in rest if t.text != ";"]
        return (len(target) == 1 and words[0] in ("DEFAULT", "NAMED", "ALL")) or (
            len(target) == 2 and words[0] == "GRAPH" and target[1].kind == "iri")
    if form == "CREATE":
        return words[0] == "GRAPH" and len(rest) > 1 and rest[1].kind == "iri"
    # ADD, MOVE, COPY: ( DEFAULT | GRAPH? iri ) TO ...
    return (words[0] in ("DEFAULT", "GRAPH") or rest[0].kind == "iri") and "TO" in words


def _without_controls(text: str) -> str:
    """Control characters as spaces, except the line breaks and tabs a query is laid out with."""
    return "".join(c if c in "\n\r\t" or unicodedata.category(c)[0] != "C" else " " for c in text)


def sparql_message(text: str) -> SparqlMessage | None:
    """The SPARQL query (or update) `text` is, or None for any other message."""
    for candidate in _unwrapped(_without_controls(text or "")):
        tokens = significant(lex(expand_codepoint_escapes(candidate)))
        if not tokens:
            continue
        form, at, prologue = _form_after_prologue(tokens)
        if form not in QUERY_FORMS + UPDATE_FORMS:
            form = ""
        if prologue or (form and _shaped_like_sparql(form, tokens[at + 1 :])):
            return SparqlMessage(candidate, form)
    return None


# --------------------------------------------------------------------------- checking


class QueryRefused(MoviebotError):
    """A SPARQL message the bot does not run; `user_message` says why, in a sentence for the chat."""

    def __init__(self, reason: str, user_message: str):
        super().__init__(reason)
        self.reason = reason  # syntax | update | service | dataset | prefix | unsupported
        self.user_message = user_message


@dataclass(frozen=True)
class CheckedQuery:
    """A query that parsed and may run: its text, what to send to the store, and the terms it uses."""

    text: str  # as the user wrote it
    runnable: str  # with PREFIX lines for the pre-declared prefixes it does not declare itself
    form: str  # SELECT | ASK | CONSTRUCT | DESCRIBE
    prefixes: dict[str, str]  # the pre-declared prefixes and the query's own, for abbreviating results
    iris: tuple[str, ...] = ()  # constant IRIs, in order of appearance
    literals: tuple[tuple[str, str, str], ...] = ()  # string literals as (value, language, datatype)


@cache
def _rdflib_sparql():
    """rdflib's SPARQL parser, imported on the first chat query (it builds its grammar on import)."""
    from pyparsing import ParseException
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    return parseQuery, translateQuery, ParseException


def _quoted(token: str) -> str:
    return f"\u201c{token[:40]}{'…' if len(token) > 40 else ''}\u201d"


def _syntax_error(text: str, offset: int, what: str) -> QueryRefused:
    line, column = position(text, offset)
    return QueryRefused("syntax", f"Your SPARQL query has a syntax error at line {line}, column {column}: {what}.")


def _token_at(text: str, offset: int) -> str:
    for token in lex(text[offset:]):
        if token.kind != "ws":
            return token.text if token.kind != "comment" else "#"
    return ""


def bracket_problem(text: str, tokens: list[Token]) -> QueryRefused | None:
    """An unclosed string, or a bracket that is never closed or closes the wrong one: located exactly."""
    stack: list[Token] = []
    for token in tokens:
        if token.kind == "open_string":
            return _syntax_error(text, token.start, f"the string starting with {token.text} is never closed")
        if token.kind != "punct":
            continue
        if token.text in _OPENERS:
            stack.append(token)
        elif token.text in _OPENERS.values():
            if not stack:
                return _syntax_error(text, token.start, f"{_quoted(token.text)} closes nothing")
            opener = stack.pop()
            if _OPENERS[opener.text] != token.text:
                line, column = position(text, opener.start)
                return _syntax_error(text, token.start, f"{_quoted(token.text)} does not match the {_quoted(opener.text)} "
                                                        f"opened at line {line}, column {column}")
    if stack:
        opener = stack[-1]
        return _syntax_error(text, opener.start, f"this {_quoted(opener.text)} is never closed")
    return None


def _expanded_offset(text: str, expanded_offset: int) -> int:
    """pyparsing reports offsets in the query with tabs expanded; map one back to the query as written."""
    if "\t" not in text:
        return expanded_offset
    seen = 0
    for index, line in enumerate(text.splitlines(keepends=True)):
        width = len(line.expandtabs())
        if expanded_offset < seen + width:
            column, offset = expanded_offset - seen, 0
            while offset < len(line) and len(line[: offset + 1].expandtabs()) <= column:
                offset += 1
            return sum(len(line) for line in text.splitlines(keepends=True)[:index]) + offset
        seen += width
    return len(text)


def _walk(node, seen: set[int] | None = None):
    """Every rdflib term inside a parse tree or algebra (CompValues, lists, dicts, property paths)."""
    from rdflib.term import Node

    seen = set() if seen is None else seen
    if isinstance(node, Node):
        yield node
        return
    if isinstance(node, (str, bytes, int, float, bool)) or node is None or id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, dict):
        for key, value in node.items():
            if key != "_vars":
                yield from _walk(key, seen)
                yield from _walk(value, seen)
    elif isinstance(node, (list, tuple, set, frozenset)):
        for item in node:
            yield from _walk(item, seen)
    elif hasattr(node, "__dict__"):  # rdflib.paths: SequencePath(args), InvPath(arg), ...
        for value in vars(node).values():
            yield from _walk(value, seen)
    elif hasattr(node, "asList"):  # pyparsing ParseResults
        for item in node:
            yield from _walk(item, seen)


def _names(node, seen: set[int] | None = None):
    """The names of every CompValue in an rdflib parse tree (SelectQuery, ServiceGraphPattern, DatasetClause, ...)."""
    seen = set() if seen is None else seen
    if id(node) in seen or isinstance(node, (str, bytes)):
        return
    seen.add(id(node))
    name = getattr(node, "name", None)
    if isinstance(name, str) and isinstance(node, dict):
        yield name
    if isinstance(node, dict):
        for value in node.values():
            yield from _names(value, seen)
    elif isinstance(node, (list, tuple)) or hasattr(node, "asList"):
        for item in node:
            yield from _names(item, seen)


def _prefix_lines(prefixes: dict[str, str], declared: set[str]) -> str:
    from rdflib.term import URIRef

    return "".join(f"PREFIX {name}: {URIRef(ns).n3()}\n" for name, ns in prefixes.items() if name not in declared)


def check_query(message: SparqlMessage, bundle_prefixes: dict[str, str] | None = None) -> CheckedQuery:
    """Parse and check a chat query; QueryRefused (with a sentence for the user) for anything not to run."""
    text = message.query
    if message.is_update:
        raise QueryRefused("update", f"I only run SPARQL queries that read the knowledge graph (SELECT, ASK, CONSTRUCT or "
                                     f"DESCRIBE). {message.form} would change it, so I do not run it.")
    expanded = expand_codepoint_escapes(text)
    tokens = significant(lex(expanded))
    if any(t.keyword == "SERVICE" for t in tokens):
        raise QueryRefused("service", "I do not run SPARQL queries with SERVICE: a chat message cannot make me call "
                                      "other endpoints. Please query my own knowledge graph only.")
    problem = bracket_problem(expanded, tokens) if expanded == text else None
    if problem is not None:
        raise problem
    parse_query, translate_query, parse_exception = _rdflib_sparql()
    try:
        tree = parse_query(text)
    except parse_exception as exc:
        offset = min(_expanded_offset(text, exc.loc), len(text)) if expanded == text else None
        if offset is None:  # positions in a query with \\u escapes refer to the expanded text
            offset, text_for_position = exc.loc, expanded
        else:
            text_for_position = text
        token = _token_at(text_for_position, offset)
        what = f"it cannot be parsed from {_quoted(token)} on" if token else "the query ends too early"
        raise _syntax_error(text_for_position, offset, what) from exc
    except Exception as exc:  # noqa: BLE001 - rdflib raises plain exceptions for some malformed terms
        raise QueryRefused("syntax", f"Your SPARQL query could not be read: {str(exc)[:200]}.") from exc
    names = set(_names(tree))
    if "ServiceGraphPattern" in names:
        raise QueryRefused("service", "I do not run SPARQL queries with SERVICE: a chat message cannot make me call "
                                      "other endpoints. Please query my own knowledge graph only.")
    if "DatasetClause" in names:
        raise QueryRefused("dataset", "I do not run SPARQL queries with FROM or FROM NAMED: my knowledge graph is the "
                                      "one default graph. Leave out the FROM lines and I will run it.")
    form = next((f for f in QUERY_FORMS if f"{f.capitalize()}Query" in names), "")
    if not form:
        raise QueryRefused("unsupported", "That SPARQL message has no query in it: write SELECT, ASK, CONSTRUCT or DESCRIBE.")
    prefixes = {**STANDARD_PREFIXES, **(bundle_prefixes or {})}
    declared = {decl.get("prefix") or "": str(decl["iri"]) for decl in tree[0] if getattr(decl, "name", "") == "PrefixDecl"}
    try:
        algebra = translate_query(tree, initNs=prefixes)
    except Exception as exc:  # noqa: BLE001 - rdflib raises a bare Exception for an unknown prefix
        unknown = re.match(r"Unknown namespace prefix : (.*)$", str(exc))
        if unknown:
            known = ", ".join(f"{p}:" for p in prefixes)
            raise QueryRefused("prefix", f"The prefix {unknown[1]}: is not declared. Add a line \"PREFIX {unknown[1]}: <...>\" "
                                         f"before the query; I know these prefixes without one: {known}.") from exc
        raise QueryRefused("unsupported", f"I could not interpret that SPARQL query: {str(exc)[:200]}.") from exc
    from rdflib.term import Literal, URIRef

    iris, literals = [], []
    for term in _walk(algebra.algebra):
        if isinstance(term, URIRef) and str(term) not in iris:
            iris.append(str(term))
        elif isinstance(term, Literal) and (term.language or term.datatype in (None, URIRef(XSD_STRING))):
            entry = (str(term), term.language or "", str(term.datatype or ""))
            if entry not in literals:
                literals.append(entry)
    return CheckedQuery(
        text=text,
        runnable=_prefix_lines(prefixes, set(declared)) + text,
        form=form,
        prefixes={**prefixes, **declared},
        iris=tuple(iris),
        literals=tuple(literals),
    )


# --------------------------------------------------------------------------- rewriting


def rewritten(checked: CheckedQuery, literals: dict[tuple[str, str], str], iris: dict[str, str]) -> str:
    """The user's query with whole tokens replaced: string literals (value, language) -> a rendered literal,
    IRIs -> a rendered IRI. Prologue lines, comments and the rest of the text stay as they are."""
    tokens = lex(checked.text)
    out, skip = [], 0
    in_prologue_decl = 0
    for index, token in enumerate(tokens):
        if skip:
            skip -= 1
            continue
        if token.keyword in ("PREFIX", "BASE"):
            in_prologue_decl = 3 if token.keyword == "PREFIX" else 2
        following = [t for t in tokens[index + 1 :] if t.kind not in ("ws", "comment")][:1]
        if token.kind == "string" and not (following and following[0].text == "^^"):
            tagged = following and following[0].kind == "langtag"
            key = (string_value(token.text), following[0].text[1:] if tagged else "")
            if key in literals:
                out.append(literals[key])
                if tagged:  # drop everything up to and including the language tag
                    skip = next(i for i, t in enumerate(tokens[index + 1 :], 1) if t.kind == "langtag")
                continue
        elif token.kind in ("iri", "pname") and not in_prologue_decl:
            iri = _resolve(token, checked.prefixes)
            if iri in iris:
                out.append(iris[iri])
                continue
        if in_prologue_decl and token.kind not in ("ws", "comment"):
            in_prologue_decl -= 1
        out.append(token.text)
    return "".join(out)


def _resolve(token: Token, prefixes: dict[str, str]) -> str | None:
    if token.kind == "iri":
        return token.text[1:-1]
    prefix, _, local = token.text.partition(":")
    namespace = prefixes.get(prefix)
    return None if namespace is None else namespace + re.sub(r"\\(.)", r"\1", local)
