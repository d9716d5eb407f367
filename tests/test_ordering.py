"""tests/ordering.py: the long test files go first, the others keep their order."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from tests.helpers.paths import ROOT
from tests.ordering import LONG, pytest_collection_modifyitems


def test_every_long_entry_names_a_test_file() -> None:
    missing = [name for name in LONG if not (ROOT / "tests" / name).is_file()]
    assert missing == []


def test_long_files_move_to_the_front_in_their_order_and_the_rest_keep_theirs() -> None:
    ids = [
        "tests/api/test_a.py::test_one",
        f"tests/{LONG[1]}::test_x",
        "tests/api/test_a.py::test_two",
        f"tests/{LONG[0]}::test_y[sqlite]",
        "tests/registry/test_b.py::test_three",
        f"tests/{LONG[0]}::test_y[postgresql]",
    ]
    items: list[Any] = [SimpleNamespace(nodeid=i) for i in ids]
    pytest_collection_modifyitems(items)
    assert [item.nodeid for item in items] == [
        f"tests/{LONG[0]}::test_y[sqlite]",
        f"tests/{LONG[0]}::test_y[postgresql]",
        f"tests/{LONG[1]}::test_x",
        "tests/api/test_a.py::test_one",
        "tests/api/test_a.py::test_two",
        "tests/registry/test_b.py::test_three",
    ]
