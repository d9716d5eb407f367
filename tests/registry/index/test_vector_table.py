"""The vector index's rows as arrays (registry.index.vector_rows.Table): a follow that reads some
sites again keeps the others' rows, norms and sign bits, and ends with what a full build of the
same sites in the same order holds."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from registry.index import vector_cache, vectors
from registry.index.vector_index import _Snapshot
from registry.index.vector_rows import SiteRows, Table

DIMS = 64


def _site(seed: int, count: int) -> SiteRows:
    rng = np.random.default_rng(seed)
    vector = rng.normal(size=DIMS).astype(np.float32)
    return SiteRows(
        [f"{seed:012x}{n:012x}" for n in range(count)],
        rng.integers(0, 256, size=(count, DIMS // 2)).astype(np.uint8),  # packed 4-bit steps
        vector / np.linalg.norm(vector),
    )


def _same(a: _Snapshot, b: _Snapshot) -> None:
    assert a.table.hosts == b.table.hosts
    for mine, theirs in [
        (a.table.counts, b.table.counts),
        (a.table.ids, b.table.ids),
        (a.table.steps, b.table.steps),
        (a.table.vectors, b.table.vectors),
        (a.actions.norms, b.actions.norms),
        (a.actions.bits, b.actions.bits),
        (a.sites.steps, b.sites.steps),
        (a.starts, b.starts),
    ]:
        assert np.array_equal(mine, theirs)
    assert a.actions.steps is a.table.steps  # one copy of the rows, not two
    assert a.host_rows == b.host_rows


def test_a_follow_keeps_the_sites_it_did_not_read_and_joins_the_ones_it_did() -> None:
    sites = {f"s{n}.example": _site(n, n % 4) for n in range(9)}  # some sites have no actions
    before = _Snapshot.of(Table.of(sites, DIMS))
    again = {"s2.example": _site(102, 5), "s9.example": _site(109, 1)}  # changed, and new
    after = before.changed({"s2.example", "s5.example"}, Table.of(again, DIMS))  # s5 is gone
    order = [h for h in sites if h not in ("s2.example", "s5.example")]
    expected = {**{h: sites[h] for h in order}, **again}
    _same(after, _Snapshot.of(Table.of(expected, DIMS)))
    assert after.table.ids[after.starts[-3]].decode() == f"{102:012x}{0:012x}"  # s2's first
    # nothing dropped, nothing read: the very same arrays
    same = after.changed(set(), Table.empty(DIMS))
    assert same.table is after.table and same.actions.norms is after.actions.norms


def test_an_empty_table_and_its_file(tmp_path: Path) -> None:
    model = vectors.active()
    empty = _Snapshot.of(Table.empty(model.kept_dims))
    assert len(empty.table) == 0 and empty.starts.tolist() == [0]
    assert vector_cache.save(tmp_path, model, empty.table, 7)
    loaded = vector_cache.load(tmp_path, model)
    assert loaded is not None and len(loaded[0]) == 0 and loaded[1] == 7


def test_a_file_with_its_ids_as_text_is_not_used(tmp_path: Path) -> None:
    """The file before the ids were bytes held them as one text: it is read again, not
    misread."""
    model = vectors.active()
    table = Table.of({"a.example": _site(1, 2)}, model.kept_dims)
    assert vector_cache.save(tmp_path, model, table, 3)
    assert vector_cache.load(tmp_path, model) is not None
    text = np.frombuffer("\n".join(i.decode() for i in table.ids).encode(), np.uint8)
    with vector_cache.path_for(tmp_path, model).open("wb") as out:
        np.savez(
            out,
            watermark=np.int64(3),
            hosts=np.frombuffer(b"a.example", np.uint8),
            counts=table.counts,
            ids=text,
            steps=table.steps,
            sites=table.vectors,
        )
    assert vector_cache.load(tmp_path, model) is None
