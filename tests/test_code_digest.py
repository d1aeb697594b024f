"""Code digests: part of every artefact's cache key, kept on disk by the hash of each module's bytes."""

from __future__ import annotations

import importlib
import sys

from bot.core import cache


def test_a_code_digest_ignores_docstrings_and_is_read_back_from_the_cache_until_the_file_changes(tmp_path, monkeypatch):
    package = tmp_path / "src"
    package.mkdir()
    module = package / "digested_module.py"
    module.write_text('"""Docs."""\nVALUE = 1\n')
    monkeypatch.syspath_prepend(str(package))
    monkeypatch.setattr(cache, "_CODE_DIGESTS", {})
    monkeypatch.setattr(cache, "_CODE_MEMO", None)
    cache.keep_code_digests(tmp_path / "cache")
    first = cache.code_digest("digested_module")
    memo = next((tmp_path / "cache" / "digests" / "code").iterdir())
    memo.write_text("kept")  # a later process reads the kept digest, not the module
    monkeypatch.setattr(cache, "_CODE_DIGESTS", {})
    assert cache.code_digest("digested_module") == cache.combine("digested_module:kept")
    memo.unlink()
    monkeypatch.setattr(cache, "_CODE_DIGESTS", {})
    assert cache.code_digest("digested_module") == first

    module.write_text('"""Other docs."""\nVALUE = 1\n')  # a docstring is no change of what the code does
    monkeypatch.setattr(cache, "_CODE_DIGESTS", {})
    assert cache.code_digest("digested_module") == first

    module.write_text('"""Docs."""\nVALUE = 2\n')
    monkeypatch.setattr(cache, "_CODE_DIGESTS", {})
    assert cache.code_digest("digested_module") != first
    assert len(list((tmp_path / "cache" / "digests" / "code").iterdir())) == 3  # one per file content
    sys.modules.pop("digested_module", None)
    importlib.invalidate_caches()
