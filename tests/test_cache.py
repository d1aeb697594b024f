"""Pickled build caches: reused while their key matches, rebuilt when it changes or the file is damaged."""

from __future__ import annotations

import pytest

from bot.core.cache import pickled

from conftest import CHEAP_FEATURES

pytestmark = pytest.mark.integration


def test_pickled_values_are_reused_per_key_and_rebuilt_when_damaged(tmp_path):
    builds = []

    def build(value):
        def run():
            builds.append(value)
            return {"value": value}
        return run

    assert pickled(tmp_path, "thing", "a" * 64, build(1)) == {"value": 1}
    assert pickled(tmp_path, "thing", "a" * 64, build(2)) == {"value": 1}  # same inputs: reused
    assert pickled(tmp_path, "thing", "b" * 64, build(3)) == {"value": 3}  # changed inputs: rebuilt
    (cached,) = [p for p in tmp_path.glob("thing-b*.pkl")]
    cached.write_bytes(b"garbage")
    assert pickled(tmp_path, "thing", "b" * 64, build(4)) == {"value": 4}  # damaged: rebuilt
    assert pickled(tmp_path, "thing", "b" * 64, build(5), rebuild=True) == {"value": 5}
    assert builds == [1, 3, 4, 5]
    assert not list(tmp_path.glob("*.tmp*"))


def test_a_forced_build_rebuilds_the_store_index_and_classifier(mini_bundle, tmp_path):
    from bot.agent import build
    from bot.core.config import Settings
    from bot.kg.graph import open_kg

    settings = Settings(kg=str(mini_bundle), cache_dir=str(tmp_path), features=CHEAP_FEATURES)
    folder = build(settings, quiet=True).folder
    before = {name: (folder / name).stat().st_mtime_ns for name in ("labels.pkl", "classifier.pkl")}
    assert build(settings, quiet=True).folder == folder  # fresh: reused
    assert {name: (folder / name).stat().st_mtime_ns for name in before} == before
    assert build(settings, quiet=True, force=True).folder == folder
    assert all((folder / name).stat().st_mtime_ns != mtime for name, mtime in before.items())
    kg = open_kg(settings, build_if_missing=False)  # still fresh after the forced build
    assert kg.labels.lookup("good will hunting")


def test_the_build_command_trains_the_classifier_in_a_second_process_and_a_start_reuses_it(mini_bundle, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from bot.agent import Agent
    from bot.cli import app
    from bot.core.config import Settings
    from bot.kg.graph import artefact_fresh, open_kg
    from bot.understanding import classifier

    result = CliRunner().invoke(app, ["--cache-dir", str(tmp_path), "--no-llm", "build", str(mini_bundle)])
    assert result.exit_code == 0, result.output
    assert "training the question classifier and the reader in a second process" in result.output
    settings = Settings(kg=str(mini_bundle), cache_dir=str(tmp_path), features=CHEAP_FEATURES)
    kg = open_kg(settings, build_if_missing=False)
    assert artefact_fresh(kg.folder, classifier.CLASSIFIER, classifier.classifier_key(kg.bundle))

    def no_training(bundle):
        raise AssertionError("the classifier was trained again")

    monkeypatch.setattr(classifier.ChainClassifier, "train", staticmethod(no_training))
    assert Agent.from_settings(settings).answer("Who directed Milk?").answers == ["Gus Van Sant"]
    again = CliRunner().invoke(app, ["--cache-dir", str(tmp_path), "--no-llm", "build", str(mini_bundle)])
    assert again.exit_code == 0 and "second process" not in again.output  # fresh: nothing to train
