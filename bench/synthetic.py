"""A seeded synthetic action corpus: realistic verbs and objects with Zipfian word choice.

About 150 objects, 60 qualifiers and 100 filler words, each drawn Zipfian (s = 1.1): common
words are very common (the head verb is in a third of all actions, the head object in a
fifth), as in real text, yet most queries also carry rarer words.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Iterator

from registry.model.schemas import Action, Manifest

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
           "haircut", "coffee", "shoes", "jacket", "toner cartridge", "notebook", "desk",
           "sofa", "mattress", "tent", "camera", "headphones", "guitar", "piano lesson",
           "yoga class", "gym membership", "massage", "dentist appointment", "vet visit",
           "dog food", "cat litter", "flowers", "wine", "beer", "cheese", "bread", "sushi",
           "burger", "salad", "taxi", "ferry ticket", "bus pass", "museum ticket", "boat tour",
           "ski pass", "campsite", "cabin", "villa", "hostel bed", "conference room",
           "coworking desk", "storage unit", "moving van", "scooter", "electric car charger",
           "tyre change", "oil change", "car wash", "plumber", "electrician", "cleaner",
           "babysitter", "tutor", "translator", "lawyer consultation", "tax return",
           "bank transfer", "currency exchange", "loan quote", "credit card", "mortgage",
           "stock quote", "crypto wallet", "domain name", "web hosting", "vpn plan",
           "cloud server", "database backup", "api key", "software license", "ebook",
           "audiobook", "movie ticket", "streaming plan", "magazine", "newspaper",
           "crossword", "weather forecast", "flight status", "train times", "bus route",
           "map directions", "restaurant review", "hotel review", "product review",
           "survey", "petition", "donation", "volunteer shift", "blood test", "vaccine",
           "prescription", "eye exam", "glasses", "contact lenses", "hearing aid", "wheelchair",
           "baby stroller", "crib", "toy", "board game", "puzzle", "video game", "console",
           "tablet", "smartwatch", "charger", "cable", "monitor", "keyboard", "mouse",
           "router", "printer", "scanner", "paint", "drill", "ladder", "lawn mower",
           "garden hose", "seeds", "plant pot", "firewood", "heater", "fan", "air purifier"]
QUALIFIERS = ["used", "new", "cheap", "premium", "red", "blue", "black", "small", "large",
              "organic", "vegan", "electric", "wireless", "refurbished", "kids", "family",
              "weekend", "weekly", "monthly", "annual", "last minute", "late night", "local",
              "express", "eco", "gluten free", "handmade", "vintage", "waterproof", "portable",
              "berlin", "paris", "london", "tokyo", "new york", "lisbon", "madrid", "rome",
              "group", "private", "shared", "luxury", "budget", "student", "senior", "pet friendly",
              "two person", "single", "double", "king size", "extra large", "mini", "digital",
              "printed", "signed", "limited edition", "seasonal", "frozen", "fresh", "same day"]
TYPES = {"search": "SearchAction", "find": "SearchAction", "buy": "BuyAction",
         "order": "OrderAction", "reserve": "ReserveAction", "book": "ReserveAction",
         "rent": "RentAction", "pay": "PayAction", "send": "SendAction", "share": "ShareAction",
         "track": "TrackAction", "view": "ViewAction", "delete": "DeleteAction",
         "cancel": "CancelAction", "update": "UpdateAction", "add": "AddAction"}
PARAMS = ["query", "quantity", "date", "city", "email", "size", "color", "max_price",
          "guests", "time", "address", "sku", "note", "currency", "language"]
# Function words first: in real text they, not "quickly", are the most frequent words.
FILLER = ["the", "with", "for", "your", "in", "from", "our", "quickly", "online", "account",
          "today", "nearby",
          "best", "price", "secure", "checkout", "options", "details", "available",
          "stock", "catalog", "store", "service", "members", "free", "fast",
          "delivery", "shipping", "returns", "support", "customers", "orders", "payment",
          "card", "invoice", "receipt", "confirmation", "email", "notification", "status",
          "history", "profile", "settings", "preferences", "language", "currency", "region",
          "country", "city", "address", "location", "map", "schedule", "calendar", "time",
          "date", "duration", "fare", "discount", "coupon", "voucher", "loyalty", "points",
          "rewards", "gift", "wrapping", "size", "colour", "material", "brand", "model",
          "rating", "reviews", "photos", "video", "description", "warranty", "insurance",
          "tax", "fees", "total", "quantity", "limit", "minimum", "maximum", "filter",
          "sort", "results", "page", "list", "items", "cart", "basket", "wishlist"]


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
            actions.append(Action(
                name=name[:64], title=f"{verb.capitalize()} {obj}", type=TYPES.get(verb),
                description=f"{verb.capitalize()} a {obj} {words}.", effect=effect,
                input_schema={"type": "object", "properties": params},
                method="GET" if effect == "read" else "POST",
                endpoint=f"https://{host}/api/{name}"))
        yield Manifest(site=host, url=f"https://{host}/.well-known/agent-actions.json",
                       format="agent-actions", site_name=f"Site {start // per_site}",
                       site_description=f"{_zipf(rng, OBJECTS)} and more, {_zipf(rng, FILLER)}",
                       actions=actions)


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
