"""The construction registry: one module, one declaration and one data file per question shape."""

from __future__ import annotations

from pathlib import Path

from bot.understanding import constructions
from bot.understanding.constructions.base import construction_data
from bot.understanding.registry import REGISTRY

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


def test_every_form_a_construction_declares_has_a_typed_result_and_a_sentence():
    from bot.core.results import RESULTS
    from bot.core.terms import Form
    from bot.generation.composed import RENDERERS

    declared = {form for construction in REGISTRY.values() for form in construction.forms}
    assert declared == set(Form), set(Form) - declared  # no form nobody reads, none read that is not declared
    assert set(RESULTS) == set(Form) and set(RENDERERS) == set(Form)


def test_the_compositional_constructions_are_tried_in_order_and_each_can_read():
    from bot.understanding import compositions

    names = [module.CONSTRUCTION.name for module in compositions.ORDER]
    assert names == ["shared", "collaboration", "count", "comparison", "verification", "superlative", "conditions"]
    assert all(callable(module.cued) and callable(module.read) for module in compositions.ORDER)
