"""Meaning beside words: a small vector per action, to re-rank what BM25 found for a sentence.

BM25 only sees shared words, and an agent's sentence often shares none with the action it
needs ("I'm baking bread with yeast" -> a recipe search). Each action gets a vector of its
text when it is stored; a request of several words is compared with the vectors of its best
BM25 candidates, and the similarity is added to their scores (``registry.search``).

The vectors are WordLlama's static token embeddings (the ``wordllama`` wheel ships them; no
download): a text's vector is the weighted mean of its tokens' rows, each token weighted
SIF-style a / (a + p), p taken from the token's rank in the vocabulary (ids of this BPE
vocabulary follow merge order, roughly frequency), so no corpus statistics are needed and a
vector never changes once stored. The table is cut to its first DIMS dimensions (the model is
trained to allow it) and a stored vector is DIMS signed bytes: 64 bytes an action.
Measured on ToolLens and the held-out MetaTool set (README, Benchmarks): 64 dims in int8 score
like 256 in float32 within 0.01 NDCG@10.
"""

from __future__ import annotations

import functools
import importlib.resources
from base64 import b64encode

import numpy as np
from safetensors import safe_open
from tokenizers import Tokenizer

MODEL = "l2_supercat"
DIMS = 64
SIF_A = 1e-3
BYTE_TOKENS = 258  # ids below this are byte fallbacks and control tokens, not words
MAX_TOKENS = 256  # a text's first tokens are enough to say what it is about


@functools.cache
def _model() -> tuple[Tokenizer, np.ndarray, np.ndarray]:
    """(tokenizer, embedding table cut to DIMS, token weights); loaded once, on first use."""
    root = importlib.resources.files("wordllama")
    tokenizer = Tokenizer.from_file(str(root / "tokenizers" / f"{MODEL}_tokenizer_config.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS)
    with safe_open(str(root / "weights" / f"{MODEL}_256.safetensors"), "np") as weights:
        table = np.ascontiguousarray(weights.get_tensor("embedding.weight")[:, :DIMS],
                                     dtype=np.float32)
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
    vector = weights[ids] @ table[ids]
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


def stored(text: str) -> bytes:
    """What is stored for ``text``: its vector as DIMS signed bytes (scaled to the largest
    component; only the direction is compared). Empty text: b''."""
    vector = embed(text)
    top = float(np.abs(vector).max())
    if top == 0:
        return b""
    return np.rint(vector * (127 / top)).astype(np.int8).tobytes()


def stored_b64(text: str) -> str:
    return b64encode(stored(text)).decode()


def similarities(query: np.ndarray, vectors: list[bytes | None]) -> np.ndarray:
    """Cosine of ``query`` (a unit vector) with each stored vector; 0 for a missing one."""
    out = np.zeros(len(vectors), np.float32)
    present = [i for i, v in enumerate(vectors) if v and len(v) == DIMS]
    if present:
        rows = np.frombuffer(b"".join(vectors[i] for i in present),  # type: ignore[misc]
                             dtype=np.int8).reshape(len(present), DIMS).astype(np.float32)
        rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)
        out[present] = rows @ query
    return out
