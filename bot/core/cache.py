"""Build caches keyed by the hash of their inputs, with progress bars.

A cache folder is named after the hash of what it was built from, so changed inputs
lead to a new folder and a rebuild, never to silently reused stale artefacts.
"""

from __future__ import annotations

import ast
import gc
import hashlib
import importlib.util
import json
import logging
import os
import pickle
import shutil
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import TypeVar

from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

_CHUNK = 1 << 20
T = TypeVar("T")
log = logging.getLogger(__name__)


def file_digest(path: Path, memo_dir: Path | None = None) -> str:
    """sha256 of a file; memoised by (path, size, mtime) so reopening a big KG does not rehash it."""
    stat = path.stat()
    memo_key = hashlib.sha256(f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:32]
    memo = memo_dir / "digests" / memo_key if memo_dir else None
    if memo is not None and memo.is_file():
        return memo.read_text().strip()
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    value = digest.hexdigest()
    if memo is not None:
        memo.parent.mkdir(parents=True, exist_ok=True)
        memo.write_text(value)
    return value


def combine(*parts: str) -> str:
    """One hash for several input hashes and settings."""
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def code_digest(*modules: ModuleType | str) -> str:
    """A hash of what the code of `modules` does: their syntax trees without docstrings.

    Part of the cache key of everything a module builds (label index, classifier, NER tagger,
    embeddings, crowd data), so changing the code, its templates or its constants rebuilds the
    artefact, while comments, docstrings and formatting do not. No hand-bumped versions."""
    parts = []
    for module in modules:
        name = module if isinstance(module, str) else module.__name__
        digest = _CODE_DIGESTS.get(name)
        if digest is None:
            # a module given by name is read without being imported (the NER tagger's module imports torch)
            origin = importlib.util.find_spec(name).origin if isinstance(module, str) else module.__file__
            source = Path(origin).read_bytes()
            memo = _CODE_MEMO / hashlib.sha256(source).hexdigest()[:32] if _CODE_MEMO is not None else None
            if memo is not None and memo.is_file():
                digest = memo.read_text().strip()
            else:
                digest = _syntax_digest(source)
                if memo is not None:
                    memo.parent.mkdir(parents=True, exist_ok=True)
                    memo.write_text(digest)
            _CODE_DIGESTS[name] = digest
        parts.append(f"{name}:{digest}")
    return combine(*parts)


def _syntax_digest(source: bytes) -> str:
    tree = ast.parse(source.decode("utf-8"))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()


def keep_code_digests(cache_dir: Path) -> None:
    """Keep code digests under `cache_dir`, keyed by the hash of each module's bytes: a later process reads a module's
    digest instead of parsing it again (parsing the ~40 modules of the understanding's cache keys took 0.3 s of every
    `moviebot ask`). A changed file has other bytes, so it is parsed afresh."""
    global _CODE_MEMO
    _CODE_MEMO = cache_dir / "digests" / "code"


_CODE_DIGESTS: dict[str, str] = {}
_CODE_MEMO: Path | None = None


def progress(transient: bool = False) -> Progress:
    """A rich progress bar that prints to stderr (stdout stays clean for answers)."""
    from rich.console import Console

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.percentage:>3.0f}%"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=transient,
    )


def byte_progress() -> Progress:
    from rich.console import Console

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
    )


@contextmanager
def building(target: Path):
    """Build into a temporary sibling folder and move it into place only when complete."""
    tmp = target.with_name(target.name + f".tmp{os.getpid()}")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if target.exists():
        shutil.rmtree(target)
    tmp.rename(target)


@contextmanager
def gc_paused():
    """No garbage collection while a big artefact is unpickled: millions of new containers would set off
    collection after collection over the same growing heap (the 2M-triple label index loads in half the time).

    Afterwards the heap is frozen (`gc.freeze`): the artefact lives as long as the process, and every
    later full collection would otherwise walk its lists of millions of strings again (on a 20M-triple
    KG that cost 0.4 s of the cold start). Frozen objects are still freed when their last reference goes."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def write_manifest(folder: Path, **info) -> None:
    (folder / "manifest.json").write_text(json.dumps(info, indent=2, sort_keys=True, default=str))


def read_manifest(folder: Path) -> dict:
    try:
        return json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError):
        return {}


def pickled(folder: Path, name: str, key: str, build: Callable[[], T], rebuild: bool = False) -> T:
    """`build()`'s result, kept in `folder` as a pickle named by `key` (a hash of its inputs) and
    reused while the key matches; written atomically, and rebuilt when unreadable."""
    path = Path(folder) / f"{name}-{key[:20]}.pkl"
    if path.is_file() and not rebuild:
        try:
            with open(path, "rb") as fh:
                return pickle.load(fh)
        except Exception as exc:  # noqa: BLE001 - a damaged or outdated pickle is rebuilt
            log.warning("rebuilding %s: %s", path, exc)
    value = build()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    with open(tmp, "wb") as fh:
        pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
    tmp.replace(path)
    return value
