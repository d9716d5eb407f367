"""A seeded synthetic action corpus: realistic verbs and objects with Zipfian word choice."""

from __future__ import annotations

import random
from collections.abc import Iterator

from registry.schemas import Action, Manifest

VERBS = [("search", "read"), ("find", "read"), ("view", "read"), ("list", "read"),
         ("buy", "spend"), ("order", "spend"), ("book", "spend"), ("reserve", "spend"),
         ("rent", "spend"), ("pay", "spend"), ("send", "send"), ("share", "send"),
         ("message", "send"), ("create", "write"), ("update", "write"), ("add", "write"),
         ("cancel", "delete"), ("delete", "delete"), ("track", "read"), ("compare", "read")]
OBJECTS = ["printer paper", "flight", "hotel room", "table", "concert ticket", "bike",
           "car", "pizza", "grocery delivery", "invoice", "email", "calendar event",
           "support ticket", "playlist", "podcast", "news article", "recipe", "apartment",
           "train ticket", "package", "gift card", "appointment", "course", "book",
           "laptop", "phone plan", "insurance quote", "parking spot", "doctor visit",
           "haircut", "coffee", "shoes", "jacket", "toner cartridge", "notebook", "desk"]
FILLER = ["quickly", "online", "with", "for", "the", "your", "account", "today", "nearby",
          "best", "price", "secure", "checkout", "options", "details", "available", "in",
          "stock", "from", "our", "catalog", "store", "service", "members", "free", "fast"]


def _zipf(rng: random.Random, items: list, s: float = 1.1) -> object:
    weights = [1 / (rank ** s) for rank in range(1, len(items) + 1)]
    return rng.choices(items, weights=weights, k=1)[0]


def manifests(n_actions: int, per_site: int = 20, seed: int = 7) -> Iterator[Manifest]:
    """Yield site manifests holding n_actions actions in all."""
    rng = random.Random(seed)
    for start in range(0, n_actions, per_site):
        host = f"site{start // per_site}.bench.test"
        actions = []
        for i in range(min(per_site, n_actions - start)):
            verb, effect = _zipf(rng, VERBS)  # type: ignore[misc]
            obj = str(_zipf(rng, OBJECTS))
            words = " ".join(str(_zipf(rng, FILLER)) for _ in range(rng.randint(4, 12)))
            name = f"{verb}_{obj.replace(' ', '_')}_{i}"
            actions.append(Action(
                name=name[:64], title=f"{verb.capitalize()} {obj}",
                description=f"{verb.capitalize()} a {obj} {words}.", effect=effect,
                method="GET" if effect == "read" else "POST",
                endpoint=f"https://{host}/api/{name}"))
        yield Manifest(site=host, url=f"https://{host}/.well-known/agent-actions.json",
                       format="agent-actions", site_name=f"Site {start // per_site}",
                       actions=actions)


def queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return [f"{_zipf(rng, VERBS)[0]} {_zipf(rng, OBJECTS)}" for _ in range(n)]  # type: ignore[index]
