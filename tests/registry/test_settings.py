"""Configuration: one Settings object, documented in .env.example, failing fast."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from registry.config import Settings
from tests.helpers.paths import ROOT


def _option_variables() -> set[str]:
    """The ACTIONDEX_ variables command options read (`worker --concurrency`, ...)."""
    import typer.main

    from actiondex.cli import app

    found: set[str] = set()
    commands = [typer.main.get_command(app)]
    while commands:
        command = commands.pop()
        for param in command.params:
            names = [param.envvar] if isinstance(param.envvar, str) else param.envvar or []
            found |= {name for name in names if name.startswith("ACTIONDEX_")}
        commands += getattr(command, "commands", {}).values()  # a group's commands
    return found


def test_every_setting_is_in_env_example_and_readme() -> None:
    """Settings fields, and the variables command options read (issue 21: the worker's
    ACTIONDEX_WORKER_CONCURRENCY and _DELAY were in neither)."""
    documented = set(
        re.findall(r"^(ACTIONDEX_[A-Z_]+)=", (ROOT / ".env.example").read_text(), re.MULTILINE)
    )
    fields = {f"ACTIONDEX_{name.upper()}" for name in Settings.model_fields}
    options = _option_variables()
    assert {"ACTIONDEX_WORKER_CONCURRENCY", "ACTIONDEX_WORKER_DELAY"} <= options
    assert fields | options == documented
    readme = (ROOT / "README.md").read_text()
    assert not {name for name in options if f"`{name}`" not in readme}


def test_defaults_put_everything_in_the_data_dir(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    assert settings.db_url == f"sqlite:///{(tmp_path / 'actiondex.db').resolve()}"
    assert settings.index_path == tmp_path / "index"


def test_plain_postgresql_urls_use_psycopg3() -> None:
    settings = Settings(database_url="postgresql://u@h:5432/db")
    assert settings.db_url == "postgresql+psycopg://u@h:5432/db"


def test_environment_prefix(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ACTIONDEX_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("ACTIONDEX_MAX_ACTIONS_PER_SITE", "7")
    settings = Settings()
    assert settings.data_dir == tmp_path and settings.max_actions_per_site == 7


def test_unknown_database_scheme_fails_fast() -> None:
    with pytest.raises(ValueError, match="sqlite:// or postgresql://"):
        Settings(database_url="mysql://x")


def test_the_address_policy_settings_read_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACTIONDEX_RESOLVE", "a.test:80:127.0.0.1,b.test:443:[::1]  c.test:8:::1")
    monkeypatch.setenv("ACTIONDEX_ALLOW_PRIVATE", "true")
    settings = Settings()
    assert settings.resolve == ["a.test:80:127.0.0.1", "b.test:443:[::1]", "c.test:8:::1"]
    assert settings.allow_private
    monkeypatch.setenv("ACTIONDEX_RESOLVE", "")
    assert Settings().resolve == []


def test_recrawl_bounds_must_be_ordered() -> None:
    settings = Settings(recrawl_min=600, recrawl_initial=600, recrawl_max=600)
    assert (settings.recrawl_min, settings.recrawl_backoff_max) == (600, 7 * 86400)
    with pytest.raises(ValueError, match="RECRAWL_MIN <= ACTIONDEX_RECRAWL_INITIAL"):
        Settings(recrawl_min=7200, recrawl_initial=3600)
    with pytest.raises(ValueError, match="greater than or equal"):
        Settings(recrawl_min=0)
