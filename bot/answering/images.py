"""Multimedia answers: pictures of people and films from a MovieNet `images.json` index.

The index (the layout the course bundles ship) is a JSON list with one object per image:
its path (`img`, e.g. `0001/rm3343756032.jpg`), the IMDb ids of the films (`movie`) and
the people (`cast`) it shows, and a `type` (`poster`, `still_frame`, `user_avatar`,
`publicity`, ...). Missing or oddly shaped fields are tolerated; entries without a usable
path are skipped. An entity's IMDb id comes from the graph (wdt:P345).

The course's chat platforms render the token `image:0001/rm3343756032` (the path without
its extension) as the picture, so the reply text carries it with the IMDb link; the Reply
carries the path itself for the web chat. An image id is only ever taken from the index.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from bot.core.cache import code_digest, combine, file_digest, pickled, progress
from bot.core.contracts import Fact, Facts, LinkedEntity, Understanding
from bot.core.errors import ImageIndexError
from bot.core.features import Contribution, Feature
from bot.core.kinds import Kind
from bot.kg import queries

log = logging.getLogger(__name__)

WIKIDATA_IMDB = "http://www.wikidata.org/prop/direct/P345"
PROFILE_TYPES = frozenset({"profile", "user_avatar", "avatar", "headshot"})
STILL_TYPES = frozenset({"still", "still_frame", "frame"})
POSTER_TYPES = frozenset({"poster"})
PERSON_ID = re.compile(r"^nm\d{5,10}$")
TITLE_ID = re.compile(r"^tt\d{5,10}$")
ASKS_POSTER = re.compile(r"\bposters?\b", re.I)



@dataclass(frozen=True)
class ImageEntry:
    """One picture: where it is and who and what it shows."""

    path: str  # relative to the images folder, e.g. 0001/rm3343756032.jpg
    movies: tuple[str, ...]
    cast: tuple[str, ...]
    type: str

    @property
    def token(self) -> str:
        """What the course's chat platforms render as this picture: image:<path without extension>."""
        return "image:" + str(PurePosixPath(self.path).with_suffix(""))


def _ids(value) -> tuple[str, ...]:
    """IMDb ids from a list, a single string or nothing."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return ()
    return tuple(v for v in value if isinstance(v, str) and v)


def _safe_path(value) -> str | None:
    """A relative path inside the images folder, or None (absolute paths and '..' never reach a reply)."""
    if not isinstance(value, str):
        return None
    path = value.strip().replace("\\", "/")
    name = path.rpartition("/")[2]
    if not path or path.startswith("/") or ".." in path.split("/") or "." not in name.strip("."):
        return None
    return path


class ImageIndex:
    """The images index in columns (cheap to pickle and reload), looked up by IMDb id."""

    def __init__(self, paths: list[str], movies: list[tuple[str, ...]], cast: list[tuple[str, ...]], types: list[str], skipped: int = 0):
        self.paths, self.movies, self.cast, self.types = paths, movies, cast, types
        self.skipped = skipped
        self.by_id: dict[str, list[int]] = {}
        for n in range(len(paths)):
            for imdb_id in dict.fromkeys(movies[n] + cast[n]):
                self.by_id.setdefault(imdb_id, []).append(n)

    def __len__(self) -> int:
        return len(self.paths)

    def entry(self, n: int) -> ImageEntry:
        return ImageEntry(self.paths[n], self.movies[n], self.cast[n], self.types[n])

    @classmethod
    def from_json(cls, path: Path) -> ImageIndex:
        """Read a MovieNet images.json, skipping entries without a usable image path."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ImageIndexError(f"{path}: cannot read the images index: {exc}") from exc
        if isinstance(data, dict) and isinstance(data.get("images"), list):
            data = data["images"]
        if not isinstance(data, list):
            raise ImageIndexError(f"{path}: expected a JSON list of image entries")
        paths, movies, cast, types = [], [], [], []
        for item in data:
            image = _safe_path(item.get("img")) if isinstance(item, dict) else None
            if image is None:
                continue
            kind = item.get("type")
            paths.append(image)
            movies.append(_ids(item.get("movie")))
            cast.append(_ids(item.get("cast")))
            types.append(kind.strip().lower() if isinstance(kind, str) else "")
        return cls(paths, movies, cast, types, len(data) - len(paths))

    @classmethod
    def load(cls, path: Path, cache_dir: Path | None = None, rebuild: bool = False) -> ImageIndex:
        """The index of `path`, reusing (or writing) a pickle in `cache_dir` keyed by the file's hash."""
        path = Path(path)
        if cache_dir is None:
            return cls.from_json(path)
        if not path.is_file():
            raise ImageIndexError(f"{path}: the images index does not exist")
        key = combine(file_digest(path, Path(cache_dir)), code_digest(__name__))  # the file, and the code that reads it
        return pickled(Path(cache_dir), "images", key, lambda: cls.from_json(path), rebuild=rebuild)

    def _with(self, imdb_id: str) -> list[ImageEntry]:
        return [self.entry(n) for n in self.by_id.get(imdb_id, [])]

    def best_for_person(self, person_id: str, film_ids: tuple[str, ...] = ()) -> ImageEntry | None:
        """A profile picture of the person alone, else a still they appear in (fewest people first), else any.

        With `film_ids`, pictures from those films come first.
        """

        def rank(entry: ImageEntry):
            alone = entry.cast == (person_id,)
            if entry.type in PROFILE_TYPES and alone:
                tier = 0
            elif entry.type in STILL_TYPES:
                tier = 1
            elif alone:
                tier = 2
            else:
                tier = 3
            in_film = any(f in entry.movies for f in film_ids)
            return (not in_film, tier, len(entry.cast), entry.path)

        candidates = [e for e in self._with(person_id) if person_id in e.cast]
        return min(candidates, key=rank, default=None)

    def best_for_film(self, film_id: str) -> ImageEntry | None:
        """The film's own poster, else a poster it shares, else a still, else any picture of it."""

        def rank(entry: ImageEntry):
            if entry.type in POSTER_TYPES:
                tier = 0 if entry.movies == (film_id,) else 1
            elif entry.type in STILL_TYPES:
                tier = 2
            else:
                tier = 3
            return (tier, len(entry.movies), len(entry.cast), entry.path)

        candidates = [e for e in self._with(film_id) if film_id in e.movies]
        return min(candidates, key=rank, default=None)


def index_path(settings, bundle) -> Path | None:
    """The images index in use: the `images_index` setting, else the bundle's `images`."""
    return Path(settings.images_index).expanduser() if settings.images_index else bundle.images


def imdb_url(imdb_id: str) -> str:
    kind = "name" if imdb_id.startswith("nm") else "title"
    return f"https://www.imdb.com/{kind}/{imdb_id}/"


class PictureAnswerer:
    """Answers "show me a picture of X" / "what does X look like" / "show me the poster of X"."""

    def __init__(self, kg, settings):
        self.kg = kg
        self.index_path = index_path(settings, kg.bundle)
        self.cache_dir = kg.folder
        self.images_dir = Path(settings.images_dir).expanduser() if settings.images_dir else None
        relation = next((r for r in kg.bundle.relations.values() if r.property == WIKIDATA_IMDB), None)
        self.imdb_property = relation.property if relation else WIKIDATA_IMDB
        self._index: ImageIndex | None = None
        self._index_error = ""
        self._lock = threading.Lock()

    def index(self) -> ImageIndex | None:
        """The images index, read on first use (None when there is none or it is unreadable)."""
        if self.index_path is None:
            return None
        with self._lock:
            if self._index is None and not self._index_error:
                try:
                    self._index = ImageIndex.load(self.index_path, self.cache_dir)
                    log.info("images index %s: %d entries (%d skipped)", self.index_path, len(self._index), self._index.skipped)
                except ImageIndexError as exc:
                    self._index_error = str(exc)
                    log.error("%s", exc)
        return self._index

    def imdb_id(self, entity: LinkedEntity) -> str | None:
        rows = self.kg.graph.select(queries.values_of(entity.iri, self.imdb_property))
        ids = sorted(r["value"].value.strip() for r in rows if "value" in r and not r["value"].is_iri)
        return next((i for i in ids if PERSON_ID.match(i) or TITLE_ID.match(i)), None)

    def answer(self, understanding: Understanding, conversation) -> Facts:
        text = understanding.text
        subject = self._subject(understanding)
        if subject is None:
            return Facts(Kind.MULTIMEDIA, text, message=(
                "Whose picture would you like to see? I could not find a person or film from my knowledge graph in your question, "
                "for example \"Show me a picture of Halle Berry\" or \"Show me the poster of Good Will Hunting\"."
            ))  # fmt: skip
        name = subject.label
        imdb_id = self.imdb_id(subject)
        if imdb_id is None:
            return Facts(Kind.MULTIMEDIA, text, topic=[subject], message=f"I cannot show a picture of {name}: my knowledge graph has no IMDb id for {name}.")
        link = imdb_url(imdb_id)
        id_fact = Fact(subject.iri, name, "imdb_id", imdb_id, imdb_id, "kg")
        extra = {"imdb_id": imdb_id, "imdb_url": link}
        index = self.index()
        if index is None:
            return Facts(Kind.MULTIMEDIA, text, facts=[id_fact], topic=[subject], extra=extra, message=(
                f"I have no picture collection for this knowledge graph, so I cannot show {name}. IMDb page: {link}"
            ))  # fmt: skip
        if PERSON_ID.match(imdb_id):
            films = tuple(i for e in understanding.entities if e is not subject and e.group == "film" for i in [self.imdb_id(e)] if i)
            entry = index.best_for_person(imdb_id, films)
        else:
            entry = index.best_for_film(imdb_id)
        if entry is None:
            return Facts(Kind.MULTIMEDIA, text, facts=[id_fact], topic=[subject], extra=extra, message=f"I have no picture of {name} in my collection. IMDb page: {link}")
        if entry.type in POSTER_TYPES and TITLE_ID.match(imdb_id):
            lead = f"Here is the poster of {name}"
        elif PERSON_ID.match(imdb_id):
            lead = f"Here is a picture of {name}"
        else:
            lead = f"Here is a picture from {name}"
        image_fact = Fact(subject.iri, name, "image", entry.path, entry.token, "images",
                          {"imdb_id": imdb_id, "type": entry.type, "movies": list(entry.movies), "cast": list(entry.cast)})  # fmt: skip
        extra.update(image=self._servable(entry.path), image_token=entry.token, image_type=entry.type)
        # no `answers`: the sentence (with the image token and link) is final, not material for rephrasing
        return Facts(Kind.MULTIMEDIA, text, facts=[id_fact, image_fact], topic=[subject], source="images", extra=extra,
                     message=f"{lead}: {entry.token} — IMDb page: {link}")  # fmt: skip

    def _subject(self, understanding: Understanding) -> LinkedEntity | None:
        """The person (or, when a poster is asked for, the film) the picture should show."""
        groups = ("film", "person") if ASKS_POSTER.search(understanding.text) else ("person", "film")
        for group in groups:
            for entity in understanding.entities:
                if entity.group == group:
                    return entity
        return understanding.entities[0] if understanding.entities else None

    def _servable(self, path: str) -> str | None:
        """The image path for the web chat; None when an images folder is configured but lacks the file."""
        if self.images_dir is not None and not (self.images_dir / path).is_file():
            log.warning("image %s is in the index but not in %s", path, self.images_dir)
            return None
        return path


def load(agent) -> Contribution:
    """Answer multimedia questions (pictures of people, posters of films)."""
    answerer = PictureAnswerer(agent.kg, agent.settings)
    offers = ("show pictures of people and film posters",) if answerer.index_path is not None else ()  # else: IMDb links only
    return Contribution(handlers={Kind.MULTIMEDIA: answerer.answer}, offers=offers)


def build_step(settings, bundle, folder: Path, key: str, quiet: bool = False, force: bool = False) -> None:
    """Index the images file at build time (cached by its hash), so the first picture question is quick."""
    path = index_path(settings, bundle)
    if path is None or not path.is_file():
        return
    with progress() as bar:
        task = bar.add_task("images index", total=1, visible=not quiet)
        try:
            ImageIndex.load(path, folder, rebuild=force)
        except ImageIndexError as exc:
            log.error("%s", exc)
        bar.advance(task)


FEATURE = Feature(
    name="images",
    summary="pictures of people and film posters from a MovieNet-style images index, with IMDb links",
    requires=(),
    settings="images",
    load=load,
    build=build_step,
)
