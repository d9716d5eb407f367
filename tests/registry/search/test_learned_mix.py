"""registry.search.learned, the learned mix of the first stage by meaning (meaning.FUSION
"learned") and the net that re-ranks BM25's candidates alone (meaning.RERANK "learned"), and
the fits that make them (bench.learned_mix, bench.rerank_net)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tantivy
from sqlalchemy.orm import Session

from bench.learned_mix import fit
from bench.rerank_net import averaged, fit_net
from registry.index import ActionIndex, vectors
from registry.search import FindQuery, learned, meaning, search
from tests.helpers.stores import add_site

UMBRELLA = "will I need an umbrella on Saturday"  # shares no word with the forecast
TWO_PARTS = "I am planning a picnic for Saturday, and I need a new tent for the trip"


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
            {
                "name": "buy_tent",
                "title": "Buy a tent",
                "description": "Camping tents for two to six people",
            },
        ],
        name="Shop",
        description="Camping gear",
    )


@pytest.fixture
def index(session: Session, tmp_path: Path) -> ActionIndex:
    _sites(session)
    idx = ActionIndex.open(tmp_path / "index", vectors=True)
    idx.sync(session)
    return idx


def test_the_weights_cover_every_feature() -> None:
    assert learned.WEIGHTS.shape == (len(learned.FEATURES) + 1,)
    # Fitted, not the placeholder: meaning, words and BM25 each count for something.
    named = dict(zip(learned.FEATURES, learned.WEIGHTS, strict=False))
    assert named["bm25"] + named["bm25_of_top"] > 0 and named["bm25_rr"] > 0
    assert named["cosine"] > 0 and named["facet_cosine"] > 0


def _candidate(**features: float) -> list[float]:
    return [features.get(name, 0.0) for name in learned.FEATURES]


def test_the_rerank_net_puts_the_best_by_words_and_meaning_first() -> None:
    # BM25's first, nearest by meaning, its name in the request; against BM25's fiftieth,
    # far by meaning: the shipped net (fitted, not a placeholder) knows which is wanted.
    best = _candidate(
        bm25=1, bm25_rr=1, by_words=1, cosine=0.6, cosine_rr=1, name_words=0.5,
        facet_cosine=0.6, bm25_x_cosine=0.6, bm25_of_top=1,
    )  # fmt: skip
    worst = _candidate(
        bm25_rr=1 / 50, by_words=1, cosine=0.1, cosine_gap=-0.5, cosine_rr=1 / 50,
        bm25_log_rank=1, cosine_log_rank=1, bm25_of_top=0.2, facet_cosine=0.1, facet_gap=-0.5,
    )  # fmt: skip
    rows = np.array([worst, best])
    chances = learned.RERANK_NET.chances(rows)
    assert chances[1] == 1.0 and 0.0 < chances[0] < 1.0


def test_the_rerank_net_is_read_back_as_written(tmp_path: Path) -> None:
    rows = np.random.default_rng(1).random((20, len(learned.FEATURES)))
    path = tmp_path / "net.json"
    path.write_text(learned.RERANK_NET.json())
    again = learned.Net.read(path)
    assert again.raw(rows) == pytest.approx(learned.RERANK_NET.raw(rows), abs=1e-4)
    assert again.fitted == learned.RERANK_NET.fitted
    other = learned.RERANK_NET.json().replace('"bm25_of_top"', '"something_else"')
    path.write_text(other)
    with pytest.raises(ValueError, match="other features"):
        learned.Net.read(path)


@pytest.mark.parametrize("setting", ["FUSION", "RERANK"])
def test_the_learned_mix_finds_by_meaning_and_explains_its_scores(
    index: ActionIndex, monkeypatch: pytest.MonkeyPatch, setting: str
) -> None:
    monkeypatch.setattr(meaning, setting, "learned")
    if setting == "RERANK":
        index.vectors = None  # the first stage off: BM25's candidates alone, re-ranked
    q = "will I need an umbrella when my order comes on Saturday"
    page = search(index, FindQuery(q=q, explain=True))
    keys = [h.key for h in page.hits]
    assert "need_help" in keys  # the one word match ("order")
    assert ("forecast" in keys) is (setting == "FUSION")  # found by meaning alone
    for hit in page.hits:  # the explanation still sums to the score
        assert sum(p["score"] for p in hit.explain) == pytest.approx(hit.score, rel=1e-3)
    if setting == "FUSION":
        assert search(index, FindQuery(q=UMBRELLA)).hits[0].key == "forecast"
        kept = search(index, FindQuery(q=UMBRELLA, site=["shop.example"])).hits
        assert "forecast" not in [h.key for h in kept]


def test_the_learned_scores_keep_the_candidates_above_the_rest(
    index: ActionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(meaning, "RERANK", "learned")
    docs = index.searcher()
    found = docs.search(tantivy.Query.all_query(), 10).hits
    found = [(10.0 - i, address) for i, (_, address) in enumerate(found)]  # BM25: 10, 9, 8
    rest = [(1.0, tantivy.DocAddress(9, 9))]  # past the candidates
    monkeypatch.setattr(meaning, "CANDIDATES", len(found))
    ranked, bonus = meaning.by_meaning(docs, TWO_PARTS, found + rest)
    assert ranked[-1] == rest[0]
    assert min(score for score, _ in ranked[:-1]) >= 8.0 > rest[0][0]
    assert len(bonus) == len(found)


def test_a_part_of_the_request_is_weighed_alone() -> None:
    tent = vectors.stored("Buy a tent: camping tents for two to six people")
    whole = vectors.similarities(vectors.query(TWO_PARTS), [tent])
    parts = learned.facet_cosines(TWO_PARTS, [tent], whole)
    alone = vectors.similarities(vectors.query("I need a new tent for the trip"), [tent])
    assert parts[0] == pytest.approx(max(whole[0], alone[0]))
    assert parts[0] > whole[0]  # the part that asks for it says so more than the whole
    one_part = learned.facet_cosines(UMBRELLA, [tent], whole)
    assert one_part[0] == whole[0]


def test_the_features_are_per_request_and_read_the_names(index: ActionIndex) -> None:
    docs = index.searcher()
    top = [(s, a) for s, a in docs.search(tantivy.Query.all_query(), 10).hits]
    top = [(30.0 - 10 * i, address) for i, (_, address) in enumerate(top)]  # 30, 20, 10
    cosines = np.array([0.1, 0.5, 0.3])
    rows = learned.features(docs, ["tent"], top, 2, cosines, np.zeros(3), cosines)
    col = {name: rows[:, i] for i, name in enumerate(learned.FEATURES)}
    assert list(col["bm25"]) == [1.0, 0.0, 0.0] and list(col["by_words"]) == [1, 1, 0]
    assert list(col["cosine_gap"]) == pytest.approx([-0.4, 0.0, -0.2])
    assert list(col["cosine_rr"]) == pytest.approx([1 / 3, 1.0, 0.5])
    keys = [docs.doc(a).get_first("key") for _, a in top]
    assert [col["name_words"][i] > 0 for i in range(3)] == [k == "buy_tent" for k in keys]


def test_the_site_stages_candidates_leave_the_words_candidates_features_alone(
    index: ActionIndex,
) -> None:
    # The third candidate came from the site stage, with the best cosine of all: BM25's two
    # keep the gaps and ranks they have without it, and it is ranked among them.
    docs = index.searcher()
    top = [(s, a) for s, a in docs.search(tantivy.Query.all_query(), 10).hits]
    top = [(30.0 - 10 * i, address) for i, (_, address) in enumerate(top)]
    cosines, site = np.array([0.1, 0.5, 0.9]), np.array([0.2, 0.4, 0.8])
    alone = learned.features(docs, ["tent"], top[:2], 2, cosines[:2], site[:2], cosines[:2])
    rows = learned.features(docs, ["tent"], top, 2, cosines, site, cosines, 2)
    assert rows[:2] == pytest.approx(alone)
    col = {name: rows[:, i] for i, name in enumerate(learned.FEATURES)}
    assert col["cosine_gap"][2] == pytest.approx(0.4) and col["cosine_rr"][2] == 1.0
    assert col["site_gap"][2] == pytest.approx(0.4)


def test_the_fit_ranks_the_wanted_first() -> None:
    rng = np.random.default_rng(3)
    truth = rng.standard_normal(len(learned.FEATURES))
    rows = []
    for _ in range(200):
        x = rng.random((30, len(learned.FEATURES)))
        wanted = np.zeros(30)
        wanted[np.argsort(-(x @ truth))[:2]] = 1.0
        rows.append((x, wanted, 1.0))
    for pairwise in (False, True):
        w = fit(rows, 1e-4, pairwise)
        agree = w[:-1] @ truth / np.linalg.norm(w[:-1]) / np.linalg.norm(truth)
        assert agree > 0.9  # the direction that ranks them


@pytest.mark.parametrize("units", [0, 4])
def test_the_net_fit_ranks_the_wanted_first(units: int) -> None:
    # Wanted: the candidates highest by a hidden direction, plus (for the net) a feature
    # that only counts together with another one, which no linear model can weigh.
    rng = np.random.default_rng(3)
    truth = rng.standard_normal(len(learned.FEATURES))

    def lists(count: int) -> list[tuple[np.ndarray, np.ndarray, float]]:
        out = []
        for _ in range(count):
            x = rng.random((30, len(learned.FEATURES)))
            wanted = np.zeros(30)
            wanted[np.argmax(x @ truth + (3 * x[:, 0] * x[:, 1] if units else 0))] = 1.0
            out.append((x, wanted, 1.0))
        return out

    net = fit_net(lists(300), 1e-4, units, steps=300, rate=0.05)
    held = lists(100)
    first = np.mean([y[np.argmax(net.raw(x))] for x, y, _ in held])
    assert first > 0.6  # a list of 30 by chance: 0.03


def test_averaged_nets_score_the_mean_of_theirs() -> None:
    rng = np.random.default_rng(5)
    rows = [
        (rng.random((10, len(learned.FEATURES))), np.eye(10)[rng.integers(10)], 1.0)
        for _ in range(20)
    ]
    nets = [fit_net(rows, 1e-3, 3, steps=20, seed=seed) for seed in range(3)]
    mean = averaged(nets, "three seeds")
    x = rng.random((7, len(learned.FEATURES)))
    assert mean.raw(x) == pytest.approx(np.mean([n.raw(x) for n in nets], axis=0))
    assert mean.hidden.shape == (len(learned.FEATURES), 9) and mean.fitted == "three seeds"
    other = fit_net(rows[:10], 1e-3, 3, steps=20)
    with pytest.raises(ValueError, match="other rows"):
        averaged([nets[0], other])
