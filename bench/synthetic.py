"""A seeded synthetic action corpus: realistic verbs and objects with Zipfian word choice.

About 150 objects, 60 qualifiers and 100 filler words (bench/vocabulary.py), each drawn
Zipfian (s = 1.1): common words are very common (the head verb is in a third of all actions,
the head object in a fifth), as in real text, yet most queries also carry rarer words.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Iterator

from bench.vocabulary import FILLER, OBJECTS, PARAMS, QUALIFIERS, TYPES, VERBS
from registry.model.schemas import Action, Manifest


@functools.cache
def _cumulative(n: int, s: float) -> list[float]:
    return list(itertools.accumulate(1 / (rank**s) for rank in range(1, n + 1)))


def _zipf(rng: random.Random, items: list, s: float = 1.1) -> object:
    return rng.choices(items, cum_weights=_cumulative(len(items), s), k=1)[0]


def manifests(n_actions: int, per_site: int = 20, seed: int = 7) -> Iterator[Manifest]:
    """Yield site manifests holding n_actions actions in all."""
    rng = random.Random(seed)
    for start in range(0, n_actions, per_site):
        host = f"site{start // per_site}.bench.test"
        actions = []
        for i in range(min(per_site, n_actions - start)):
            verb, effect = _zipf(rng, VERBS)  # type: ignore[misc]
            obj = _object(rng)
            words = " ".join(str(_zipf(rng, FILLER)) for _ in range(rng.randint(4, 12)))
            name = f"{verb}_{obj.replace(' ', '_')}_{i}"
            params = {p: {"type": "string"} for p in rng.sample(PARAMS, rng.randint(0, 3))}
            actions.append(
                Action(
                    name=name[:64],
                    title=f"{verb.capitalize()} {obj}",
                    type=TYPES.get(verb),
                    description=f"{verb.capitalize()} a {obj} {words}.",
                    effect=effect,
                    input_schema={"type": "object", "properties": params},
                    method="GET" if effect == "read" else "POST",
                    endpoint=f"https://{host}/api/{name}",
                )
            )
        yield Manifest(
            site=host,
            url=f"https://{host}/.well-known/agent-actions.json",
            format="agent-actions",
            site_name=f"Site {start // per_site}",
            site_description=f"{_zipf(rng, OBJECTS)} and more, {_zipf(rng, FILLER)}",
            actions=actions,
        )


def _object(rng: random.Random) -> str:
    obj = str(_zipf(rng, OBJECTS))
    return f"{_zipf(rng, QUALIFIERS)} {obj}" if rng.random() < 0.5 else obj


def queries(n: int, seed: int = 11) -> list[str]:
    """What an agent asks: a verb and an object, sometimes a word of context."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        extra = f" {_zipf(rng, FILLER)}" if rng.random() < 0.3 else ""
        out.append(f"{_zipf(rng, VERBS)[0]} {_object(rng)}{extra}")  # type: ignore[index]
    return out
