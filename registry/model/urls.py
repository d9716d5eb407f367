"""Small URL helpers shared by the formats, the store and the index."""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from urllib.parse import urljoin, urlsplit, urlunsplit

import idna

MAX_URL = 2048
HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_HOLE = re.compile(r"\{[^{}]*\}")  # an RFC 6570 expression, e.g. {q} or {?q,page}
_MASK_OPEN, _MASK_CLOSE = "\ue000", "\ue001"  # private-use: never part of a real URL
_ENCODED_CONTROL = re.compile(r"%(?:[01][0-9a-f]|7f)", re.IGNORECASE)  # %0d, %0a, %00, ...


def site_of(url: str) -> str:
    """The host of ``url``: lower case, IDNA (punycode), no port, no trailing dot; '' if none."""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return ""
    if not host:
        return ""
    try:
        return a_label(host)
    except ValueError:  # empty or over-long labels: keep what we have, it is only a key
        return host.rstrip(".").lower()


DEFAULT_PORTS = {"http": 80, "https": 443}


def site_key(url: str) -> str:
    """The key a site is stored, filtered and looked up by: its host (``site_of``) when ``url``
    uses its scheme's default port, ``host:port`` otherwise (``[v6]:port`` for an IPv6
    literal); '' if no host. Two ports on one host are two sites (issue 20); the scheme is not
    part of the key, so a site moving from https to http stays one site (its stored origin)."""
    host = site_of(url)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return host
    if not host or port is None or port == DEFAULT_PORTS.get(parts.scheme.lower()):
        return host
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def key_host(key: str) -> str:
    """The host of a site key: 'kites.test:18111' -> 'kites.test', '[::1]:8080' -> '::1'."""
    if key.startswith("["):
        return key[1:].split("]", 1)[0]
    host, colon, port = key.rpartition(":")
    return host if colon and port.isdigit() and ":" not in host else key


def on_site(endpoint: str, site: str) -> str:
    """``endpoint`` as a path when it is on the site keyed ``site`` (the host column says the
    rest), else whole."""
    try:
        parts = urlsplit(endpoint)
    except ValueError:
        return endpoint
    if parts.hostname and site_key(endpoint) == site:
        return endpoint[len(f"{parts.scheme}://{parts.netloc}") :] or "/"
    return endpoint


def intake_url(text: str) -> str:
    """The http(s) URL a user's ``text`` names, checked before anything stores, echoes or
    fetches it (POST /submissions, `actiondex submit`, `crawl`, `validate`, POST /validate): a
    bare domain means its https homepage. ValueError, one line, for control characters, raw
    or percent-encoded (CR and LF would split a log line or a header wherever the URL is
    written), a port outside 1-65535 (``:0`` would silently mean the scheme's default), no
    http(s) scheme or no host. Addresses are the crawler's guard's to judge, not this."""
    text = text.strip()
    if not text or len(text) > MAX_URL:
        raise ValueError(f"a URL must have 1 to {MAX_URL} characters")
    if any(
        ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F for char in text
    ) or _ENCODED_CONTROL.search(text):  # C0, DEL and C1 (NEL, U+0085, ends a line too)
        raise ValueError(
            f"{text!r} contains control characters (such as CR or LF, raw or percent-encoded)"
        )
    url = text if "://" in text else f"https://{text}/"
    try:
        parts = urlsplit(url)
    except ValueError:
        raise ValueError(f"{text!r} is not a domain or an http(s) URL") from None
    try:
        port = parts.port
    except ValueError:
        port = -1
    if port is not None and not 0 < port <= 65535:
        raise ValueError(f"{text!r} has a port that is not a number from 1 to 65535")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{text!r} is not a domain or an http(s) URL")
    return url


def a_label(host: str) -> str:
    """``host`` as sites are stored and compared: IDNA 2008 A-labels (UTS #46 mapping), lower
    case, no trailing dot. "PАYPAL.test" with a Cyrillic "А" -> "xn--pypal-4ve.test", never a
    Unicode string that looks like another site. Raises ValueError for an invalid name."""
    host = host.rstrip(".")
    if host.isascii() and "xn--" not in host.lower():
        return host.lower()  # the common case: nothing to map
    try:
        return idna.encode(host, uts46=True).decode("ascii")
    except idna.IDNAError as exc:
        raise ValueError(f"{host!r} is not a valid internationalised domain name: {exc}") from None


# Scripts a single label may mix without looking like another name (UTS #39 "highly
# restrictive": Latin with the scripts written beside it in Japanese, Chinese and Korean).
_MIXABLE = (
    {"LATIN", "CJK", "HIRAGANA", "KATAKANA"},
    {"LATIN", "CJK", "BOPOMOFO"},
    {"LATIN", "CJK", "HANGUL"},
)


def _script(char: str) -> str | None:
    """The script of a letter by its Unicode name ("CYRILLIC SMALL LETTER A" -> CYRILLIC);
    None for digits, hyphens and other characters every script shares."""
    if not char.isalpha():
        return None
    return unicodedata.name(char, "UNKNOWN").split(" ", 1)[0]


def mixed_script_label(host: str) -> str | None:
    """The first label of ``host`` (A-labels decoded) that mixes scripts in a way UTS #39
    calls confusable, e.g. Latin with Cyrillic ("pаypal"); None when every label is plain."""
    for label in host.split("."):
        if not label.lower().startswith("xn--"):
            continue  # ASCII letters are all Latin
        try:
            text = idna.decode(label)
        except idna.IDNAError:
            return label
        scripts = {s for s in map(_script, text) if s}
        if len(scripts) > 1 and not any(scripts <= allowed for allowed in _MIXABLE):
            return text
    return None


def _masked(endpoint: str) -> tuple[str, list[str]]:
    holes: list[str] = []

    def mask(match: re.Match[str]) -> str:
        holes.append(match.group())
        return f"{_MASK_OPEN}{len(holes) - 1}{_MASK_CLOSE}"

    return _HOLE.sub(mask, endpoint), holes


def _unmasked(url: str, holes: list[str]) -> str:
    for index, hole in enumerate(holes):
        url = url.replace(f"{_MASK_OPEN}{index}{_MASK_CLOSE}", hole)
    return url


def absolute(endpoint: object, base_url: str) -> str | None:
    """``endpoint`` resolved against ``base_url``, keeping ``{...}`` template expressions.

    None unless the result is a plain http(s) URL with a literal host (an IDNA A-label): no
    template in the authority, no user-info, no whitespace, control characters or backslashes
    (browsers read ``\\`` as ``/``, Python does not, which would let a host hide in a path).
    """
    if not isinstance(endpoint, str):
        return None
    endpoint = endpoint.strip()
    if not endpoint or len(endpoint) > MAX_URL or _MASK_OPEN in endpoint or "\\" in endpoint:
        return None
    if any(ord(char) <= 0x20 or ord(char) == 0x7F for char in endpoint):
        return None
    masked, holes = _masked(endpoint)
    try:
        joined = urljoin(base_url, masked)
        parts = urlsplit(joined)
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not host or "@" in parts.netloc:
        return None
    if _MASK_OPEN in parts.netloc:
        return None
    if not parts.netloc.isascii():  # agents see "xn--pypal-4ve.test", never a look-alike
        try:
            port = parts.port
            netloc = a_label(host) + (f":{port}" if port else "")
        except ValueError:
            return None
        joined = urlunsplit(parts._replace(netloc=netloc))
    return _unmasked(joined, holes)


def same_origin(endpoint: str, site: str) -> bool:
    """Whether the endpoint's host is ``site``'s host (a site key may carry a port) or one of
    its subdomains.

    A leading ``www.`` on the site is ignored: ``www.shop.example`` owns ``api.shop.example``.
    """
    host = site_of(endpoint)
    site = key_host(site).lower().rstrip(".")
    base = site.removeprefix("www.")
    return bool(host) and (host in (site, base) or host.endswith("." + base))


def is_private_host(host: str) -> bool:
    """Loopback, private, link-local, reserved... address literals and ``localhost`` names."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return not address.is_global
