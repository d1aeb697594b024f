"""Pickled build caches: reused while their key matches, rebuilt when it changes or the file is damaged."""

from __future__ import annotations

from bot.cache import pickled


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
