"""The cold-start fix: the chain classifier predicts without scikit-learn, exactly as the scikit-learn
models it was trained with would."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import sklearn.feature_extraction.text
import sklearn.linear_model

from bot.kg.bundle import load_bundle
from bot.understanding.classifier import ChainClassifier
from bot.understanding.questions import QuestionGenerator

pytestmark = pytest.mark.integration

PROBES = ["", "ENT", "WHO's   the Director of ENT?!", "zzz unknown words only", "when did ENT come out"]


@pytest.fixture
def fitted(monkeypatch):
    """Records the scikit-learn vectorizer and model that ChainClassifier.train fits."""
    seen = {}

    class Vectorizer(sklearn.feature_extraction.text.TfidfVectorizer):
        def fit_transform(self, raw_documents, y=None):
            seen["vectorizer"] = self
            return super().fit_transform(raw_documents, y)

    class Model(sklearn.linear_model.LogisticRegression):
        def fit(self, X, y, sample_weight=None):
            seen["model"] = self
            return super().fit(X, y, sample_weight)

    monkeypatch.setattr(sklearn.feature_extraction.text, "TfidfVectorizer", Vectorizer)
    monkeypatch.setattr(sklearn.linear_model, "LogisticRegression", Model)
    return seen


def small_bundle(mini_bundle, folder, relations: str):
    """The mini graph with only the given relation tables (a handful of chains: quick to train)."""
    toml = (mini_bundle / "bundle.toml").read_text(encoding="utf-8")
    head = toml[: toml.index("[relations.")].replace('graph = ["graph.ttl"]', f'graph = ["{mini_bundle / "graph.ttl"}"]')
    (folder / "bundle.toml").write_text(head + relations, encoding="utf-8")
    return load_bundle(folder)


def assert_matches_scikit_learn(bundle, seen) -> ChainClassifier:
    classifier = ChainClassifier.train(bundle)
    vectorizer, model = seen["vectorizer"], seen["model"]
    probes = PROBES + QuestionGenerator(bundle, seed=9).dataset(3)[0]
    expected = vectorizer.transform(probes).toarray()
    for row, text in enumerate(probes):
        columns, values = classifier.features(text)
        got = np.zeros(expected.shape[1])
        got[columns] = values
        assert np.allclose(got, expected[row], atol=1e-12), text
    assert classifier.classes == [str(c) for c in model.classes_]
    assert np.allclose(classifier.predict(probes), model.predict_proba(vectorizer.transform(probes)), atol=1e-9)
    return classifier


def test_numpy_prediction_equals_scikit_learn(mini_bundle, tmp_path, fitted):
    bundle = small_bundle(mini_bundle, tmp_path, '[relations.director]\nproperty = "wdt:P57"\nvalue_class = "person"\n')
    classifier = assert_matches_scikit_learn(bundle, fitted)
    assert len(classifier.classes) > 2
    assert {"who", "directed", "the"} <= classifier.wording


def test_two_class_model_matches_scikit_learn_too(mini_bundle, tmp_path, fitted):
    """Two literal relations give two chains, where scikit-learn keeps a single logistic column."""
    bundle = small_bundle(mini_bundle, tmp_path, '[relations.publication_date]\nproperty = "wdt:P577"\nkind = "date"\n\n'
                          '[relations.box_office]\nproperty = "wdt:P2142"\nkind = "number"\n')
    assert len(assert_matches_scikit_learn(bundle, fitted).classes) == 2


def test_answering_does_not_import_scikit_learn(mini_agent, mini_settings):
    script = (
        "import json, sys\n"
        "from bot.agent import Agent\n"
        "from bot.core.config import Settings\n"
        "from bot.kg.graph import open_kg\n"
        f"settings = Settings(kg={mini_settings.kg!r}, cache_dir={mini_settings.cache_dir!r}, features=())\n"
        "reply = Agent(open_kg(settings, build_if_missing=False), settings).answer('Who directed Milk?')\n"
        "print(json.dumps([reply.answers, sorted(m for m in ('sklearn', 'scipy') if m in sys.modules)]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    answers, heavy = json.loads(done.stdout.strip().splitlines()[-1])
    assert answers == mini_agent.answer("Who directed Milk?").answers != []
    assert heavy == []
