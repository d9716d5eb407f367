"""The crawler's signing key (registry.identity; docs/RELIABILITY.md 55): made once, kept in the
data dir with mode 0600, the same key on every later load, never in its repr; a broken file is a
one-line error; the directory lists the public half only."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from registry.config import README_CRAWLER, Settings
from registry.identity import SigningKeyError, key_path, load_or_create


def test_the_key_is_made_once_private_and_kept(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    first = load_or_create(settings)
    path = key_path(settings)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_or_create(settings).thumbprint == first.thumbprint
    assert load_or_create(Settings(data_dir=tmp_path / "data")).x == first.x
    stored = json.loads(path.read_text())
    assert stored["d"] not in repr(first) and stored["kid"] == first.thumbprint
    assert [set(k) for k in first.directory()["keys"]] == [{"kty", "crv", "x", "kid", "alg", "use"}]
    assert list(tmp_path.joinpath("data").iterdir()) == [path]  # no draft file left behind


def test_a_key_readable_by_others_is_tightened(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    kid = load_or_create(settings).thumbprint
    os.chmod(key_path(settings), 0o644)
    assert load_or_create(settings).thumbprint == kid
    assert stat.S_IMODE(key_path(settings).stat().st_mode) == 0o600


def test_a_broken_key_file_is_one_line(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    key_path(settings).write_text('{"kty": "RSA"}')
    with pytest.raises(SigningKeyError) as caught:
        load_or_create(settings)
    assert "\n" not in str(caught.value) and "signing-key.jwk" in str(caught.value)


def test_the_user_agent_names_the_page_about_the_crawler() -> None:
    assert Settings(public_url="https://r.example/").user_agent == (
        "actiondex/0.1 (+https://r.example/about/crawler)"
    )
    assert Settings().user_agent == f"actiondex/0.1 (+{README_CRAWLER})"
    assert Settings(user_agent="mine/1").user_agent == "mine/1"
    with pytest.raises(ValueError, match="must be an origin"):
        Settings(public_url="https://r.example/path")
