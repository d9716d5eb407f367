"""bench.meaning_bench.wordllama_dims: the experiment's WordLlama cut to more dimensions."""

from __future__ import annotations

import numpy as np
import pytest

from bench.meaning_bench import wordllama_dims
from registry.index import vectors


def test_wordllama_dims_cuts_the_table_to_more_dimensions(monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = vectors.MODELS["wordllama"].passage("weather forecast for a city")
    monkeypatch.setattr(vectors, "WORDLLAMA_DIMS", vectors.WORDLLAMA_DIMS)
    monkeypatch.setitem(vectors.MODELS, "wordllama", vectors.MODELS["wordllama"])
    with pytest.raises(RuntimeError, match="loaded already"):
        wordllama_dims(256)  # the 64-dim table is in use: cutting it now would mix the two
    vectors._wordllama.cache_clear()
    try:
        wordllama_dims(256)
        model = vectors.MODELS["wordllama"]
        wide = model.passage("weather forecast for a city")
        assert (model.dims, model.stored_bytes, wide.shape) == (256, 128, (256,))
        assert np.linalg.norm(wide) == pytest.approx(1, abs=1e-5)
        # The first 64 dimensions point the shipped vector's way: the same table, cut later.
        assert float(wide[:64] @ shipped) / float(np.linalg.norm(wide[:64])) > 0.999
    finally:
        vectors._wordllama.cache_clear()
