"""Build caches keyed by the hash of their inputs, with progress bars.

A cache folder is named after the hash of what it was built from, so changed inputs
lead to a new folder and a rebuild, never to silently reused stale artefacts.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from contextlib import contextmanager
from pathlib import Path

from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

_CHUNK = 1 << 20


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


def write_manifest(folder: Path, **info) -> None:
    (folder / "manifest.json").write_text(json.dumps(info, indent=2, sort_keys=True, default=str))


def read_manifest(folder: Path) -> dict:
    try:
        return json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError):
        return {}
