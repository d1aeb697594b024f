"""Multimedia answers: the images index reader, picture choice, and replies with image tokens and IMDb links."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from bot.agent import Agent
from bot.answering.images import ImageIndex, imdb_url
from bot.core.config import Settings
from bot.core.errors import ImageIndexError

from conftest import CAST, CHEAP_FEATURES, IMDB, bundle_toml

PICTURES_TTL = r"""
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix t: <http://test.invalid/> .

t:halle wdt:P31 wd:Q5 ; rdfs:label "Halle Berry"@en ; wdt:P345 "nm0000932" .
t:julia wdt:P31 wd:Q5 ; rdfs:label "Julia Roberts"@en ; wdt:P345 "nm0000210" .
t:sandra wdt:P31 wd:Q5 ; rdfs:label "Sandra Bullock"@en ; wdt:P345 "nm0000113" .
t:keanu wdt:P31 wd:Q5 ; rdfs:label "Keanu Reeves"@en ; wdt:P345 "nm0000206" .
t:greta wdt:P31 wd:Q5 ; rdfs:label "Greta Nilsson"@en .
t:richard wdt:P31 wd:Q5 ; rdfs:label "Richard Gere"@en ; wdt:P345 "nm0000152" .
t:pw wdt:P31 wd:Q11424 ; rdfs:label "Pretty Woman"@en ; wdt:P345 "tt0100405" ; wdt:P161 t:julia, t:richard .
t:gravity wdt:P31 wd:Q11424 ; rdfs:label "Gravity"@en ; wdt:P345 "tt1454468" ; wdt:P161 t:sandra .
t:catwoman wdt:P31 wd:Q11424 ; rdfs:label "Catwoman"@en ; wdt:P345 "tt0327554" ; wdt:P161 t:halle .
"""

PICTURES_TOML = bundle_toml("pictures", {"cast_member": CAST, "imdb_id": IMDB}, images='"images.json"')

# MovieNet layout: img, movie, cast, type; plus entries a tolerant reader must survive
IMAGES = [
    {"img": "0002/rm0000003.jpg", "movie": ["tt0327554"], "cast": ["nm0000932"], "type": "poster"},
    {"img": "0001/rm0000002.jpg", "movie": ["tt0327554"], "cast": ["nm0000932", "nm0000152"], "type": "still_frame"},
    {"img": "0001/rm0000001.jpg", "movie": [], "cast": ["nm0000932"], "type": "user_avatar"},
    {"img": "../../secret.jpg", "cast": ["nm0000932"], "type": "profile"},
    {"img": "/abs/rm0000009.jpg", "cast": ["nm0000932"], "type": "profile"},
    {"cast": ["nm0000932"], "type": "profile"},
    "not an entry",
    {"img": "0003/rm0000006.jpg", "movie": ["tt0100405"], "cast": ["nm0000210", "nm0000152"], "type": "poster"},
    {"img": "0003/rm0000005.jpg", "movie": ["tt0100405"], "cast": ["nm0000210", "nm0000152", "nm0000113"], "type": "still_frame"},
    {"img": "0003/rm0000004.jpg", "movie": ["tt0100405"], "cast": ["nm0000210", "nm0000152"], "type": "still_frame"},
    {"img": "0003/rm0000007.jpg", "movie": ["tt0100405"], "cast": ["nm0000152"], "type": "still_frame"},
    {"img": "0004/rm0000010.jpg", "movie": ["tt1454468"], "type": "still_frame"},
    {"img": "0004/rm0000011.jpg", "movie": ["tt1454468", "tt9999999"], "type": "poster"},
    {"img": "0005/rm0000012.jpg", "cast": "nm0000206"},
]


def write_pictures_bundle(folder, images=IMAGES):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "graph.ttl").write_text(PICTURES_TTL, encoding="utf-8")
    (folder / "bundle.toml").write_text(PICTURES_TOML, encoding="utf-8")
    (folder / "images.json").write_text(json.dumps(images), encoding="utf-8")
    return folder


def write_image_files(folder):
    """Tiny JPEG files (start and end markers) at every path the index names."""
    for item in IMAGES:
        if isinstance(item, dict) and str(item.get("img", "")).startswith("000"):
            path = folder / item["img"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9")
    return folder


@pytest.fixture(scope="module")
def pictures(tmp_path_factory, cache_dir):
    root = tmp_path_factory.mktemp("pictures")
    bundle = write_pictures_bundle(root / "bundle")
    images_dir = write_image_files(root / "images")
    settings = Settings(kg=str(bundle), cache_dir=str(cache_dir), features=CHEAP_FEATURES, images_dir=str(images_dir))
    return Agent.from_settings(settings), settings, root


def test_index_reader_is_tolerant(tmp_path):
    path = tmp_path / "images.json"
    path.write_text(json.dumps(IMAGES), encoding="utf-8")
    index = ImageIndex.load(path)
    assert index.skipped == 4  # '..' path, absolute path, no img, not an object
    assert len(index) == len(IMAGES) - 4 and all(p.startswith("000") for p in index.paths)
    keanu = index.best_for_person("nm0000206")
    assert keanu.path == "0005/rm0000012.jpg" and keanu.type == ""
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(json.dumps({"images": IMAGES}), encoding="utf-8")
    assert ImageIndex.load(wrapped).paths == index.paths
    for bad in ("{not json", json.dumps({"a": 1})):
        path.write_text(bad, encoding="utf-8")
        with pytest.raises(ImageIndexError):
            ImageIndex.load(path)


def test_cached_index_is_rebuilt_when_the_file_changes(tmp_path):
    path, cache = tmp_path / "images.json", tmp_path / "cache"
    path.write_text(json.dumps(IMAGES), encoding="utf-8")
    first = ImageIndex.load(path, cache)
    assert len(list(cache.glob("images-*.pkl"))) == 1
    assert ImageIndex.load(path, cache).paths == first.paths
    path.write_text(json.dumps(IMAGES[:3]), encoding="utf-8")
    assert ImageIndex.load(path, cache).paths == ["0002/rm0000003.jpg", "0001/rm0000002.jpg", "0001/rm0000001.jpg"]
    assert len(list(cache.glob("images-*.pkl"))) == 2


def test_picture_choice_prefers_profiles_alone_then_stills_and_posters_for_films(tmp_path):
    path = tmp_path / "images.json"
    path.write_text(json.dumps(IMAGES), encoding="utf-8")
    index = ImageIndex.load(path)
    assert index.best_for_person("nm0000932").token == "image:0001/rm0000001"  # profile alone beats still and poster
    assert index.best_for_person("nm0000210").path == "0003/rm0000004.jpg"  # no profile: the still with fewest people
    assert index.best_for_person("nm0000152", ("tt0327554",)).path == "0001/rm0000002.jpg"  # the film asked about first
    assert index.best_for_person("nm0000113").path == "0003/rm0000005.jpg"
    assert index.best_for_person("nm0000001") is None
    assert index.best_for_film("tt0100405").path == "0003/rm0000006.jpg"
    assert index.best_for_film("tt1454468").path == "0004/rm0000011.jpg"  # a shared poster beats a still
    assert imdb_url("nm0000932") == "https://www.imdb.com/name/nm0000932/"
    assert imdb_url("tt0100405") == "https://www.imdb.com/title/tt0100405/"


def test_picture_of_a_person(pictures):
    agent, _, root = pictures
    reply = agent.answer("Show me a picture of Halle Berry")
    assert reply.kind == "multimedia"
    assert "image:0001/rm0000001 " in reply.text + " " and "https://www.imdb.com/name/nm0000932/" in reply.text
    assert ".jpg" not in reply.text
    assert reply.image == "0001/rm0000001.jpg" and (root / "images" / reply.image).is_file()
    assert [f.relation for f in reply.facts] == ["imdb_id", "image"]


def test_what_does_someone_look_like(pictures):
    agent, _, _ = pictures
    reply = agent.answer("What does Julia Roberts look like?")
    assert "image:0003/rm0000004" in reply.text and reply.image == "0003/rm0000004.jpg"


def test_poster_of_a_film(pictures):
    agent, _, _ = pictures
    reply = agent.answer("show me the poster of Pretty Woman")
    assert reply.text.startswith("Here is the poster of Pretty Woman")
    assert "image:0003/rm0000006" in reply.text and "https://www.imdb.com/title/tt0100405/" in reply.text


def test_no_image_is_said_plainly_with_the_imdb_link(pictures, tmp_path):
    agent, settings, _ = pictures
    assert "image:0003/rm0000005" in agent.answer("Let me know what Sandra Bullock looks like").text  # a crowded still
    index = tmp_path / "images.json"
    index.write_text(json.dumps([i for i in IMAGES if not (isinstance(i, dict) and "nm0000113" in i.get("cast", []))]), encoding="utf-8")
    without = Agent(agent.kg, replace(settings, images_index=str(index)))
    without.load_features()
    reply = without.answer("Let me know what Sandra Bullock looks like")
    assert "image:" not in reply.text and reply.image is None
    assert "no picture of Sandra Bullock" in reply.text and "https://www.imdb.com/name/nm0000113/" in reply.text


def test_no_imdb_id_and_no_index(pictures, tmp_path):
    agent, settings, _ = pictures
    reply = agent.answer("Show me a photo of Greta Nilsson")
    assert "no IMDb id" in reply.text and "image:" not in reply.text and "imdb.com" not in reply.text
    no_index = Agent(agent.kg, replace(settings, images_index=str(tmp_path / "missing.json")))
    no_index.load_features()
    reply = no_index.answer("Show me a picture of Halle Berry")
    assert "image:" not in reply.text and reply.image is None and "https://www.imdb.com/name/nm0000932/" in reply.text
    assert not reply.error


def test_missing_image_file_keeps_the_token_but_not_the_path(pictures, tmp_path):
    agent, settings, _ = pictures
    empty_folder = Agent(agent.kg, replace(settings, images_dir=str(tmp_path)))
    empty_folder.load_features()
    reply = empty_folder.answer("Show me a picture of Halle Berry")
    assert "image:0001/rm0000001" in reply.text and reply.image is None


def test_question_without_a_known_entity(pictures):
    agent, _, _ = pictures
    reply = agent.answer("Show me a picture of Zorblax Quintavius")
    assert not reply.error and "image:" not in reply.text


@pytest.mark.parametrize("text", ["did Parasite win best picture", "Which films won Best Picture?", "best motion picture winners of the 90s"])
def test_best_picture_is_an_award_not_a_picture_request(text):
    from bot.core.kinds import Kind
    from bot.understanding.cues import question_kind

    assert question_kind(text)[0] is not Kind.MULTIMEDIA
    assert question_kind("show me a picture of the best actor")[0] is Kind.MULTIMEDIA
