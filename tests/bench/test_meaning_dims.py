"""bench.meaning_bench.wordllama_dims: the experiment's WordLlama at other dimensions, the vector
index keeping the first 64 of each (registry.index.vectors.Model.kept)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.meaning_bench import wordllama_dims
from registry.index import vectors

TEXT = "weather forecast for a city"


def test_wordllama_dims_widens_the_vectors_and_the_index_keeps_64(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shipped = vectors.MODELS["wordllama"].passage(TEXT)
    assert shipped.shape == (128,) and vectors.MODELS["wordllama"].kept_dims == 64
    monkeypatch.setattr(vectors, "WORDLLAMA_DIMS", vectors.WORDLLAMA_DIMS)
    monkeypatch.setitem(vectors.MODELS, "wordllama", vectors.MODELS["wordllama"])
    with pytest.raises(RuntimeError, match="loaded already"):
        wordllama_dims(256)  # the 128-dim table is in use: widening it now would mix the two
    vectors._wordllama.cache_clear()
    try:
        wordllama_dims(256)
        model = vectors.MODELS["wordllama"]
        wide = model.passage(TEXT)
        assert (model.dims, model.kept_dims, model.stored_bytes, wide.shape) == (
            256,
            64,
            128,
            (256,),
        )
        assert np.linalg.norm(wide) == pytest.approx(1, abs=1e-5)
        # The same table, wider: its first 128 dimensions point the shipped vector's way.
        assert float(wide[:128] @ shipped) / float(np.linalg.norm(wide[:128])) > 0.999
        # What the vector index keeps: the first 32 of the 128 bytes, and a request cut the
        # same way, a unit vector again.
        packed = vectors.quantised(wide)
        assert len(packed) == 128 and model.kept(packed) == packed[:32]
        cut = model.kept_query(model.query("will it rain tomorrow"))
        assert cut.shape == (64,) and np.linalg.norm(cut) == pytest.approx(1, abs=1e-5)
    finally:
        vectors._wordllama.cache_clear()
