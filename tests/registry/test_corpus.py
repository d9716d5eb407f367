"""Conformance over the real corpus (../shared/corpus, see its SOURCES.md): every file is read
through `actiondex validate`'s own path, in place, never copied.

For every file: no exception; the format detected is the one inventory.json names, where it
names one we read; real files that carry actions yield them. `pytest -s` prints the per-format
table, and so does `.venv/bin/python -m tests.registry.test_corpus` ("parsed": files with no
error-severity diagnostic, i.e. what `actiondex validate` passes). ACTIONDEX_CORPUS_DIR points
elsewhere; without a corpus the module is skipped, so the suite runs anywhere.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from functools import cache
from typing import Any

import pytest
import yaml
from rich.console import Console
from rich.table import Table

from actiondex.validating import validate_file
from registry.formats.html import page_items
from registry.model.schemas import stable_id
from registry.model.tooldefs import definitions
from registry.validate import ValidationReport
from tests.helpers.paths import CORPUS, INVENTORY
from tests.helpers.tool_shapes import check

# inventory label (or ("other", variant)) -> the Manifest.format we must detect
LABELS = {
    "a2a-agent-card": "a2a",
    "ai-plugin": "ai-plugin",
    "api-catalog": "api-catalog",
    "mcp-server-json": "mcp",
    "openapi": "openapi",
    "schemaorg-jsonld-html": "schemaorg",
    "wildcard-agents-json": "wildcard-agents-json",
    "agent-actions": "agent-actions",
    "schemaorg-agents-json": "schemaorg",
}
OTHER_VARIANTS = {
    "llms.txt": "llms-txt",
    "mcp-server-card": "mcp",
    "ai-catalog": "ard",
    "ai-catalog(ARD)": "ard",
    "agents-json-adhoc": "agents-json",
    "agents-json-adhoc(list)": "agents-json",
    "agentlookup-v1": "agents-json",
    "agents-json-flows-variant": "agents-json",
    "agents-json-leonting-1.0": "agents-json",
    "bare-jsonld(schema.org)": "schemaorg",
}
# Labels whose format module is not written yet: checked again once it lands. Empty means
# every format the corpus labels is read (tighten here, never loosen the checks below).
NOT_YET_SUPPORTED: dict[str, str] = {}
# Files where the inventory's label does not hold on inspection; each with the reason.
LABEL_DISAGREEMENTS = {
    "readability-pages/ietf-1/source.html": (
        "no JSON-LD block at all: the RFC text only mentions application/ld+json"
    ),
    "extruct/custom.invalid/JSONLD_with_control_characters.html": (
        "its only JSON-LD item is an untyped {'data': ...}: no Schema.org in it"
    ),
    "extruct/custom.invalid/JSONLD_with_control_characters_comment.html": (
        "its only JSON-LD item is an untyped {'data': ...}: no Schema.org in it"
    ),
    "sites/Coolock-Village__meitheal/public/llms.txt": (
        "no '# Title' line, so not an llms.txt by its spec (diagnosed unknown-format)"
    ),
}
# Documents past the 1 MiB manifest limit are refused by design (the crawler never fetches
# them either); they must say so with this code instead of being read.
REFUSED_BY_SIZE = "too-large"

pytestmark = [
    pytest.mark.skipif(
        not INVENTORY.is_file(),
        reason=f"no corpus at {CORPUS} (set ACTIONDEX_CORPUS_DIR to ../shared/corpus to run these)",
    ),
    # corpus() reads every file once per process (~10 s): one xdist worker runs them all.
    pytest.mark.xdist_group("corpus"),
]

Entry = dict[str, Any]


def expected_format(entry: Entry) -> str | None:
    label = entry["format"]
    if label == "other":
        return OTHER_VARIANTS.get(entry.get("variant", ""))
    if label in NOT_YET_SUPPORTED:
        return None
    return LABELS.get(label)


@cache
def corpus() -> list[tuple[Entry, ValidationReport | None, str | None]]:
    """(inventory entry, report, exception text) for every file, read once per run."""
    results = []
    for entry in json.loads(INVENTORY.read_text()):
        try:
            results.append((entry, validate_file(CORPUS / entry["path"], None), None))
        except Exception as exc:  # collected so one failure names every file that fails
            results.append((entry, None, f"{type(exc).__name__}: {exc}"))
    return results


def _refused(report: ValidationReport) -> bool:
    return any(d.code == REFUSED_BY_SIZE for d in report.diagnostics)


def carries_actions(entry: Entry) -> bool:
    """Whether the file itself holds something an agent can call, judged from the raw file
    by the format's own rules, independently of our normalisers."""
    label, path = entry["format"], CORPUS / entry["path"]
    if label in ("ai-plugin", "mcp-server-json"):
        return True  # the plugin and the server are actions themselves
    if label == "schemaorg-jsonld-html":
        return any(
            _callable(action)
            for action in _potential_actions(
                page_items("https://corpus.example/", path.read_bytes())
            )
        )
    if label not in ("openapi", "a2a-agent-card", "wildcard-agents-json"):
        return False  # an api-catalog only points at other documents
    data = (
        yaml.safe_load(path.read_bytes())
        if path.suffix in (".yaml", ".yml")
        else (json.loads(path.read_bytes()))
    )
    key = {"openapi": "paths", "a2a-agent-card": "skills", "wildcard-agents-json": "flows"}
    return isinstance(data, dict) and bool(data.get(key[label]))


def _potential_actions(value: Any) -> list[Any]:
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            actions = item.get("potentialAction")
            found += actions if isinstance(actions, list) else [actions]
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _callable(action: Any) -> bool:
    """A target to call; SEO plugins' Read/ViewAction pointing at the page is not one."""
    if not isinstance(action, dict) or not action.get("target"):
        return False
    kinds = action.get("@type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return not set(kinds) <= {"ReadAction", "ViewAction", "http://schema.org/ReadAction"}


def test_every_file_is_read_without_exception() -> None:
    crashed = [f"{entry['path']}: {error}" for entry, _, error in corpus() if error]
    assert not crashed, "normalise raised on:\n" + "\n".join(crashed)


def test_detected_format_matches_the_inventory() -> None:
    mismatches = []
    for entry, report, _ in corpus():
        expected = expected_format(entry)
        if report is None or expected is None or entry["path"] in LABEL_DISAGREEMENTS:
            continue
        if report.format != expected and not _refused(report):
            codes = ", ".join(sorted({d.code for d in report.diagnostics})) or "-"
            mismatches.append(
                f"{entry['path']}: inventory says {entry['format']} "
                f"({entry.get('variant', '')}), detected {report.format} [{codes}]"
            )
    assert not mismatches, (
        f"{len(mismatches)} files detected as the wrong format (if a "
        "format is not written yet, add its label to NOT_YET_SUPPORTED):\n" + "\n".join(mismatches)
    )


def test_real_files_that_carry_actions_yield_them() -> None:
    silent = []
    for entry, report, _ in corpus():
        if report is None or not entry["real_world"] or expected_format(entry) is None:
            continue
        if not report.actions and not _refused(report) and carries_actions(entry):
            codes = ", ".join(d.code for d in report.diagnostics) or "no diagnostics"
            silent.append(f"{entry['path']} ({report.format}): {codes}")
    assert not silent, "real files whose actions were lost:\n" + "\n".join(silent)


def test_label_disagreements_are_still_true() -> None:
    """Keep the exception list honest: each listed file still reads as the reason says."""
    listed = {
        entry["path"]: report
        for entry, report, _ in corpus()
        if entry["path"] in LABEL_DISAGREEMENTS
    }
    assert set(listed) == set(LABEL_DISAGREEMENTS)
    for path, report in listed.items():
        assert report is not None and not report.actions, path


def format_table() -> Table:
    rows: dict[str, Counter[str]] = defaultdict(Counter)
    codes: dict[str, Counter[str]] = defaultdict(Counter)
    for _, report, _ in corpus():
        name = report.format if report else "exception"
        row = rows[name]
        row["files"] += 1
        if report is not None:
            row["parsed"] += report.ok
            row["actions"] += len(report.actions)
            row["flows"] += len(report.flows)
            codes[name].update(d.code for d in report.diagnostics)
    table = Table(title=f"corpus: {len(corpus())} files in {CORPUS}", title_justify="left")
    for column in ("format", "files", "parsed", "actions", "flows", "diagnostics by code"):
        table.add_column(
            column,
            justify="right" if column in ("files", "parsed", "actions", "flows") else "left",
            overflow="fold",
        )
    for name in sorted(rows, key=lambda n: -rows[n]["files"]):
        row = rows[name]
        by_code = ", ".join(f"{code} {n}" for code, n in codes[name].most_common())
        table.add_row(
            name, *(str(row[k]) for k in ("files", "parsed", "actions", "flows")), by_code or "-"
        )
    return table


def print_table() -> None:
    Console(width=150, highlight=False).print(format_table())


def test_print_the_table() -> None:
    print()
    print_table()


if __name__ == "__main__":
    if not INVENTORY.is_file():
        raise SystemExit(f"no corpus at {CORPUS}; set ACTIONDEX_CORPUS_DIR")
    print_table()


def test_no_real_input_schema_is_unusable() -> None:
    """registry.model.schema_bounds refuses hostile schemas (a $ref outside the schema, doubling
    references), not what real sites publish: no corpus file gets ``unusable-schema``."""
    unusable = [
        f"{entry['path']}: {d.message}"
        for entry, report, _ in corpus()
        if report
        for d in report.diagnostics
        if d.code == "unusable-schema"
    ]
    assert not unusable, "\n".join(unusable)


# Every action and flow as a tool definition of each shape, one answer per file: each
# validates against the SDK that defines its shape (tests.helpers.tool_shapes), and names are
# unique within the answer. `pytest -s` prints how many had a strict OpenAI form.
def tool_items(report: ValidationReport) -> list[dict[str, Any]]:
    """The report's actions and flows as the doors show them (the fields tooldefs reads)."""
    out = []
    for kind, found in (("action", report.actions), ("flow", report.flows)):
        for entry in found:
            item = entry.model_dump(mode="json")
            item.update(kind=kind, site=report.site, id=stable_id(report.site, kind, entry.name))
            item.setdefault("method", None)
            item.setdefault("output_schema", None)
            out.append(item)
    return out


@pytest.mark.parametrize("shape", ["openai", "anthropic", "mcp"])
def test_every_action_converts_to_each_tool_shape(shape: str) -> None:
    failures, converted, strict = [], 0, Counter[bool]()
    for entry, report, _ in corpus():
        if report is None or not (report.actions or report.flows):
            continue
        try:
            tools, ids = definitions(tool_items(report), shape)
            assert len(ids) == len(tools), "names repeat within one answer"
            for tool in tools:
                check(shape, tool)
                strict[bool(tool.get("strict"))] += 1
            converted += len(tools)
        except Exception as exc:  # collected, so one run names every file that fails
            failures.append(f"{entry['path']}: {type(exc).__name__}: {str(exc)[:300]}")
    assert not failures, "\n".join(failures)
    assert converted > 1000  # the corpus holds over a thousand actions and flows
    if shape == "openai":
        print(f"\n{converted} tools: {strict[True]} strict, {strict[False]} strict false")
