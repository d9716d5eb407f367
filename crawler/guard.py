"""The address policy: which URLs and addresses the crawler may connect to (SSRF guard).

Checked twice: ``check_url`` on every request and redirect hop (downloader middleware), and
``check_address`` on the address a name actually resolved to (the DNS resolver), so a hostname
that points at loopback or a metadata service is refused even when its URL looks harmless.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Sequence
from functools import lru_cache
from urllib.parse import urlsplit

from registry.config import Settings
from registry.model.urls import a_label

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

DEFAULT_PORTS = {"http": 80, "https": 443}
_BLOCKED_V4 = [ipaddress.ip_network(n) for n in ("0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24")]
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_BLOCKED_V6 = [ipaddress.ip_network(n) for n in ("64:ff9b:1::/48", "fec0::/10", "fc00::/7")]
# inet_aton reads legacy IPv4 spellings (2130706433, 0x7f.1, 127.1); so do resolvers and browsers.
_LEGACY_V4 = re.compile(r"^[0-9a-fx.]+$", re.IGNORECASE)
_RESOLVE = re.compile(r"^(\[[^\]]+\]|[^:\[\]]+):([0-9]+):(.+)$")


def _embedded_v4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 form carries (mapped, compatible, 6to4, NAT64), if any."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64 or int(ip) >> 32 == 0:  # NAT64 well-known prefix, or deprecated ::a.b.c.d
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def is_public_address(ip: str | IPAddress) -> bool:
    """True only for a globally routable unicast address; IPv4-in-IPv6 forms are unwrapped."""
    try:
        addr = ipaddress.ip_address(ip) if isinstance(ip, str) else ip
    except ValueError:
        return False
    if isinstance(addr, ipaddress.IPv6Address):
        inner = _embedded_v4(addr)
        if inner is not None:
            return is_public_address(inner)
        if any(addr in net for net in _BLOCKED_V6) or addr.is_site_local:
            return False
    elif any(addr in net for net in _BLOCKED_V4):
        return False
    special = (
        addr.is_private
        or addr.is_loopback
        or addr.is_link_local
        or addr.is_multicast
        or addr.is_reserved
        or addr.is_unspecified
    )
    return addr.is_global and not special


def ip_literal(host: str) -> IPAddress | None:
    """The address a URL host spells out literally, including legacy IPv4 forms."""
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        pass
    if _LEGACY_V4.match(host):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def parse_resolve(entry: str) -> tuple[tuple[str, int], str]:
    """Parse a curl-style ``HOST:PORT:ADDR`` entry (ADDR may be ``[v6]``)."""
    match = _RESOLVE.match(entry.strip())
    if not match:
        raise ValueError(f"{entry!r}: expected HOST:PORT:ADDR, e.g. a.test:443:127.0.0.1")
    host, port_text, addr_text = match.groups()
    port = int(port_text)
    if not 0 < port < 65536:
        raise ValueError(f"{entry!r}: port {port} is outside 1-65535")
    bracketed = addr_text.startswith("[") and addr_text.endswith("]")
    try:
        addr = _address(addr_text[1:-1] if bracketed else addr_text)
    except ValueError:
        raise ValueError(f"{entry!r}: {addr_text!r} is not an IP address") from None
    return (_norm_host(host), port), addr


@lru_cache(maxsize=256)
def _address(text: str) -> str:
    """``text``'s address spelled canonically; ValueError if it is none. Cached: a resolve list
    names thousands of hosts on a few addresses, and ipaddress parses slowly (a bench's 10,000
    entries took ~0.2 s a policy, built in every crawl child, twice)."""
    return str(ipaddress.ip_address(text))


def _norm_host(host: str) -> str:
    host = host.strip("[]").rstrip(".")
    try:
        return host.lower() if ":" in host else a_label(host)  # the spelling requests use
    except ValueError:  # not a valid IDN: it will not resolve either; never raise in a check
        return host.lower()


class AddressPolicy:
    """Refuses non-web schemes and non-public addresses, except ``--resolve`` entries.

    A resolve entry maps HOST:PORT to ADDR and allows exactly that host and port, even where
    ADDR is private; ``allow_private`` lifts the address and port checks (schemes and URL
    credentials stay refused) for private deployments.
    """

    def __init__(
        self, resolve: dict[tuple[str, int], str] | None = None, allow_private: bool = False
    ) -> None:
        self.resolve = {
            (_norm_host(h), p): _address(a.strip("[]")) for (h, p), a in (resolve or {}).items()
        }
        self.allow_private = allow_private
        self._ports: dict[str, list[int]] = {}
        for host, port in self.resolve:
            self._ports.setdefault(host, []).append(port)

    @classmethod
    def from_args(cls, entries: list[str], allow_private: bool = False) -> AddressPolicy:
        """Build from command-line ``--resolve`` strings; raises ValueError on a bad one."""
        return cls(dict(parse_resolve(e) for e in entries), allow_private)

    def mapped_address(self, host: str, port: int) -> str | None:
        return self.resolve.get((_norm_host(host), port))

    def check_url(self, url: str) -> str | None:
        """Why ``url`` must not be fetched, or None when it may be."""
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError as exc:
            return f"malformed URL {url!r}: {exc}"
        scheme = parts.scheme.lower()
        if scheme not in DEFAULT_PORTS:
            return f"scheme {scheme or 'none'!r} is not allowed (only http and https)"
        if "@" in parts.netloc:
            return "URLs with user credentials are refused"
        host = _norm_host(parts.hostname or "")
        if not host:
            return f"URL {url!r} has no host"
        if port == 0:  # not "the default port": nothing listens there
            return "port 0 is not a port a site is served on"
        return self._check_host_port(host, port or DEFAULT_PORTS[scheme])

    def _check_host_port(self, host: str, port: int) -> str | None:
        if self.allow_private or (host, port) in self.resolve:
            return None
        if host in self._ports:
            allowed = ", ".join(str(p) for p in sorted(self._ports[host]))
            return f"{host}:{port} is not allowed: --resolve names {host} only at port {allowed}"
        ip = ip_literal(host)
        if ip is not None and not is_public_address(ip):
            shown = host if str(ip) == host else f"{host} ({ip})"
            return f"{shown} is a non-public address; use --resolve or --allow-private"
        # localhost names always mean loopback (RFC 6761 6.3): refused as plainly as 127.0.0.1,
        # before any lookup, rather than at connect time with a crawl to show for it.
        if host == "localhost" or host.endswith(".localhost"):
            return f"{host} is a loopback name; use --resolve or --allow-private"
        # Ports below 1024 other than 80/443 belong to other services (ssh, smtp, ...).
        if port < 1024 and port not in (80, 443):
            return f"port {port} is not a web port"
        return None

    def check_address(self, host: str, port: int, ip: str) -> str | None:
        """Why connecting to ``ip`` for ``host:port`` is refused, or None when it is allowed."""
        if self.allow_private:
            return None
        host = _norm_host(host)
        mapped = self.resolve.get((host, port))
        if mapped is not None:
            same = ipaddress.ip_address(ip.split("%")[0]) == ipaddress.ip_address(mapped)
            return None if same else f"{host}:{port} resolved to {ip}, not its --resolve {mapped}"
        refusal = self._check_host_port(host, port)
        if refusal is None and not is_public_address(ip):
            refusal = f"{host} resolves to non-public address {ip}"
        return refusal


def policy_from(
    settings: Settings, resolve: Sequence[str] = (), allow_private: bool | None = None
) -> AddressPolicy:
    """The policy of ACTIONDEX_RESOLVE / ACTIONDEX_ALLOW_PRIVATE plus the command line's
    ``--resolve`` entries (one naming the same HOST:PORT wins) and ``--allow-private`` (None:
    as the settings say). ValueError, naming where the bad entry came from, on a bad one."""
    entries: dict[tuple[str, int], str] = {}
    for source, specs in (("ACTIONDEX_RESOLVE", settings.resolve), ("--resolve", resolve)):
        for spec in specs:
            try:
                key, addr = parse_resolve(spec)
            except ValueError as exc:
                raise ValueError(f"{source} {exc}") from None
            entries[key] = addr
    private = settings.allow_private if allow_private is None else allow_private
    return AddressPolicy(resolve=entries, allow_private=private)
