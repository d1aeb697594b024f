"""Bundle loading validates everything and reports precise errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.kg.bundle import BundleError, load_bundle

from conftest import write_mini_bundle


@pytest.fixture()
def bundle_dir(tmp_path) -> Path:
    return write_mini_bundle(tmp_path / "b")


def edit(folder: Path, old: str, new: str) -> None:
    path = folder / "bundle.toml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_valid_bundle_loads_with_builtin_phrasings(bundle_dir):
    bundle = load_bundle(bundle_dir)
    director = bundle.relations["director"]
    assert director.property == "http://www.wikidata.org/prop/direct/P57"
    assert director.kind == "entity" and director.value_class == "person"
    assert any("{film}" in a for a in director.asks)
    assert bundle.film_classes == ("http://www.wikidata.org/entity/Q11424",)
    assert bundle.date_relation.name == "publication_date"


@pytest.mark.parametrize(
    "old,new,message",
    [
        ('graph = ["graph.ttl"]', 'graph = ["missing.ttl"]', "missing.ttl does not exist"),
        ('graph = ["graph.ttl"]', 'graph = ["graph.csv"]', "unknown RDF extension"),
        ('property = "wdt:P57"', 'property = "nope:P57"', "declared prefix"),
        ('property = "wdt:P57"', 'property = "http://bad iri/P57"', "bad IRI"),
        ('[relations.director]\nproperty = "wdt:P57"\nvalue_class = "person"', '[relations.director]\nproperty = "wdt:P57"\nvalue_class = "studio"', "not a declared class group"),
        ('[relations.director]\nproperty = "wdt:P57"', '[relations.director]\nproperty = "wdt:P57"\ndirection = "sideways"', "direction must be one of"),
        ('kind = "number"', 'kind = "money"', "kind must be one of"),
        ('person = ["wd:Q5"]', "", "'person' class group is required"),
        ('[relations.director]\nproperty = "wdt:P57"', '[relations.director]\nproperty = "wdt:P57"\nasks = ["who directed it"]', "lacks {film}"),
        ('[relations.director]\nproperty = "wdt:P57"', '[relations.director]\nproperty = "wdt:P57"\nfavourite = 1', "unknown key"),
    ],
)
def test_bad_bundles_are_reported_precisely(bundle_dir, old, new, message):
    edit(bundle_dir, old, new)
    with pytest.raises(BundleError) as info:
        load_bundle(bundle_dir)
    assert message in str(info.value)
    assert "bundle.toml" in str(info.value)


def test_missing_bundle_and_bad_toml(tmp_path, bundle_dir):
    with pytest.raises(BundleError, match="no bundle.toml"):
        load_bundle(tmp_path / "nothing")
    (bundle_dir / "bundle.toml").write_text("[bundle\nname=")
    with pytest.raises(BundleError, match="not valid TOML"):
        load_bundle(bundle_dir)


def test_demo_kg_bundle_is_valid():
    bundle = load_bundle(Path(__file__).resolve().parent.parent / "kg")
    assert {"film", "person"} <= set(bundle.classes)
    assert "director" in bundle.relations


def test_cli_reports_bundle_errors_without_traceback(bundle_dir, tmp_path):
    from typer.testing import CliRunner

    from bot.cli import app

    edit(bundle_dir, 'graph = ["graph.ttl"]', 'graph = ["gone.nt"]')
    result = CliRunner().invoke(app, ["--cache-dir", str(tmp_path / "c"), "ask", "who directed Milk", "--kg", str(bundle_dir)])
    assert result.exit_code == 1
    assert "gone.nt does not exist" in result.output
    assert "Traceback" not in result.output
