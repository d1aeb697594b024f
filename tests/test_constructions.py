"""The construction registry: one module, one declaration and one data file per question shape."""

from __future__ import annotations

from pathlib import Path

from bot.understanding import constructions
from bot.understanding.constructions import REGISTRY
from bot.understanding.constructions.base import construction_data

FOLDER = Path(constructions.__file__).parent


def test_every_construction_module_is_registered_under_its_own_name():
    modules = {p.stem for p in FOLDER.glob("*.py")} - {"__init__", "base", "clause"}
    assert set(REGISTRY) == modules
    for name, construction in REGISTRY.items():
        assert construction.name == name and construction.asks and construction.examples


def test_every_data_file_belongs_to_a_construction_and_parses():
    for path in FOLDER.glob("*.toml"):
        assert path.stem in REGISTRY, path.name
        assert construction_data(path.stem), path.name
