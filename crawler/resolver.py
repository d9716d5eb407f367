"""A Twisted name resolver that vets every answer with the AddressPolicy.

Installed through Scrapy's TWISTED_DNS_RESOLVER setting.

Twisted's HostnameEndpoint (used by Scrapy's HTTP/1.1 handler) connects only to the addresses
this resolver hands over, so the address checked is the address connected to: no second lookup,
hence no DNS-rebinding window. IP-literal hosts also pass through here (getaddrinfo echoes them),
on top of the URL check in the downloader middleware.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Sequence
from typing import Any

from twisted.internet.address import IPv4Address, IPv6Address
from twisted.internet.base import ReactorBase
from twisted.internet.interfaces import (
    IAddress,
    IDelayedCall,
    IHostnameResolver,
    IHostResolution,
    IResolutionReceiver,
)
from zope.interface import implementer

from crawler.guard import AddressPolicy

logger = logging.getLogger(__name__)
POLICY_SETTING = "ACTIONDEX_POLICY"


@implementer(IHostResolution)
class Resolution:
    """A lookup in progress, as resolvers hand it to their receiver; it cannot be cancelled."""

    def __init__(self, name: str) -> None:
        self.name = name

    def cancel(self) -> None:
        pass


@implementer(IResolutionReceiver)
class _Vetting:
    """Holds the upstream answers back until all of them are known, then passes all or none."""

    def __init__(
        self, resolver: GuardedResolver, receiver: IResolutionReceiver, host: str, port: int
    ) -> None:
        self.resolver, self.receiver, self.host, self.port = resolver, receiver, host, port
        self.addresses: list[IAddress] = []
        self.began = False
        self.done = False
        self.timer: IDelayedCall | None = None

    def resolutionBegan(self, resolution: IHostResolution) -> None:
        self.began = True
        self.receiver.resolutionBegan(resolution)

    def addressResolved(self, address: IAddress) -> None:
        self.addresses.append(address)

    def resolutionComplete(self) -> None:
        if self.done:
            return
        self.done = True
        if self.timer is not None and self.timer.active():
            self.timer.cancel()
        if not self.began:
            self.receiver.resolutionBegan(Resolution(self.host))
        if self.resolver.vet(self.host, self.port, self.addresses) is None:
            for address in self.addresses:
                self.receiver.addressResolved(address)
        self.receiver.resolutionComplete()

    def time_out(self) -> None:
        # getaddrinfo has no timeout of its own; an empty answer fails the request as a DNS error.
        self.addresses = []
        self.resolutionComplete()


@implementer(IHostnameResolver)
class GuardedResolver:
    """Answers ``--resolve`` hosts from the policy; vets everything else after a normal lookup."""

    def __init__(self, reactor: ReactorBase, policy: AddressPolicy, timeout: float = 10.0) -> None:
        self.reactor = reactor
        self.policy = policy
        self.timeout = timeout
        self.upstream: IHostnameResolver = reactor.nameResolver
        # host -> why it was refused; the spider reads it to record "blocked-address".
        self.refusals: dict[str, str] = {}

    @classmethod
    def from_crawler(cls, crawler: Any, reactor: ReactorBase) -> GuardedResolver:
        # Scrapy builds resolvers with the CrawlerProcess, whose settings carry the policy.
        policy = crawler.settings.get(POLICY_SETTING) or AddressPolicy()
        return cls(reactor, policy, crawler.settings.getfloat("DNS_TIMEOUT", 10.0))

    def install_on_reactor(self) -> None:
        self.reactor.installNameResolver(self)

    def resolveHostName(
        self,
        resolutionReceiver: IResolutionReceiver,
        hostName: str,
        portNumber: int = 0,
        addressTypes: Sequence[type[IAddress]] | None = None,
        transportSemantics: str = "TCP",
    ) -> IHostResolution:
        mapped = self.policy.mapped_address(hostName, portNumber)
        if mapped is not None:
            resolution = Resolution(hostName)
            resolutionReceiver.resolutionBegan(resolution)
            resolutionReceiver.addressResolved(_address(mapped, portNumber))
            resolutionReceiver.resolutionComplete()
            return resolution
        vetting = _Vetting(self, resolutionReceiver, hostName, portNumber)
        resolution = self.upstream.resolveHostName(
            vetting, hostName, portNumber, addressTypes, transportSemantics
        )
        if not vetting.done:
            vetting.timer = self.reactor.callLater(self.timeout, vetting.time_out)
        return resolution

    def vet(self, host: str, port: int, addresses: list[IAddress]) -> str | None:
        """The refusal for this answer set; one bad address refuses the whole name."""
        for address in addresses:
            reason = self.policy.check_address(host, port, getattr(address, "host", ""))
            if reason is not None:
                self.refusals[host.rstrip(".").lower()] = reason
                logger.warning("refused %s: %s", host, reason)
                return reason
        return None


def _address(ip: str, port: int) -> IAddress:
    if ipaddress.ip_address(ip).version == 6:
        return IPv6Address("TCP", ip, port)
    return IPv4Address("TCP", ip, port)


def refusal_for(host: str) -> str | None:
    """Why the installed resolver refused ``host`` in this process, if it did."""
    from twisted.internet import reactor

    resolver = getattr(reactor, "nameResolver", None)
    if isinstance(resolver, GuardedResolver):
        return resolver.refusals.get(host.rstrip(".").lower())
    return None
