"""The work of one input check, bounded (for registry.calls.input_check): ``budget()`` gives a
validation MAX_STEPS keyword evaluations and TIME_BUDGET seconds (wall clock, so a busy
server refuses sooner rather than queueing more), past either ``TooComplex``; and
``unique_items`` replaces jsonschema's ``uniqueItems``, which compares every pair of a list
whose items cannot be sorted (4,000 mixed items: 3 to 5 s), with a linear one.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

from jsonschema.exceptions import ValidationError

MAX_STEPS = 200_000
TIME_BUDGET = 2.0  # seconds of checking per input


class TooComplex(Exception):
    """Checking this input against this schema would take more than the budget."""


class _Budget:
    def __init__(self) -> None:
        self.steps = 0
        self.deadline = time.monotonic() + TIME_BUDGET

    def step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise TooComplex(f"checking the input takes more than {MAX_STEPS} steps")
        if not self.steps % 256 and time.monotonic() > self.deadline:
            raise TooComplex(f"checking the input takes more than {TIME_BUDGET:g} s")


_BUDGET: ContextVar[_Budget | None] = ContextVar("schema_budget", default=None)


@contextlib.contextmanager
def budget() -> Iterator[None]:
    """One validation's allowance: each budgeted keyword spends a step."""
    token = _BUDGET.set(_Budget())
    try:
        yield
    finally:
        _BUDGET.reset(token)


Keyword = Callable[[Any, Any, Any, Any], Any]


def budgeted(keywords: dict[str, Keyword]) -> dict[str, Keyword]:
    """``keywords`` each spending a step of the current ``budget()`` when evaluated."""

    def wrap(keyword: Keyword) -> Keyword:
        def spend(
            validator: Any, value: Any, instance: Any, schema: Any
        ) -> Iterator[ValidationError]:
            if (current := _BUDGET.get()) is not None:
                current.step()
            yield from keyword(validator, value, instance, schema) or ()

        return spend

    return {name: wrap(keyword) for name, keyword in keywords.items()}


def _canonical(value: Any) -> Any:
    """A hashable form equal for values JSON Schema calls equal: 1 and 1.0 alike, true and 1
    not, objects whatever their key order."""
    if isinstance(value, bool) or value is None:
        return ("literal", value)
    if isinstance(value, int | float):
        return ("number", int(value) if isinstance(value, float) and value.is_integer() else value)
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, list):
        return ("array", tuple(_canonical(item) for item in value))
    if isinstance(value, dict):
        return ("object", frozenset((key, _canonical(item)) for key, item in value.items()))
    return ("other", repr(value))


def unique_items(
    validator: Any, unique: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """uniqueItems in linear time (jsonschema compares every pair of a mixed list)."""
    if not unique or not validator.is_type(instance, "array"):
        return
    seen: dict[Any, int] = {}
    for index, item in enumerate(instance):
        first = seen.setdefault(_canonical(item), index)
        if first != index:
            yield ValidationError(f"has non-unique elements: item {index} repeats item {first}")
            return
