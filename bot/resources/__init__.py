"""Where the data that ships with moviebot lives: SPARQL templates, the demo KG, its crowd file and embeddings.

The top-level folders `templates/`, `kg/`, `crowd/` and `embeddings/` of the source tree are
installed as the packages `bot.resources.templates`, `.kg`, `.crowd` and `.embeddings` (see
`[tool.setuptools.package-dir]` in pyproject.toml), so an editable install reads the folders
in place and a built wheel carries them. They are found through importlib.resources, never
through paths relative to a checkout.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def _folder(name: str) -> Path:
    return Path(str(files(f"{__name__}.{name}")))


def templates_dir() -> Path:
    """The JSON SPARQL templates."""
    return _folder("templates")


def demo_kg() -> Path:
    """The bundled demo KG bundle (its bundle.toml refers to ../crowd and ../embeddings)."""
    return _folder("kg")


def demo_embeddings() -> Path:
    """The demo KG's TransE embeddings in the course layout."""
    return _folder("embeddings")
