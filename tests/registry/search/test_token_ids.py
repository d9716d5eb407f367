"""The word-by-word token ids of an action's text (registry.index.vectors._token_ids) are the
tokenizer's own for the whole text: the stored vectors must not change with the cache."""

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from registry.index import vectors

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def whole(text: str) -> list[int]:
    return list(vectors._wordllama()[0].encode(text, add_special_tokens=False).ids)


def strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def parsed(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError:  # the malformed fixtures
        return None


def test_fixture_texts_match_the_tokenizer() -> None:
    texts = [s for path in sorted(FIXTURES.rglob("*.json")) for s in strings(parsed(path))]
    assert len(texts) > 500
    assert [vectors._token_ids(t) for t in texts] == [whole(t) for t in texts]


def test_edges_match_the_tokenizer() -> None:
    long_word = "x" * 2000  # one word of more than MAX_TOKENS tokens
    texts = [
        "",
        " ",
        "a",
        "a ",
        " a",
        "a  b",
        "x<s>y",
        "x <s> y",
        "a </s>",
        "<unk>",
        "\u2581a b",
        "a\u2581b c",
        "\tfoo\nbar baz",
        "h\u00e9llo w\u00f6rld \u65e5\u672c \U0001f600 caf\u00e9",
        "a\u00a0b c",
        "word " * 300 + "end",
        f"{long_word} tail",
        f"head {long_word}",
    ]
    assert [vectors._token_ids(t) for t in texts] == [whole(t) for t in texts]
    assert len(vectors._token_ids("word " * 300 + "end")) == vectors.MAX_TOKENS


# Few letters, many of the characters the fast path must give up on (spaces, <s>, \u2581).
EDGY = st.sampled_from(list("ab <s>/\u2581\t\n.\u00e9\u65e5\U0001f600-_"))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=EDGY, max_size=40))
def test_any_text_matches_the_tokenizer(text: str) -> None:
    assert vectors._token_ids(text) == whole(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_unicode_text_matches_the_tokenizer(text: str) -> None:
    assert vectors._token_ids(text) == whole(text)


def test_a_request_and_an_action_of_one_text_have_one_vector() -> None:
    """Requests are encoded whole (no cache of their words in the API), actions word by
    word: the same ids, so the same vectors."""
    model = vectors.active()
    for text in ["what can I bake", "Search recipes by ingredient", " two  spaces ", ""]:
        assert (model.query(text) == model.passage(text)).all()
