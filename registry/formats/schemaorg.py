"""Schema.org ``potentialAction`` (JSON-LD, microdata, RDFa, WebMCP forms), on any entity.

Covers the Schema.org items of a page (``registry.formats.html`` hands over its JSON-LD, microdata,
RDFa and WebMCP-form items as one JSON list) and the Schema.org profile of
``/.well-known/agents.json`` (a WebSite, WebAPI or Organization object). Accepts an object,
a list or ``@graph``; ``@id`` references within the document; ``@context``
http(s)://schema.org or an ``@vocab``; types written ``SearchAction``, ``schema:SearchAction``
or as IRIs. Specs: https://schema.org/Action, /EntryPoint, /PropertyValueSpecification. The
input schema comes from the target's URL template, the ``<property>-input`` annotations and
``object.additionalProperty``; the output schema from ``result``. A WebAPI's
``documentation`` URL is listed in references (it is often the OpenAPI document). Malformed
pieces are skipped with a diagnostic.
"""

from __future__ import annotations

from typing import Any

from registry.formats._common import site_text
from registry.formats._jsonld import Graph, Node, local_types
from registry.formats._references import References
from registry.formats._schemaorg_action import Doc, read_action
from registry.model.sanitize import TITLE_MAX, clean_text
from registry.model.schemas import Action, Diagnostic, Manifest

NAME = "schemaorg"
PATHS = ("/", "/.well-known/agents.json")
LINK_RELS = ("describedby",)  # <link rel="describedby" type="application/ld+json">
MAX_ACTIONS = 256
# Where a site describes itself; WebSite wins over WebAPI over an organisation.
_SITE_TYPES = {
    "WebSite": 0,
    "WebAPI": 1,
    "WebApplication": 1,
    "Organization": 2,
    "Corporation": 2,
    "LocalBusiness": 2,
    "Restaurant": 2,
    "Store": 2,
    "NewsMediaOrganization": 2,
    "OnlineStore": 2,
    "OnlineBusiness": 2,
    # LocalBusiness kinds that pages often use as their main entity
    **dict.fromkeys(
        [
            "FoodEstablishment",
            "Bakery",
            "CafeOrCoffeeShop",
            "BarOrPub",
            "Brewery",
            "Winery",
            "FastFoodRestaurant",
            "IceCreamShop",
            "LodgingBusiness",
            "Hotel",
            "BedAndBreakfast",
            "Hostel",
            "Motel",
            "MedicalBusiness",
            "Dentist",
            "Pharmacy",
            "AutomotiveBusiness",
            "AutoRepair",
            "ProfessionalService",
            "LegalService",
            "FinancialService",
            "TravelAgency",
            "RealEstateAgent",
            "HealthAndBeautyBusiness",
            "HomeAndConstructionBusiness",
            "EntertainmentBusiness",
            "SportsActivityLocation",
            "EducationalOrganization",
            "GovernmentOrganization",
            "NGO",
        ],
        2,
    ),
}
# An entity of another type that offers actions and has a url still names a page of the site.
_OFFERING_RANK = 3


def matches(data: Any) -> bool:
    items = data if isinstance(data, list) else [data]
    return any(
        isinstance(item, dict) and {"@context", "@graph", "@type"} & item.keys()
        for item in items[:100]
    )


def site_url(data: Any) -> Any:
    """The ``url`` of the entity that best describes the site (_SITE_TYPES), else of a WebPage:
    either way a page on the site."""
    best: tuple[int, Any] = (9, None)
    for node, _ in Graph(data, []).nodes:
        other = _OFFERING_RANK if node.get("potentialAction") else 9
        rank = min(
            (_SITE_TYPES.get(t, 3 if t == "WebPage" else other) for t in local_types(node)),
            default=9,
        )
        if rank < best[0] and isinstance(node.get("url"), str):
            best = (rank, node["url"])
    return best[1]


def to_manifest(data: Any, url: str, site: str, refs: References | None = None) -> Manifest:
    diags: list[Diagnostic] = []
    doc = Doc(url, Graph(data, diags), diags)
    actions: list[Action] = []
    for owner, node, path in _potential_actions(doc):
        if len(actions) == MAX_ACTIONS:
            doc.diag("too-many-actions", path, f"only the first {MAX_ACTIONS} actions are read")
            break
        action = read_action(node, owner, path, doc)
        # SEO plugins often repeat the site's SearchAction; one copy is enough.
        if action and any((a.type, a.endpoint) == (action.type, action.endpoint) for a in actions):
            doc.diag("duplicate-action", path, "same type and target as an earlier one", "info")
        elif action:
            actions.append(action)
    site_entity = doc.site[1] if doc.site else {}
    for node, _ in doc.graph.nodes:  # a WebAPI's documentation is often its OpenAPI document
        if refs is not None and "WebAPI" in local_types(node):
            docs = doc.resolve(node.get("documentation"))
            refs.add(docs.get("url") if isinstance(docs, dict) else docs)
    description, about = site_text(site_entity.get("description"), "$.description", doc.diags)
    return Manifest(
        site=site,
        url=url,
        format=NAME,
        actions=actions,
        diagnostics=doc.diags,
        site_name=clean_text(site_entity.get("name"), TITLE_MAX) or None,
        site_description=description,
        site_about=about,
    )


def _potential_actions(doc: Doc) -> list[tuple[Node, Node, str]]:
    """(owner, action node, path) for every potentialAction, each action node once."""
    found, seen = [], set()
    for node, path in doc.graph.nodes:
        rank = min((_SITE_TYPES.get(t, 9) for t in local_types(node)), default=9)
        if rank < 9 and (doc.site is None or rank < doc.site[0]):
            doc.site = (rank, node)
        value = node.get("potentialAction")
        candidates = value if isinstance(value, list) else [value]
        for index, candidate in enumerate(candidates[:MAX_ACTIONS]):
            suffix = f"[{index}]" if isinstance(value, list) else ""
            action_path = f"{path}.potentialAction{suffix}"
            action = doc.resolve(candidate)
            if action is None:
                continue
            if not isinstance(action, dict):
                doc.diag("action-skipped", action_path, "a potentialAction must be an object")
            elif id(action) not in seen:
                seen.add(id(action))
                found.append((node, action, action_path))
    return found
