"""The README's Layout section names every package and sub-package, and the README points at
nothing a clone lacks."""

from __future__ import annotations

import re

from tests.helpers.paths import ROOT

PACKAGES = ("actiondex", "registry", "crawler", "api", "migrations", "bench", "harness")


def _layout() -> str:
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## Layout\n", 1)[1]
    return section.split("```", 2)[1]


def test_every_package_and_sub_package_is_in_the_layout() -> None:
    layout = _layout()
    tops = set(re.findall(r"^([a-z_]+)/", layout, re.M))
    subs = set(re.findall(r"^  ([a-z_]+)/", layout, re.M))
    missing = [p for p in PACKAGES if p not in tops]
    for top in PACKAGES:
        for init in sorted((ROOT / top).glob("*/__init__.py")):
            if init.parent.name not in subs:
                missing.append(f"{top}/{init.parent.name}")
    assert not missing, f"README Layout does not name: {missing}"
    for name in ("tests", "docs"):
        assert name in tops


def test_the_readme_links_to_nothing_outside_the_repository() -> None:
    text = (ROOT / "README.md").read_text()
    assert not re.findall(r"\]\(\.\./", text), "a link a clone cannot follow"
    for target in re.findall(r"\]\(([^)#:]+)\)", text):
        assert (ROOT / target).exists(), f"README links to {target}, which is not here"


def test_the_code_cites_the_reliability_page_of_this_repository() -> None:
    """Comments cite docs/RELIABILITY.md, which a clone has, never a page outside it."""
    page = ROOT / "docs/RELIABILITY.md"
    assert page.is_file()
    strays = []
    for top in (*PACKAGES, "tests"):
        for path in sorted((ROOT / top).rglob("*.py")):
            for line in path.read_text().splitlines():
                if "RELIABILITY.md" in line and "docs/RELIABILITY.md" not in line:
                    strays.append(f"{path.relative_to(ROOT)}: {line.strip()}")
    assert not strays, strays
