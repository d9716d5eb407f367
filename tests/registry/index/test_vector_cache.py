"""The vector index's rows on disk (registry.index.vector_cache): a process that searches loads
them and reads from the store only the sites changed since, instead of every action's vector."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from registry.db.engine import transaction
from registry.index import vector_cache
from registry.index.vector_index import VectorIndex
from tests.helpers.stores import add_site, committed_store

UMBRELLA = "will I need an umbrella on Saturday"


def _fill(session: Session) -> None:
    for host, name, title in [
        ("sky.example", "forecast", "Weather forecast: rain and wind by the hour"),
        ("shop.example", "order_help", "Contact the shop about an order"),
    ]:
        add_site(session, host, [{"name": name, "title": title}], name=host.split(".")[0])


def _add_fly(engine: Engine) -> None:
    with transaction(engine) as session:
        add_site(session, "fly.example", [{"name": "fares", "title": "Airfare search"}])


def _follow(engine: Engine, index: VectorIndex) -> int:
    with transaction(engine) as session:
        return index.follow(session)


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    (tmp_path / "index").mkdir()
    engine = committed_store(tmp_path, _fill)
    yield engine
    engine.dispose()


def test_a_second_process_reads_only_the_sites_changed_since_the_save(
    engine: Engine, tmp_path: Path
) -> None:
    cache = tmp_path / "index"
    assert _follow(engine, VectorIndex(cache=cache)) == 2  # the first reads every site, saves
    assert vector_cache.path_for(cache, VectorIndex().model).is_file()
    _add_fly(engine)
    loaded = VectorIndex(cache=cache)
    assert _follow(engine, loaded) == 1  # fly.example only; the others came from the file
    fresh = VectorIndex()  # no file: every site read from the store
    assert _follow(engine, fresh) == 3
    assert len(loaded) == len(fresh) == 3
    for request in (UMBRELLA, "cheap flight to Lisbon", "where is my parcel"):
        query = fresh.model.query(request)
        mine, theirs = loaded.search(query, 5, 5), fresh.search(query, 5, 5)
        assert (mine.ids, mine.best_of_sites) == (theirs.ids, theirs.best_of_sites)
        assert mine.cosines == pytest.approx(theirs.cosines, abs=1e-6)  # rows in another order


def test_a_file_not_to_trust_is_ignored_and_written_again(engine: Engine, tmp_path: Path) -> None:
    cache = tmp_path / "index"
    _follow(engine, VectorIndex(cache=cache))
    path = vector_cache.path_for(cache, VectorIndex().model)
    good = path.read_bytes()
    for bad in (b"not a numpy file", good[: len(good) // 2]):
        path.write_bytes(bad)
        assert _follow(engine, VectorIndex(cache=cache)) == 2  # a full read
        assert vector_cache.load(cache, VectorIndex().model) is not None  # and a good file
    # rows of another width (say, another model's under the same name) are not used either
    model = VectorIndex().model
    loaded = vector_cache.load(cache, model)
    assert loaded is not None
    table, mark = loaded
    table.steps = np.zeros((len(table.ids), model.kept_dims // 2 + 1), np.uint8)
    assert vector_cache.save(cache, model, table, mark)
    assert vector_cache.load(cache, model) is None
    # nor a file of before, its steps widened to int8, though its width is right
    table.steps = np.zeros((len(table.ids), model.kept_dims), np.int8)
    assert vector_cache.save(cache, model, table, mark)
    assert vector_cache.load(cache, model) is None


def test_a_process_that_read_enough_again_saves_for_the_next(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "index"
    running = VectorIndex(cache=cache)
    _follow(engine, running)
    monkeypatch.setattr(vector_cache, "SAVE_MIN", 1)
    _add_fly(engine)
    assert _follow(engine, running) == 1  # read again, and saved: one site is enough now
    assert _follow(engine, VectorIndex(cache=cache)) == 0
