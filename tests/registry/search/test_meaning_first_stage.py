"""The first stage by meaning (registry.index.vector_index, registry.search.meaning): an action
whose words never meet a sentence's is still a candidate, found by its vector or its site's.
The ``index`` fixture keeps a vector index, as ACTIONDEX_MEANING_FIRST_STAGE=true makes the
searching processes do (``test_the_setting_decides_...``); off, the default, they keep none."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tantivy
from sqlalchemy.orm import Session

from actiondex.runtime import open_index
from registry.config import Settings
from registry.index import ActionIndex, vectors
from registry.index.nearest import EXACT_ROWS, Matrix
from registry.search import FindQuery, meaning, search
from tests.helpers.stores import add_site, committed_store

# Shares no word with the weather action: BM25 alone never makes it a candidate.
UMBRELLA = "will I need an umbrella on Saturday"


def _sites(session: Session) -> None:
    add_site(
        session,
        "sky.example",
        [
            {
                "name": "forecast",
                "title": "Weather forecast",
                "description": "Rain, temperature and wind for any city, hour by hour",
            },
        ],
        name="Sky",
        description="Weather forecasts",
    )
    add_site(
        session,
        "shop.example",
        [
            {
                "name": "need_help",
                "title": "Need help with an order",
                "description": "Contact the shop about an order you placed",
            },
        ],
        name="Shop",
        description="Garden furniture",
    )


@pytest.fixture
def index(session: Session, tmp_path: Path) -> ActionIndex:
    _sites(session)
    idx = ActionIndex.open(tmp_path / "index", vectors=True)
    idx.sync(session)
    return idx


def test_a_sentence_finds_an_action_that_shares_no_word_with_it(index: ActionIndex) -> None:
    assert index.vectors is not None and len(index.vectors) == 2
    keys = [h.key for h in search(index, FindQuery(q=UMBRELLA)).hits]
    assert keys[0] == "forecast"
    page = search(index, FindQuery(q=UMBRELLA, explain=True))
    for hit in page.hits:  # the explanation still sums to the score
        assert sum(p["score"] for p in hit.explain) == pytest.approx(hit.score, rel=1e-3)


def test_without_vectors_only_words_find(session: Session, tmp_path: Path) -> None:
    _sites(session)
    idx = ActionIndex.open(tmp_path / "index")
    idx.sync(session)
    assert [h.key for h in search(idx, FindQuery(q=UMBRELLA)).hits] == []


def test_the_setting_decides_whether_a_vector_index_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A store of its own, committed: open_index reads it in transactions of its own.
    engine = committed_store(tmp_path, _sites)
    monkeypatch.delenv("ACTIONDEX_MEANING_FIRST_STAGE", raising=False)
    assert Settings(_env_file=None).meaning_first_stage is False  # type: ignore[call-arg]
    off = open_index(Settings(data_dir=tmp_path / "off"), engine, searching=True)
    # No action's vector searched (the site stage, on by default, keeps the sites' only)
    assert off.vectors is not None and not off.vectors.actions
    assert off.count() == 2 and search(off, FindQuery(q=UMBRELLA)).hits == []  # words alone
    monkeypatch.setenv("ACTIONDEX_MEANING_FIRST_STAGE", "true")
    on = open_index(Settings(data_dir=tmp_path / "on"), engine, searching=True)
    assert on.vectors is not None and on.vectors.actions and len(on.vectors) == 2
    assert [h.key for h in search(on, FindQuery(q=UMBRELLA)).hits][:1] == ["forecast"]
    # A command that only writes (ingest, crawl) never keeps one, whatever the setting.
    assert open_index(Settings(data_dir=tmp_path / "w"), engine).vectors is None
    engine.dispose()


def test_the_vector_stage_keeps_to_the_filters(index: ActionIndex) -> None:
    # The forecast is the nearest by meaning, but not on the site asked for: only the shop's
    # action may come (a garden furniture shop, near enough to an umbrella at 128 dims).
    hits = search(index, FindQuery(q=UMBRELLA, site=["shop.example"])).hits
    assert [(h.site, h.key) for h in hits] in ([], [("shop.example", "need_help")])
    assert [h.key for h in search(index, FindQuery(q=UMBRELLA)).hits][:1] == ["forecast"]


def test_the_vector_index_follows_the_store(session: Session, index: ActionIndex) -> None:
    add_site(
        session,
        "fly.example",
        [{"name": "fares", "title": "Airfare search", "description": "Compare airline fares"}],
        name="Fly",
    )
    index.sync(session)
    assert index.vectors is not None and len(index.vectors) == 3
    keys = [
        h.key for h in search(index, FindQuery(q="cheapest way to get to Lisbon by plane")).hits
    ]
    assert keys[0] == "fares"


def test_a_sites_nearest_action_is_a_candidate(
    index: ActionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(meaning, "VECTOR_ACTIONS", 0)  # by the site's vector alone
    keys = [h.key for h in search(index, FindQuery(q=UMBRELLA)).hits]
    assert keys[0] == "forecast"


def test_exact_search_over_many_rows_keeps_the_nearest() -> None:
    rng = np.random.default_rng(7)
    centres = rng.standard_normal((50, 64))
    rows = centres[rng.integers(0, 50, EXACT_ROWS * 2)] + 0.3 * rng.standard_normal(
        (EXACT_ROWS * 2, 64)
    )
    steps = np.rint(rows / np.abs(rows).max(axis=1, keepdims=True) * 7).astype(np.int8)
    matrix = Matrix.of(steps)
    query = (centres[3] / np.linalg.norm(centres[3])).astype(np.float32)
    found, cosines = matrix.nearest(query, 20)
    exact = np.argsort(-matrix.cosines(query))[:20]
    assert len(set(found) & set(exact)) >= 18
    assert list(cosines) == sorted(cosines, reverse=True)


def test_packed_steps_score_as_their_int8_widening() -> None:
    """The vector index keeps an action's 4-bit steps packed two to a byte, as stored: half
    the memory of int8, the same norms, sign bits, cosines and nearest rows."""
    rng = np.random.default_rng(3)
    steps = rng.integers(-7, 8, size=(EXACT_ROWS + 500, 64)).astype(np.int8)
    steps[5] = 0  # an all-zero row: cosine 0, not a division by zero
    nibbles = (steps + 8).astype(np.uint8)
    packed = nibbles[:, 0::2] << 4 | nibbles[:, 1::2]
    wide, small = Matrix.of(steps), Matrix.of(packed)
    assert small.steps.nbytes * 2 == wide.steps.nbytes
    assert np.array_equal(small.norms, wide.norms) and np.array_equal(small.bits, wide.bits)
    query = rng.standard_normal(64).astype(np.float32)
    query /= np.linalg.norm(query)
    assert np.allclose(small.cosines(query), wide.cosines(query))
    assert small.cosines(query)[5] == 0
    for a, b in zip(small.nearest(query, 30), wide.nearest(query, 30), strict=True):
        assert np.allclose(a, b)


def test_stored_vectors_are_read_as_the_build_works_them_out(
    session: Session, index: ActionIndex
) -> None:
    from registry.index.vector_index import VectorIndex
    from registry.index.vectors import query
    from registry.store.parts_refresh import refresh_index_parts

    assert index.vectors is not None
    worked_out = index.vectors.search(query(UMBRELLA), 5, 2)
    kept = index.vectors._snapshot.table.steps  # packed as stored: 32 bytes a row
    assert kept.dtype == np.uint8 and kept.shape[1] == 32  # the first 64 dims
    assert vectors.active().stored_bytes == 64  # of the 128 stored
    assert refresh_index_parts(session) == 2  # now each row holds its own part, vector last
    stored = VectorIndex()
    stored.follow(session)
    read = stored.search(query(UMBRELLA), 5, 2)
    assert read.ids == worked_out.ids and read.best_of_sites == worked_out.best_of_sites
    assert read.cosines == pytest.approx(worked_out.cosines)


def test_a_site_gone_from_the_store_leaves_the_vector_index(
    session: Session, index: ActionIndex
) -> None:
    from sqlalchemy import delete

    from registry.db.tables import Site

    session.execute(delete(Site).where(Site.host == "sky.example"))
    session.flush()
    index.sync(session)  # a plain sync reads only changed sites: the deletion is unseen
    assert index.vectors is not None and len(index.vectors) == 2
    index.sync(session, full=True)
    assert len(index.vectors) == 1
    assert "forecast" not in [h.key for h in search(index, FindQuery(q=UMBRELLA)).hits]


def test_rank_fusion_ranks_a_candidate_of_both_lists_above_one_of_either(
    index: ActionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    q = "will I need an umbrella when my order comes on Saturday"
    # "order" is the one word match; the forecast is found by meaning alone.
    monkeypatch.setattr(meaning, "FUSION", "rrf")
    page = search(index, FindQuery(q=q, explain=True))
    assert [h.key for h in page.hits] == ["need_help", "forecast"]
    for hit in page.hits:  # the explanation still sums to the score
        assert sum(p["score"] for p in hit.explain) == pytest.approx(hit.score, rel=1e-3)


def test_rank_fusion_keeps_its_candidates_above_the_rest_and_may_lower_one() -> None:
    top = [(10.0, tantivy.DocAddress(0, d)) for d in range(3)]
    top = [(10.0 - d, address) for d, (_, address) in enumerate(top)]  # BM25: 10, 9, 8
    cosines = np.array([0.1, 0.9, 0.5], np.float32)  # meaning ranks them 3rd, 1st, 2nd
    bonus = meaning._fused(top, cosines, words=3, low=8.0, spread=2.0)
    fused = {address.doc: score + bonus[(0, address.doc)] for score, address in top}
    assert sorted(fused, key=lambda d: -fused[d]) == [1, 0, 2]
    assert min(fused.values()) >= 8.0 and max(fused.values()) <= 10.0
    assert bonus[(0, 0)] < 0  # first by words, last by meaning: lowered, and said so
    assert meaning.explained(bonus, top[0][1])[0]["score"] < 0
