"""registry.index.vectors and registry.search.meaning, the re-rank by meaning (a sentence's first
BM25 candidates gain the cosine of their vector with the request's)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sqlalchemy.orm import Session

from registry.index import ActionIndex, vectors
from registry.search import FindQuery, meaning, search
from registry.search import plan as search_module
from tests.helpers.stores import add_site

SENTENCE = "I am baking bread at home tonight and want some ideas"


def test_vectors_are_small_fixed_and_say_what_text_means() -> None:
    bread = vectors.stored("Recipes for bread, cakes and pastry")
    assert len(bread) == vectors.active().stored_bytes == 64 and bread == vectors.stored(
        "Recipes for bread, cakes and pastry"
    )
    assert vectors.stored("") == b"" and not vectors.query("").any()
    shoes, query = vectors.stored("Buy running shoes"), vectors.query("what can I bake")
    near, far, missing = vectors.similarities(query, [bread, shoes, None])
    assert near > far and missing == 0.0
    assert np.linalg.norm(query) == pytest.approx(1.0, abs=1e-5)
    # Four bits a component keep the direction: the stored vector is the text's own.
    assert (
        vectors.similarities(vectors.query("Recipes for bread, cakes and pastry"), [bread])[0]
        > 0.98
    )


@pytest.fixture
def index(session: Session, tmp_path: Path) -> ActionIndex:
    add_site(
        session,
        "kitchen.example",
        [
            {
                "name": "recipes",
                "title": "Recipe search",
                "description": "Find baking recipes: bread, cakes, pastry and dough ideas",
            },
        ],
        name="Kitchen",
        description="Cooking and baking recipes",
    )
    add_site(
        session,
        "cover.example",
        [
            {
                "name": "home_quote",
                "title": "Home insurance quote",
                "description": "Get ideas for insurance cover for your home tonight",
            },
        ],
        name="Cover",
        description="Home and contents insurance",
    )
    # A weak candidate (one word: "ideas") widens the spread of BM25 scores the cosine is
    # scaled by, as the tail of the first fifty candidates does in a real index.
    add_site(
        session,
        "gifts.example",
        [
            {"name": "gift_ideas", "title": "Gift ideas", "description": "Presents for anyone"},
        ],
        name="Gifts",
    )
    idx = ActionIndex.open(tmp_path / "index")
    idx.sync(session)
    return idx


def _bm25_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(meaning, "MIN_WORDS", 10**6)


def test_a_sentence_is_reranked_by_meaning(
    index: ActionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as m:
        _bm25_only(m)
        words_only = [h.key for h in search(index, FindQuery(q=SENTENCE)).hits]
    # More of the sentence's words: home, tonight, ideas.
    assert words_only == ["home_quote", "recipes", "gift_ideas"]
    page = search(index, FindQuery(q=SENTENCE, explain=True))
    assert [h.key for h in page.hits] == ["recipes", "home_quote", "gift_ideas"]
    for hit in page.hits:  # the explanation still sums to the score, meaning included
        assert sum(p["score"] for p in hit.explain) == pytest.approx(hit.score, rel=1e-3)
    assert any(p["term"] == "(meaning)" for p in page.hits[0].explain)


def test_a_short_request_is_ranked_by_its_words_alone(
    index: ActionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*args: object) -> object:
        raise AssertionError("a short request was re-ranked")

    monkeypatch.setattr(meaning, "by_meaning", never)
    hits = search(index, FindQuery(q="home insurance quote")).hits
    assert [h.key for h in hits][0] == "home_quote"


def test_meaning_only_reorders_the_candidates_and_never_lowers_a_score(
    index: ActionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(meaning, "RERANK", "mix")  # the learned mix may lower one (its tests)
    searcher = index.searcher()
    found = searcher.search(
        search_module.build_query(
            search_module.term_parts({"home": 1.0, "bake": 1.0, "idea": 1.0}), FindQuery(q="x")
        ),
        10,
    ).hits
    assert len(found) == 3
    monkeypatch.setattr(meaning, "CANDIDATES", 1)  # one candidate: no change
    assert meaning.by_meaning(searcher, SENTENCE, found) == (found, {})
    monkeypatch.setattr(meaning, "CANDIDATES", 50)
    rescored, bonus = meaning.by_meaning(searcher, SENTENCE, found)
    assert sorted(key for key in bonus) == sorted((a.segment_ord, a.doc) for _, a in found)
    assert all(gain >= 0 for gain in bonus.values())
    before = {(a.segment_ord, a.doc): s for s, a in found}
    for score, address in rescored:
        key = (address.segment_ord, address.doc)
        assert score == pytest.approx(before[key] + bonus[key])
    assert [s for s, _ in rescored] == sorted((s for s, _ in rescored), reverse=True)


def test_the_index_keeps_each_actions_vector(index: ActionIndex) -> None:
    searcher = index.searcher()
    [(_, address)] = searcher.search(
        search_module.build_query(search_module.term_parts({"recip": 1.0}), FindQuery(q="x")), 1
    ).hits
    vector = searcher.doc(address).get_first("vec")
    # Worked out at build time here (the rows were stored without index parts), with the
    # site's name and description, as registry.store.rows does when it stores an action.
    # The text: name, title, effect word, description, then the site's name and description.
    assert vector == vectors.stored(
        "recipes Recipe search read Find baking recipes: bread, cakes, pastry and dough ideas "
        "Kitchen Cooking and baking recipes"
    )
