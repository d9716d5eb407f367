"""bench.meaning_bench.wordllama_dims: the experiment's WordLlama cut to fewer dimensions."""

from __future__ import annotations

import numpy as np
import pytest

from bench.meaning_bench import wordllama_dims
from registry.index import vectors

TEXT = "weather forecast for a city"


def test_wordllama_dims_cuts_the_table_to_fewer_dimensions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shipped = vectors.MODELS["wordllama"].passage(TEXT)
    assert shipped.shape == (256,)
    monkeypatch.setattr(vectors, "WORDLLAMA_DIMS", vectors.WORDLLAMA_DIMS)
    monkeypatch.setitem(vectors.MODELS, "wordllama", vectors.MODELS["wordllama"])
    with pytest.raises(RuntimeError, match="loaded already"):
        wordllama_dims(64)  # the 256-dim table is in use: cutting it now would mix the two
    vectors._wordllama.cache_clear()
    try:
        wordllama_dims(64)
        model = vectors.MODELS["wordllama"]
        cut = model.passage(TEXT)
        assert (model.dims, model.kept_dims, model.stored_bytes, cut.shape) == (64, 64, 32, (64,))
        assert np.linalg.norm(cut) == pytest.approx(1, abs=1e-5)
        # The same table, cut: the shipped vector's first 64 dimensions point the same way.
        head = shipped[:64] / np.linalg.norm(shipped[:64])
        assert float(cut @ head) > 0.999
    finally:
        vectors._wordllama.cache_clear()
