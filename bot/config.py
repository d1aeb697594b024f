"""One configuration object, read from an optional TOML file and MOVIEBOT_* environment variables.

Precedence: explicit overrides (CLI flags) > environment > TOML file > defaults.
"""

from __future__ import annotations

import os
import tomllib
import typing
from dataclasses import dataclass, field, replace
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_KG = REPO_ROOT / "kg"


class ConfigError(ValueError):
    """A configuration value is missing or malformed."""


@dataclass(frozen=True)
class Settings:
    """Every tunable of moviebot in one place."""

    kg: str = str(DEFAULT_KG)  # bundle folder or SPARQL endpoint URL
    schema: str = str(DEFAULT_KG)  # bundle whose schema describes a remote endpoint
    cache_dir: str = str(Path.home() / ".cache" / "moviebot")
    fuzzy_threshold: float = 90.0  # rapidfuzz score (0-100) an entity label must reach
    max_answers: int = 25  # answers listed in a reply
    torch_threads: int = 1
    ner_model: str = ""  # path to a Flair model file; empty = the one trained at build time
    llm: bool = True  # phrase sentences with the local GGUF model when one is available
    llm_model: str = ""  # path to a GGUF file; empty = the embedded default
    llm_threads: int = 1
    llm_context: int = 2048
    llm_max_tokens: int = 96
    llm_time_budget_s: float = 2.0
    images_dir: str = ""  # folder with the image files named in images.json
    host: str = "127.0.0.1"
    port: int = 8080
    access_token: str = ""  # required by the web chatroom when not bound to loopback
    data_dir: str = str(Path.home() / ".local" / "share" / "moviebot")  # chat history, sync tokens
    extra: dict = field(default_factory=dict)  # sections for connectors (speakeasy, matrix, ...)

    def with_overrides(self, **overrides) -> "Settings":
        """Return a copy with the non-None overrides applied."""
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})


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
