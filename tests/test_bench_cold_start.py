"""The cold-start fix: the chain classifier predicts without scikit-learn, exactly as scikit-learn would."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

from bot.bundle import load_bundle
from bot.classify import NGRAMS, TOKEN_PATTERN, ChainClassifier
from bot.questions import QuestionGenerator


def assert_matches_scikit_learn(bundle, per_chain: int) -> ChainClassifier:
    classifier = ChainClassifier.train(bundle, per_chain=per_chain)
    texts, labels = QuestionGenerator(bundle, seed=0).dataset(per_chain)
    vectorizer = TfidfVectorizer(ngram_range=NGRAMS, sublinear_tf=True, lowercase=True, token_pattern=TOKEN_PATTERN)
    model = LogisticRegression(C=20.0, max_iter=300).fit(vectorizer.fit_transform(texts), labels)
    probes, _ = QuestionGenerator(bundle, seed=9).dataset(3)
    probes += ["", "ENT", "WHO's   the Director of ENT?!", "zzz unknown words only"]
    assert classifier.classes == list(model.classes_)
    assert np.allclose(classifier.predict(probes), model.predict_proba(vectorizer.transform(probes)), atol=1e-9)
    return classifier


def test_numpy_prediction_equals_scikit_learn(mini_bundle):
    classifier = assert_matches_scikit_learn(load_bundle(mini_bundle), per_chain=30)
    assert {"who", "directed", "the"} <= classifier.wording


def test_two_class_model_matches_scikit_learn_too(mini_bundle, tmp_path):
    """Two literal relations give two chains, where scikit-learn keeps a single logistic column."""
    toml = (mini_bundle / "bundle.toml").read_text(encoding="utf-8")
    head = toml[: toml.index("[relations.")].replace('graph = ["graph.ttl"]', f'graph = ["{mini_bundle / "graph.ttl"}"]')
    (tmp_path / "bundle.toml").write_text(
        head + '[relations.publication_date]\nproperty = "wdt:P577"\nkind = "date"\n\n'
        '[relations.box_office]\nproperty = "wdt:P2142"\nkind = "number"\n', encoding="utf-8")
    classifier = assert_matches_scikit_learn(load_bundle(tmp_path), per_chain=40)
    assert len(classifier.classes) == 2


def test_answering_does_not_import_scikit_learn(mini_agent, mini_settings):
    script = (
        "import json, sys\n"
        "from bot.agent import Agent\n"
        "from bot.config import Settings\n"
        "from bot.kg import open_kg\n"
        f"settings = Settings(kg={mini_settings.kg!r}, cache_dir={mini_settings.cache_dir!r}, llm=False)\n"
        "reply = Agent(open_kg(settings, build_if_missing=False), settings).answer('Who directed Milk?')\n"
        "print(json.dumps([reply.answers, sorted(m for m in ('sklearn', 'scipy') if m in sys.modules)]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    answers, heavy = json.loads(done.stdout.strip().splitlines()[-1])
    assert answers == mini_agent.answer("Who directed Milk?").answers != []
    assert heavy == []
