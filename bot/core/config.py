"""One configuration object, read from an optional TOML file and MOVIEBOT_* environment variables.

Precedence: explicit overrides (CLI flags) > environment > TOML file > defaults.
A feature's settings share its prefix (`ner_epochs`, `llm_threads`); in the TOML file they
may also be written as a section (`[ner]` with `epochs = 2`). `features` chooses which
optional features load (`MOVIEBOT_FEATURES=ner,crowd`; see bot/features.py).
"""

from __future__ import annotations

import os
import tomllib
import typing
from dataclasses import dataclass, field, replace
from pathlib import Path

from bot.core.errors import ConfigError
from bot.resources import demo_kg

DEFAULT_KG = demo_kg()
ALL_FEATURES = ("ner", "crowd", "embeddings", "recommend", "images", "phrasing")  # in load order
# TOML sections whose keys are written without their setting prefix
SECTIONS = {"ner": "ner", "llm": "llm", "phrasing": "llm", "embeddings": "embedding", "embedding": "embedding",
            "recommend": "recommend", "crowd": "crowd", "images": "images", "chat": "chat", "sparql": "sparql"}



@dataclass(frozen=True)
class Settings:
    """Every tunable of moviebot in one place."""

    kg: str = str(DEFAULT_KG)  # bundle folder or SPARQL endpoint URL
    schema: str = str(DEFAULT_KG)  # bundle whose schema describes a remote endpoint
    cache_dir: str = str(Path.home() / ".cache" / "moviebot")
    kg_timeout_s: float = 30.0  # a query to a remote SPARQL endpoint that takes longer fails (the user is told the KG is unreachable)
    kg_scan_timeout_s: float = 1800.0  # a build-time read of a whole relation from a remote endpoint (labels, embeddings)
    kg_retries: int = 3  # attempts to connect to a remote endpoint again (exponential backoff) before a query fails
    kg_backoff_s: float = 0.5  # the first wait before such a retry (then 1 s, 2 s, ...)
    virtuoso_password: str = ""  # DBA password of `moviebot kg serve-virtuoso` (else generated, kept in its folder)
    fuzzy_threshold: float = 90.0  # rapidfuzz score (0-100) an entity label must reach
    max_answers: int = 25  # answers listed in a reply
    torch_threads: int = 1
    embedding_dim: int = 128  # TransE vector size
    embedding_epochs: int = 12  # TransE passes over the triples (about 5 s CPU each on MetaQA, 1 thread)
    embedding_max_samples: int = 3_000_000  # caps epochs x triples on big graphs (a 2M-triple KG gets 2 epochs)
    embedding_seed: int = 0
    embedding_max_missing: float = 0.01  # share of graph entities shipped embeddings may lack
    recommend_count: int = 5  # films per recommendation
    recommend_diversity: float = 0.3  # MMR weight of novelty against closeness (0 = pure nearest neighbours)
    recommend_ranking: str = "combined"  # embedding | overlap | combined: how picks are ranked (bench/recommend.py --loo compares them)
    features: tuple[str, ...] = ALL_FEATURES  # the optional features to load (bot/features.py)
    ner_model: str = ""  # path to a Flair model file; empty = the one trained at build time
    ner_backbone: str = "auto"  # minilm | chars | auto (minilm when its package is installed)
    ner_sentences: int = 1200  # generated training sentences (fewer for small KGs)
    ner_epochs: int = 2
    ner_layers: int = 3  # MiniLM layers kept for the tagger (of 6): half the latency, same spans on MetaQA
    llm_model: str = ""  # path to a GGUF file; empty = the embedded default
    llm_threads: int = 0  # 0 = per generation, the cores idle at that moment (at most 4), else 1; or a fixed count
    llm_context: int = 2048
    llm_max_tokens: int = 96
    llm_time_budget_s: float = 2.0
    llm_wait_s: float = 0.0  # how long an answer waits for a model busy with another one before it keeps its template sentence
    llm_temperature: float = 0.0  # 0 = deterministic wording
    llm_chat_format: str = ""  # a llama-cpp-python chat format ("chatml", "gemma"); empty = the GGUF's own chat template
    llm_grammar: bool = True  # constrain decoding with a GBNF grammar built per answer (off: the guard alone judges the output)
    images_dir: str = ""  # folder with the image files named in images.json
    images_index: str = ""  # a MovieNet images.json to use instead of the bundle's `images`
    crowd_min_work_seconds: float = 5.0  # crowd answers given faster than this are discarded
    crowd_min_approval: float = 50.0  # crowd answers from workers below this lifetime approval (%) are discarded
    host: str = "127.0.0.1"
    port: int = 8080
    access_token: str = ""  # required by the web chatroom when not bound to loopback
    data_dir: str = str(Path.home() / ".local" / "share" / "moviebot")  # chat history, sync tokens
    memory_db: str = ""  # SQLite file of the rooms' conversation memory, shared by bot replicas ("" = in this process only)
    chat_workers: int = 2  # threads answering chat messages (one room is answered one message at a time)
    chat_bot_name: str = "moviebot"  # the bot's user name in the web chatroom
    chat_accounts: str = ""  # web chatroom accounts "name:password,name2:password2" (besides the access token)
    chat_bot_accounts: str = ""  # other bots' accounts in the web chatroom (e.g. a student's bot), "name:password,..."
    chat_room_minutes: int = 0  # web chatroom rooms close by themselves after this long (Speakeasy: 10); 0 = when closed
    speakeasy_url: str = ""  # e.g. https://speakeasy.example.org (the `moviebot speakeasy` connector)
    speakeasy_user: str = ""
    speakeasy_password: str = ""
    matrix_homeserver: str = ""  # e.g. https://matrix.example.org (the `moviebot matrix` connector)
    matrix_user: str = ""  # full user id, e.g. @moviebot:example.org
    matrix_password: str = ""  # or matrix_access_token
    matrix_access_token: str = ""
    matrix_replica: str = ""  # this process's name among replicas of one account: rooms are partitioned between the live ones (needs memory_db)
    matrix_replica_lease_s: float = 5.0  # a replica not heard from for this long is dead; its rooms and unanswered questions move
    sparql_in_chat: bool = True  # run SPARQL queries typed into the chat (read-only); off: such a message gets a short explanation
    sparql_time_limit_s: float = 5.0  # a chat query still running after this long is stopped
    sparql_max_rows: int = 50  # results shown per chat query
    sparql_count_limit: int = 10_000  # results counted (within the time limit) for a chat query's total
    sparql_rate_per_minute: int = 10  # chat queries per person and minute when people beyond this machine can chat (0 = no limit)
    sparql_memory_mb: int = 2048  # address space of a query worker process; a query needing more is stopped
    extra: dict = field(default_factory=dict)  # sections for connectors (speakeasy, matrix, ...)

    def with_overrides(self, **overrides) -> Settings:
        """Return a copy with the non-None overrides applied."""
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})

    def without(self, *features: str) -> Settings:
        """A copy with `features` turned off (e.g. `without("phrasing")` for --no-llm)."""
        return replace(self, features=tuple(f for f in self.features if f not in features))

    def uses(self, feature: str) -> bool:
        return feature in self.features


def _coerce(name: str, raw, target_type: type):
    try:
        if target_type is bool:
            if isinstance(raw, bool):
                return raw
            return str(raw).strip().lower() in {"1", "true", "yes", "on"}
        if target_type is dict:
            if not isinstance(raw, dict):
                raise TypeError("expected a table")
            return raw
        if target_type == tuple[str, ...]:
            items = raw.split(",") if isinstance(raw, str) else raw
            if not isinstance(items, (list, tuple)) or not all(isinstance(i, str) for i in items):
                raise TypeError("expected a list of names")
            return tuple(i.strip() for i in items if i.strip())
        return target_type(raw)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"setting {name!r}: cannot use {raw!r} ({exc})") from exc


def load_settings(path: str | Path | None = None, env: dict[str, str] | None = None) -> Settings:
    """Read settings from `path` (TOML, optional) and the environment (MOVIEBOT_<NAME>)."""
    env = os.environ if env is None else env
    values: dict = {}
    types = typing.get_type_hints(Settings)
    config_path = path or env.get("MOVIEBOT_CONFIG")
    if config_path:
        p = Path(config_path)
        if not p.is_file():
            raise ConfigError(f"config file {p} does not exist")
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config file {p}: {exc}") from exc
        section = data.get("moviebot", data)
        extra = {}
        for key, raw in section.items():
            if key in types and key != "extra":
                values[key] = _coerce(key, raw, types[key])
            elif isinstance(raw, dict) and key in SECTIONS:
                for inner, value in raw.items():
                    name = f"{SECTIONS[key]}_{inner}"
                    if name not in types:
                        raise ConfigError(f"config file {p}: unknown setting {inner!r} in [{key}]")
                    values[name] = _coerce(name, value, types[name])
            elif isinstance(raw, dict):
                extra[key] = raw
            else:
                raise ConfigError(f"config file {p}: unknown setting {key!r}")
        values["extra"] = extra
    for name, typ in types.items():
        raw = env.get(f"MOVIEBOT_{name.upper()}")
        if raw is not None and name != "extra":
            values[name] = _coerce(name, raw, typ)
    return Settings(**values)
