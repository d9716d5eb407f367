"""The address policy: docs/RELIABILITY.md 16's targets, --resolve parsing, URL checks."""

from __future__ import annotations

from typing import Any

import pytest
from scrapy import Request
from twisted.internet.address import IPv4Address
from twisted.internet.interfaces import IHostnameResolver, IResolutionReceiver
from twisted.internet.task import Clock
from zope.interface import implementer

from crawler.guard import AddressPolicy, is_public_address, parse_resolve, policy_from
from crawler.middlewares import AddressGuardMiddleware, BlockedAddress
from crawler.resolver import GuardedResolver
from registry.config import Settings

# docs/RELIABILITY.md 16: every one of these is refused with a reason.
REFUSED_URLS = [
    "http://127.0.0.1/",
    "http://[::1]/",
    "http://169.254.169.254/",
    "http://10.0.0.1/",
    "http://2130706433/",
    "http://0x7f.1/",
    "http://127.1/",
    "http://[::ffff:127.0.0.1]/",
    "http://0.0.0.0/",
    "http://100.64.0.1/",
    "http://[64:ff9b::7f00:1]/",
    "http://[2002:7f00:1::]/",
    "http://[::127.0.0.1]/",
    "file:///etc/passwd",
    "data:text/plain,hello",
    "ftp://x.test/",
    "http://user:pass@x.test/",
    "http://x.test:22/",
    "http://[fe80::1]/",
    "http://[fc00::1]/",
    "http://192.168.1.1:8080/",
    "gopher://x.test/",
]

NON_PUBLIC = [
    "127.0.0.1",
    "127.255.255.254",
    "::1",
    "169.254.169.254",
    "fe80::1",
    "10.0.0.1",
    "172.16.0.1",
    "192.168.0.1",
    "100.64.0.1",
    "100.127.255.255",
    "0.0.0.0",
    "0.1.2.3",
    "224.0.0.1",
    "239.255.255.250",
    "ff02::1",
    "240.0.0.1",
    "255.255.255.255",
    "::",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "::127.0.0.1",
    "64:ff9b::7f00:1",
    "64:ff9b::a9fe:a9fe",
    "64:ff9b:1::1",
    "2002:7f00:1::",
    "2002:a00:1::",
    "fec0::1",
    "fc00::1",
    "fd12:3456::1",
    "192.0.2.1",
    "198.51.100.7",
    "203.0.113.9",
    "198.18.0.1",
    "192.0.0.8",
    "2001:db8::1",
    "not an ip",
]

PUBLIC = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
]


@pytest.mark.parametrize("url", REFUSED_URLS)
def test_item_16_targets_are_refused_with_a_reason(url: str) -> None:
    reason = AddressPolicy().check_url(url)
    assert reason and "\n" not in reason


@pytest.mark.parametrize("allow_private", [False, True])
def test_port_0_is_refused_not_read_as_the_default(allow_private: bool) -> None:
    """Issue 25 item 10: ``:0`` passed as port 80/443; a redirect to it is refused too."""
    policy = AddressPolicy(allow_private=allow_private)
    for url in ("http://example.com:0/", "https://example.com:00/x"):
        assert "port 0" in (policy.check_url(url) or "")


@pytest.mark.parametrize("ip", NON_PUBLIC)
def test_non_public_addresses(ip: str) -> None:
    assert not is_public_address(ip)


@pytest.mark.parametrize("ip", PUBLIC)
def test_public_addresses(ip: str) -> None:
    assert is_public_address(ip)


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/",
        "http://example.com:8080/x",
        "https://8.8.8.8/",
        "http://[2606:4700::1111]/",
    ],
)
def test_public_urls_pass(url: str) -> None:
    assert AddressPolicy().check_url(url) is None


def test_parse_resolve_forms() -> None:
    assert parse_resolve("Office.Demo.Test:8123:127.0.0.1") == (
        ("office.demo.test", 8123),
        "127.0.0.1",
    )
    assert parse_resolve("a.test:443:[::1]") == (("a.test", 443), "::1")
    assert parse_resolve("a.test:80:::1") == (("a.test", 80), "::1")
    # Addresses are parsed once per spelling (cached): each spelling still gets its own
    # canonical form, and the constructor's own entries are canonicalised the same way.
    assert parse_resolve("b.test:80:[0:0::0:1]") == (("b.test", 80), "::1")
    assert AddressPolicy({("c.test", 80): "[0::1]"}).mapped_address("C.test", 80) == "::1"


def test_a_bad_address_is_refused_every_time() -> None:
    # The cache of parsed addresses keeps answers, never failures.
    for _ in range(2):
        with pytest.raises(ValueError, match="not an IP address"):
            parse_resolve("a.test:80:10.0.0.256")


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ("a.test", "HOST:PORT:ADDR"),
        ("a.test:80", "HOST:PORT:ADDR"),
        ("a.test:http:127.0.0.1", "HOST:PORT:ADDR"),
        ("a.test:0:127.0.0.1", "outside 1-65535"),
        ("a.test:70000:127.0.0.1", "outside 1-65535"),
        ("a.test:80:localhost", "not an IP address"),
        ("a.test:80:[::1", "not an IP address"),
    ],
)
def test_parse_resolve_errors(entry: str, words: str) -> None:
    with pytest.raises(ValueError, match=words) as info:
        parse_resolve(entry)
    assert entry in str(info.value) and "\n" not in str(info.value)


def test_resolve_entry_allows_exactly_its_host_and_port() -> None:
    policy = AddressPolicy.from_args(["shop.test:8123:127.0.0.1", "127.0.0.1:9000:127.0.0.1"])
    assert policy.check_url("http://shop.test:8123/.well-known/x.json") is None
    assert policy.check_url("http://SHOP.test.:8123/") is None
    assert "only at port 8123" in (policy.check_url("http://shop.test:8124/") or "")
    assert policy.check_url("https://shop.test/") is not None  # port 443 is not named
    assert policy.check_url("http://127.0.0.1:9000/") is None
    assert policy.check_url("http://127.0.0.1:9001/") is not None
    assert policy.check_url("http://127.0.0.2:8123/") is not None
    assert policy.check_url("ftp://shop.test:8123/") is not None


def test_check_address() -> None:
    policy = AddressPolicy.from_args(["shop.test:8123:127.0.0.1"])
    assert policy.mapped_address("shop.test", 8123) == "127.0.0.1"
    assert policy.check_address("shop.test", 8123, "127.0.0.1") is None
    assert policy.check_address("shop.test", 8123, "127.0.0.2") is not None
    assert policy.check_address("example.test", 443, "93.184.216.34") is None
    reason = policy.check_address("evil.test", 443, "::ffff:169.254.169.254")
    assert reason == "evil.test resolves to non-public address ::ffff:169.254.169.254"
    assert policy.check_address("localhost", 80, "127.0.0.1") is not None


def test_allow_private_lifts_the_address_guard_but_not_schemes() -> None:
    policy = AddressPolicy(allow_private=True)
    assert policy.check_url("http://127.0.0.1:9/") is None
    assert policy.check_url("http://10.0.0.1:22/") is None
    assert policy.check_address("intranet", 80, "10.1.2.3") is None
    assert policy.check_url("file:///etc/passwd") is not None
    assert policy.check_url("http://u:p@10.0.0.1/") is not None


# The resolver and the middleware, driven without a network: a fake upstream resolver answers,
# a Clock stands in for the reactor.


@implementer(IHostnameResolver)
class Upstream:
    """Answers every name with the next address list in ``answers`` (None: never answers)."""

    def __init__(self, *answers: list[str] | None) -> None:
        self.answers = list(answers)
        self.asked: list[str] = []

    def resolveHostName(self, receiver: Any, name: str, port: int = 0, *_: Any) -> Any:
        self.asked.append(name)
        receiver.resolutionBegan(None)
        answer = self.answers.pop(0)
        if answer is not None:
            for ip in answer:
                receiver.addressResolved(IPv4Address("TCP", ip, port))
            receiver.resolutionComplete()


@implementer(IResolutionReceiver)
class Receiver:
    def __init__(self) -> None:
        self.addresses: list[str] = []
        self.complete = False

    def resolutionBegan(self, resolution: Any) -> None:
        pass

    def addressResolved(self, address: Any) -> None:
        self.addresses.append(address.host)

    def resolutionComplete(self) -> None:
        self.complete = True


def resolve(
    policy: AddressPolicy,
    upstream: Upstream,
    host: str,
    port: int = 443,
    clock: Clock | None = None,
) -> tuple[Receiver, GuardedResolver]:
    reactor = clock or Clock()
    reactor.nameResolver = upstream  # type: ignore[attr-defined]
    resolver = GuardedResolver(reactor, policy, timeout=10)  # type: ignore[arg-type]
    receiver = Receiver()
    resolver.resolveHostName(receiver, host, port)
    return receiver, resolver


def test_resolver_answers_resolve_entries_without_a_lookup() -> None:
    upstream = Upstream()
    got, _ = resolve(
        AddressPolicy.from_args(["shop.test:8123:127.0.0.1"]), upstream, "shop.test", 8123
    )
    assert got.addresses == ["127.0.0.1"] and got.complete and upstream.asked == []


@pytest.mark.parametrize(
    ("answer", "passed"),
    [
        (["93.184.216.34"], ["93.184.216.34"]),
        (["127.0.0.1"], []),
        (["93.184.216.34", "10.0.0.1"], []),  # one private answer refuses the name
        (["169.254.169.254"], []),
    ],
)
def test_resolver_passes_only_public_answers(answer: list[str], passed: list[str]) -> None:
    got, resolver = resolve(AddressPolicy(), Upstream(answer), "site.test")
    assert got.addresses == passed and got.complete
    assert ("site.test" in resolver.refusals) == (not passed)


def test_resolver_vets_every_lookup_so_rebinding_gets_nothing() -> None:
    clock = Clock()
    upstream = Upstream(["93.184.216.34"], ["127.0.0.2"])
    first, resolver = resolve(AddressPolicy(), upstream, "rebind.test", clock=clock)
    second = Receiver()
    resolver.resolveHostName(second, "rebind.test", 443)
    assert first.addresses == ["93.184.216.34"] and second.addresses == [] and second.complete


def test_resolver_gives_up_after_its_timeout() -> None:
    clock = Clock()
    got, _ = resolve(AddressPolicy(), Upstream(None), "slow.test", clock=clock)
    assert not got.complete
    clock.advance(10)
    assert got.complete and got.addresses == []


class Stats:
    def __init__(self) -> None:
        self.values: dict[str, int] = {}

    def inc_value(self, key: str, count: int = 1) -> None:
        self.values[key] = self.values.get(key, 0) + count


def test_middleware_refuses_before_connecting_and_counts() -> None:
    stats = Stats()
    guard = AddressGuardMiddleware(AddressPolicy(), stats)
    assert guard.process_request(Request("https://example.com/")) is None
    with pytest.raises(BlockedAddress, match="non-public"):
        guard.process_request(Request("http://127.0.0.2:9/steal"))
    assert stats.values == {"guard/refused": 1}


def test_the_policy_comes_from_settings_and_the_flags_add_to_it() -> None:
    settings = Settings(resolve="a.test:80:127.0.0.1, b.test:80:127.0.0.1", allow_private=True)
    policy = policy_from(settings)
    assert policy.allow_private and policy.mapped_address("a.test", 80) == "127.0.0.1"
    policy = policy_from(settings, ["b.test:80:127.0.0.3", "c.test:81:::1"], allow_private=False)
    assert not policy.allow_private
    assert policy.resolve == {
        ("a.test", 80): "127.0.0.1",
        ("b.test", 80): "127.0.0.3",
        ("c.test", 81): "::1",
    }
    with pytest.raises(ValueError, match="^ACTIONDEX_RESOLVE 'nonsense': expected HOST:PORT"):
        policy_from(Settings(resolve="nonsense"))
    with pytest.raises(ValueError, match="^--resolve 'x': expected"):
        policy_from(Settings(), ["x"])
