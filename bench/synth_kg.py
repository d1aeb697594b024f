"""Generate a seeded, Wikidata-shaped synthetic movie KG (about 2M triples at --scale 1) as a bundle.

The graph uses Wikidata's class and property IRIs (wd:Q11424 film, wd:Q5 human, wdt:P57
director, ...) with made-up entity ids, syllable-built titles and names, popularity-skewed
casts and crews, and remakes that reuse an earlier title in a later year. The bundle.toml
uses the demo KG's relation names and shapes for the properties generated here.

    .venv/bin/python bench/synth_kg.py /tmp/synth2m            # ~2M triples
    .venv/bin/python bench/synth_kg.py /tmp/tiny --scale 0.001  # a few thousand
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
from dataclasses import dataclass
from pathlib import Path

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
XSD = "http://www.w3.org/2001/XMLSchema#"
CLASS = {"film": "Q11424", "person": "Q5", "genre": "Q201658", "country": "Q6256", "language": "Q34770"}
FILMS_AT_SCALE_1 = 84_000
PEOPLE_PER_FILM = 2.0
FIRST_ID = 90_000_000  # synthetic Q-ids start far above the ids of the real classes used

GENRES = [
    "drama film", "comedy film", "thriller film", "horror film", "action film", "romance film", "science fiction film",
    "crime film", "documentary film", "animated film", "war film", "western film", "musical film", "fantasy film",
    "mystery film", "adventure film", "biographical film", "historical film", "family film", "sports film",
    "film noir", "satirical film", "disaster film", "teen film",
]
COUNTRIES = [
    "United States of America", "United Kingdom", "France", "Germany", "Italy", "Japan", "India", "Spain", "Canada",
    "Australia", "Sweden", "Denmark", "South Korea", "Mexico", "Brazil", "Argentina", "Poland", "Norway", "Ireland",
    "Hong Kong", "China", "Iran", "Netherlands", "Belgium", "Switzerland", "Austria", "Finland", "Czech Republic",
]
LANGUAGES = [
    "English", "French", "German", "Italian", "Japanese", "Hindi", "Spanish", "Korean", "Swedish", "Danish",
    "Portuguese", "Polish", "Norwegian", "Mandarin Chinese", "Cantonese", "Persian", "Dutch", "Finnish", "Czech",
    "Russian", "Tamil", "Turkish",
]
ONSETS = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z", "br", "ch", "cl",
          "dr", "gr", "kr", "pr", "sh", "st", "th", "tr", ""]
VOWELS = ["a", "e", "i", "o", "u", "a", "e", "o", "ia", "ea", "ou", "y"]
CODAS = ["", "", "", "n", "r", "l", "s", "m", "nd", "rt", "th", "x", "k"]
SURNAME_ENDINGS = ["", "", "", "son", "ski", "ez", "ini", "ova", "berg", "ton", "ard", "ley", "mann", "elli"]
ADJECTIVES = ["Silent", "Broken", "Last", "Lost", "Dark", "Golden", "Hidden", "Burning", "Crimson", "Endless",
              "Frozen", "Wild", "Secret", "Final", "Distant", "Bitter", "Savage", "Quiet", "Eternal", "Hollow"]
NOUNS = ["River", "Night", "City", "Heart", "Garden", "Storm", "Empire", "Summer", "Shadow", "Road", "Island",
         "Dream", "Kingdom", "Promise", "Harbor", "Mirror", "Winter", "Crown", "Voyage", "Frontier", "Letter",
         "Horizon", "Legacy", "Station", "Orchard"]
TITLE_FRAMES = [
    "{W}", "{W}", "The {W}", "{W} {W2}", "The {A} {W}", "The {A} {N}", "{N} of {W}", "Return to {W}", "{W} Rising",
    "The {N} of {W}", "{P}'s {N}", "A {N} in {W}", "{W} and the {A} {N}", "Beyond {W}", "{W}: The {A} {N}",
    "Night of the {W}", "{W} {Y}",
]
ROLES = {  # role -> (share of the people list where the role's people are drawn, popularity exponent)
    "cast_member": ((0.00, 0.78), 0.5),  # at scale 1 the busiest actor has ~200 films, most have 1-5
    "director": ((0.62, 0.84), 0.5),  # the busiest directors have ~60 films
    "screenwriter": ((0.66, 0.92), 0.5),
    "composer": ((0.92, 1.00), 0.5),
}
POPULARITY_OFFSET = 20  # weight of the person of popularity rank r: 1 / (r + offset) ** exponent


@dataclass
class SynthReport:
    folder: Path
    triples: int
    films: int
    people: int
    remakes: int

    def __str__(self) -> str:
        return (f"wrote {self.folder}/graph.nt: {self.triples:,} triples, {self.films:,} films "
                f"({self.remakes:,} remakes), {self.people:,} people")


class Names:
    """Syllable-built words, names and titles from one seeded random generator."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def word(self, syllables: int) -> str:
        r = self.rng
        text = "".join(r.choice(ONSETS) + r.choice(VOWELS) for _ in range(syllables)) + r.choice(CODAS)
        return text.capitalize()

    def person(self) -> str:
        r = self.rng
        first = self.word(r.choice((1, 2, 2, 2, 3)))
        last = self.word(r.choice((1, 2, 2, 3))) + r.choice(SURNAME_ENDINGS)
        if r.random() < 0.08:
            return f"{first} {self.word(1)[0]}. {last}"
        return f"{first} {last}"

    def title(self, person_name: str) -> str:
        r = self.rng
        frame = r.choice(TITLE_FRAMES)
        return frame.format(
            W=self.word(r.choice((2, 2, 3))), W2=self.word(2), A=r.choice(ADJECTIVES), N=r.choice(NOUNS),
            P=person_name.split()[0], Y=r.choice(("II", "III", "2", "Returns", "Forever")),
        )


def _weights(n: int, exponent: float, rng: random.Random) -> list[float]:
    """Cumulative Zipf-like weights over a shuffled order, so popularity is spread over the range."""
    ranks = list(range(n))
    rng.shuffle(ranks)
    cumulative, total = [], 0.0
    for rank in ranks:
        total += 1.0 / (rank + POPULARITY_OFFSET) ** exponent
        cumulative.append(total)
    return cumulative


def _lit(value: str, datatype: str | None = None, lang: str | None = None) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    if lang:
        return f'"{escaped}"@{lang}'
    return f'"{escaped}"^^<{datatype}>' if datatype else f'"{escaped}"'


def generate(out_dir: Path, scale: float = 1.0, seed: int = 7) -> SynthReport:
    """Write graph.nt and bundle.toml for a synthetic KG of `scale` x ~2M triples into `out_dir`."""
    rng = random.Random(seed)
    names = Names(rng)
    out_dir.mkdir(parents=True, exist_ok=True)
    ids = itertools.count(FIRST_ID)
    n_films = max(20, int(FILMS_AT_SCALE_1 * scale))
    n_people = max(40, int(n_films * PEOPLE_PER_FILM))
    triples = 0

    with open(out_dir / "graph.nt", "w", encoding="utf-8") as fh:
        def entity(group: str, label: str) -> str:
            nonlocal triples
            iri = f"<{WD}Q{next(ids)}>"
            fh.write(f"{iri} <{WDT}P31> <{WD}{CLASS[group]}> .\n{iri} <{RDFS_LABEL}> {_lit(label, lang='en')} .\n")
            triples += 2
            return iri

        genres = [entity("genre", g) for g in GENRES]
        countries = [entity("country", c) for c in COUNTRIES]
        languages = [entity("language", l) for l in LANGUAGES]
        people_names = [names.person() for _ in range(n_people)]
        people = [entity("person", name) for name in people_names]
        pools = {}
        for role, ((lo, hi), exponent) in ROLES.items():
            members = people[int(lo * n_people): max(int(hi * n_people), int(lo * n_people) + 1)]
            pools[role] = (members, _weights(len(members), exponent, rng))
        country_weights = _weights(len(countries), 1.2, rng)
        genre_weights = _weights(len(genres), 0.8, rng)

        def pick(role: str, k: int) -> list[str]:
            """k distinct people of the role, popular ones more often (a dict keeps the order seeded)."""
            members, cumulative = pools[role]
            chosen: dict[str, None] = {}
            while len(chosen) < min(k, len(members)):
                chosen.update(dict.fromkeys(rng.choices(members, cum_weights=cumulative, k=k - len(chosen))))
            return list(chosen)

        released: list[tuple[str, int]] = []
        remakes = 0
        imdb_numbers = rng.sample(range(100_000, 9_999_999), n_films)
        for n in range(n_films):
            if released and rng.random() < 0.03:
                title, first_year = rng.choice(released)
                year = min(2024, first_year + rng.randint(5, 40))
                if year == first_year:
                    title, year = names.title(rng.choice(people_names)), rng.randint(1920, 2024)
                else:
                    remakes += 1
            else:
                title, year = names.title(rng.choice(people_names)), rng.randint(1920, 2024)
            released.append((title, year))
            film = entity("film", title)
            country = rng.choices(range(len(countries)), cum_weights=country_weights)[0]
            language = languages[country % len(languages)] if rng.random() < 0.85 else rng.choice(languages)
            edges = [
                *((f"{WDT}P57", p) for p in pick("director", 1 if rng.random() < 0.85 else 2)),
                *((f"{WDT}P58", p) for p in pick("screenwriter", rng.choice((1, 1, 2, 2, 3)))),
                *((f"{WDT}P161", p) for p in pick("cast_member", rng.randint(3, 11))),
                *((f"{WDT}P136", g) for g in dict.fromkeys(rng.choices(genres, cum_weights=genre_weights, k=rng.choice((1, 1, 2, 3))))),
                (f"{WDT}P495", countries[country]),
                (f"{WDT}P364", language),
                (f"{WDT}P577", _lit(f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", XSD + "date")),
                (f"{WDT}P2047", _lit(str(rng.randint(70, 190)), XSD + "decimal")),
                (f"{WDT}P345", _lit(f"tt{imdb_numbers[n]:07d}")),
            ]
            if rng.random() < 0.8:
                edges += [(f"{WDT}P86", p) for p in pick("composer", 1)]
            if rng.random() < 0.6:
                edges.append((f"{WDT}P2142", _lit(str(rng.randint(10_000, 900_000_000)), XSD + "decimal")))
            for prop, obj in edges:
                fh.write(f"{film} <{prop}> {obj} .\n")
            triples += len(edges)
    (out_dir / "bundle.toml").write_text(BUNDLE_TOML.format(seed=seed, scale=scale), encoding="utf-8")
    return SynthReport(out_dir, triples, n_films, n_people, remakes)


BUNDLE_TOML = """\
# Generated by bench/synth_kg.py (seed {seed}, scale {scale}): synthetic data, not facts.
[bundle]
name = "synth"
description = "Synthetic Wikidata-shaped movie KG for benchmarks (seed {seed}, scale {scale})"
graph = ["graph.nt"]

[prefixes]
wd = "http://www.wikidata.org/entity/"
wdt = "http://www.wikidata.org/prop/direct/"

[schema]
label = "rdfs:label"
type = "wdt:P31"
language = "en"

[classes]
film = ["wd:Q11424"]
person = ["wd:Q5"]
genre = ["wd:Q201658"]
country = ["wd:Q6256"]
language = ["wd:Q34770"]

[relations.director]
property = "wdt:P57"
value_class = "person"

[relations.screenwriter]
property = "wdt:P58"
value_class = "person"

[relations.cast_member]
property = "wdt:P161"
value_class = "person"

[relations.composer]
property = "wdt:P86"
value_class = "person"

[relations.genre]
property = "wdt:P136"
value_class = "genre"

[relations.publication_date]
property = "wdt:P577"
kind = "date"

[relations.country_of_origin]
property = "wdt:P495"
value_class = "country"

[relations.original_language]
property = "wdt:P364"
value_class = "language"

[relations.duration]
property = "wdt:P2047"
kind = "number"

[relations.box_office]
property = "wdt:P2142"
kind = "number"

[relations.imdb_id]
property = "wdt:P345"
kind = "text"
"""


def synth_settings(scale: float = 1.0, seed: int = 7):
    """Settings (no LLM) for the synthetic KG kept in the moviebot cache folder, generated on first use."""
    from bot.core.config import load_settings

    settings = load_settings()
    folder = Path(settings.cache_dir).expanduser() / "bench" / f"synth-scale{scale:g}-seed{seed}"
    if not (folder / "bundle.toml").is_file() or not (folder / "graph.nt").is_file():
        print(generate(folder, scale, seed), flush=True)
    return settings.with_overrides(kg=str(folder)).without("phrasing")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="bundle folder to write")
    parser.add_argument("--scale", type=float, default=1.0, help="1.0 = about 2M triples")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if args.scale <= 0:
        parser.error("--scale must be positive")
    print(generate(args.out, args.scale, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
