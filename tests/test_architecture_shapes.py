"""One public shape per resource: the action's fields are written once, in the registry
(registry.model.public.ActionFields), and the doors (api/ for REST and MCP) subclass the
registry's models rather than write the fields out again; the strict base model, the
"absent" rule and the run and submission states are defined once."""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Iterator

from pydantic import BaseModel

from registry.model.public import ActionDetail, ActionFields, Detail, FlowDetail, PreparedCall
from registry.model.results import FindResponse, FindResult
from registry.model.tool_shapes import ToolDefinition
from tests.helpers.paths import ROOT

# Fields of the action that other resources also have under the same names (a site's brief
# list has id, name, title, effect, method, endpoint; a run has a kind; the export manifest
# has a site, names, auth, scope, cost). The rest are the action's alone.
SHARED_NAMES = {
    "id",
    "kind",
    "site",
    "name",
    "title",
    "description",
    "effect",
    "method",
    "endpoint",
    "auth",
    "scope",
    "cost",
    "origin",  # a site's is its scheme://host[:port]; an action's, same or cross (issue 20)
}
ACTION_ONLY = set(ActionFields.model_fields) - SHARED_NAMES


def door_models() -> Iterator[type[BaseModel]]:
    """Every pydantic model defined in a module of api/."""
    for path in sorted((ROOT / "api").rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        module = importlib.import_module(name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseModel) and value.__module__ == module.__name__:
                yield value


def test_the_action_only_fields_are_the_ones_meant() -> None:
    assert {
        "needs_approval",
        "type",
        "input_schema",
        "output_schema",
        "source",
        "liveness",
        "verified",
    } == ACTION_ONLY


def test_no_door_model_writes_out_the_actions_fields() -> None:
    """A door adds fields by subclassing; it never declares the action's own fields again."""
    declared = {
        f"{model.__module__}.{model.__qualname__}": sorted(
            ACTION_ONLY & set(model.__dict__.get("__annotations__", {}))
        )
        for model in door_models()
    }
    assert {name: fields for name, fields in declared.items() if fields} == {}


def test_every_door_model_of_an_action_subclasses_the_registrys() -> None:
    models = list(door_models())
    assert len(models) > 20  # the walk found the doors' models
    of_an_action = [m for m in models if set(m.model_fields) >= ACTION_ONLY]
    assert of_an_action  # api/mcp/answers.py's ActionDetail at least
    assert [m.__qualname__ for m in of_an_action if not issubclass(m, ActionFields)] == []


def test_the_doors_answer_the_registrys_models() -> None:
    from api.mcp.tools import Tools
    from api.routes import actions, find

    routes = {
        route.path: route.response_model  # type: ignore[attr-defined]
        for route in [*find.router.routes, *actions.router.routes]
    }
    assert routes["/find"] is FindResponse
    # With ?as=, one tool definition (registry.model.tool_shapes), the registry's too.
    assert routes["/actions/{id}"] == ActionDetail | ToolDefinition
    assert routes["/flows/{id}"] == FlowDetail | ToolDefinition
    assert routes["/actions/{id}/prepare"] is PreparedCall
    hints = {
        name: inspect.get_annotations(getattr(Tools, name), eval_str=True)["return"]
        for name in ("find_action", "get_action", "prepare_call")
    }
    assert issubclass(hints["find_action"], FindResponse)
    assert issubclass(hints["get_action"], Detail)
    assert issubclass(hints["prepare_call"], PreparedCall)
    assert issubclass(ActionDetail, ActionFields) and issubclass(FindResult, ActionFields)


def _sources() -> Iterator[tuple[str, ast.AST]]:
    for package in ("api", "registry"):
        for path in sorted((ROOT / package).rglob("*.py")):
            yield str(path.relative_to(ROOT)), ast.parse(path.read_text())


def test_strict_and_absent_are_defined_once() -> None:
    """One model base forbids unknown keys (registry.model.schemas.StrictModel) and one
    function says a field is absent (registry.model.public.absent)."""
    strict, absent = [], []
    for where, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and 'extra="forbid"' in ast.unparse(node).replace(
                "'", '"'
            ):
                strict.append(f"{where}:{node.name}")
            if isinstance(node, ast.FunctionDef) and "absent" in node.name:
                absent.append(f"{where}:{node.name}")
    assert strict == ["registry/model/schemas.py:StrictModel"]
    assert absent == ["registry/model/public.py:absent"]


def test_run_and_submission_states_are_the_registrys() -> None:
    """No module outside registry/model/statuses.py spells the states out as a Literal."""
    states = {"running", "finished", "aborted", "queued", "crawling", "done"}
    found = []
    for where, tree in _sources():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.value, ast.Name)
                and node.value.id == "Literal"
            ):
                values = {c.value for c in ast.walk(node.slice) if isinstance(c, ast.Constant)}
                if values & states:
                    found.append(where)
    assert found == ["registry/model/statuses.py"] * 3
