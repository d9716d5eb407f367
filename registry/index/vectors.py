"""Meaning beside words: a small vector per action, to re-rank what BM25 found for a sentence.

BM25 only sees shared words, and an agent's sentence often shares none with the action it
needs ("I'm baking bread with yeast" -> a recipe search). Each action gets a vector of its
text when it is stored; a request of several words is compared with the vectors of its best
BM25 candidates, and the similarity is added to their scores (``registry.search.meaning``).

The vectors are WordLlama's static token embeddings (the ``wordllama`` wheel ships them; no
download): a text's vector is the weighted mean of its tokens' rows, each token weighted
SIF-style a / (a + p), p taken from the token's rank in the vocabulary (ids of this BPE
vocabulary follow merge order, roughly frequency), so no corpus statistics are needed and a
vector never changes once stored. The table is cut to its first DIMS dimensions (the model is
trained to allow it) and a stored vector is DIMS steps of 4 bits: 32 bytes an action, read
with the action's stored document (so at a million actions the index grows by ~35 MB, all of
which a busy API keeps in memory). Measured on ToolLens and the held-out MetaTool set (README,
Benchmarks): 64 dims score within 0.005-0.02 NDCG@10 of 256, 8-bit steps like float32, and
4-bit steps within 0.001 of 8-bit.
"""

from __future__ import annotations

import functools
import importlib.util
from base64 import b64encode
from pathlib import Path

import numpy as np
from safetensors import safe_open
from tokenizers import Tokenizer

MODEL = "l2_supercat"
DIMS = 64
SIF_A = 1e-3
BYTE_TOKENS = 258  # ids below this are byte fallbacks and control tokens, not words
MAX_TOKENS = 256  # a text's first tokens are enough to say what it is about
LEVELS = 7  # a stored component is one of -7..7 (4 bits)
STORED_BYTES = DIMS // 2


def _files() -> Path:
    """The wordllama package's folder, found without importing it (its imports cost ~27 MB
    of memory and nothing here uses them)."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the wordllama package is missing: run `make install`")
    return Path(next(iter(spec.submodule_search_locations)))


@functools.cache
def _model() -> tuple[Tokenizer, np.ndarray, np.ndarray]:
    """(tokenizer, embedding table cut to DIMS, token weights); loaded once, on first use.
    The table stays float16 (4 MB); the rows a text uses are widened when it is embedded."""
    root = _files()
    tokenizer = Tokenizer.from_file(str(root / "tokenizers" / f"{MODEL}_tokenizer_config.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS)
    with safe_open(str(root / "weights" / f"{MODEL}_256.safetensors"), "np") as weights:
        table = np.ascontiguousarray(weights.get_slice("embedding.weight")[:, :DIMS])
    rank = np.maximum(np.arange(table.shape[0]) - BYTE_TOKENS, 1).astype(np.float64)
    p = (1 / rank) / (1 / rank).sum()
    return tokenizer, table, (SIF_A / (SIF_A + p)).astype(np.float32)


def load() -> None:
    """Load the model now (it loads on first use otherwise)."""
    _model()


def embed(text: str) -> np.ndarray:
    """``text``'s unit vector (DIMS float32); zeros when it has no tokens."""
    tokenizer, table, weights = _model()
    ids = tokenizer.encode(text, add_special_tokens=False).ids
    if not ids:
        return np.zeros(DIMS, np.float32)
    vector = weights[ids] @ table[ids].astype(np.float32)
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


def stored(text: str) -> bytes:
    """What is stored for ``text``: its vector in STORED_BYTES, each component a 4-bit step
    of -7..7 times the largest (only the direction is compared), two to a byte. Empty: b''."""
    vector = embed(text)
    top = float(np.abs(vector).max())
    if top == 0:
        return b""
    steps = (np.rint(vector * (LEVELS / top)) + LEVELS + 1).astype(np.uint8)  # 1..15
    return (steps[0::2] << 4 | steps[1::2]).tobytes()


def _unpacked(packed: bytes, count: int) -> np.ndarray:
    """``count`` stored vectors, back as float32 rows of DIMS."""
    nibbles = np.frombuffer(packed, dtype=np.uint8).reshape(count, STORED_BYTES)
    rows = np.empty((count, DIMS), np.float32)
    rows[:, 0::2] = nibbles >> 4
    rows[:, 1::2] = nibbles & 15
    return rows - (LEVELS + 1)


def stored_b64(text: str) -> str:
    return b64encode(stored(text)).decode()


def similarities(query: np.ndarray, vectors: list[bytes | None]) -> np.ndarray:
    """Cosine of ``query`` (a unit vector) with each stored vector; 0 for a missing one."""
    out = np.zeros(len(vectors), np.float32)
    present = [i for i, v in enumerate(vectors) if v and len(v) == STORED_BYTES]
    if present:
        rows = _unpacked(b"".join(vectors[i] for i in present), len(present))  # type: ignore[misc]
        rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)
        out[present] = rows @ query
    return out
